import Foundation
import Testing

@testable import FootprintServer

extension CommandLineTests {
    /// `footprint serve --store clickhouse://… --meta postgres://…` keeps no file: its default
    /// project is made in PostgreSQL. (Named `…ClickHouse…` so that `make test` runs it with the
    /// cluster suites.)
    @Test(
        .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason),
        .enabled(if: PostgresTesting.isAvailable, PostgresTesting.reason))
    func serveWithClickHouseEventsKeepsItsMetadataInPostgreSQL() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clickHouse = try ClickHouseTesting.newLocation()
        let postgres = try PostgresTesting.newDatabase()
        defer {
            PostgresTesting.dropDatabase(postgres)
            ClickHouseTestEnvironment.dropDatabase(
                clickHouse.database, url: (try? ClickHouseTestEnvironment.requireURL()) ?? "")
        }
        let url = "postgres://\(postgres.user)@\(postgres.node)/\(postgres.database)"
        let served = try run(
            ["serve", "--store", clickHouse.description, "--meta", url, "--port", "0"],
            signalAfterStart: SIGTERM, currentDirectory: directory)
        #expect(served.status == 0, "\(served.output) \(served.error)")
        #expect(served.output.contains("metadata:  \(url) (PostgreSQL)"), "\(served.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        let store = try PostgresMetadataStore(location: postgres)
        defer { store.close() }
        #expect(try store.projects().map(\.name) == ["default"])
    }
}
