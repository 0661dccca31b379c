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

    /// `--meta-cache-interval` is for the PostgreSQL metadata only, and at most 5 s (issue 28's
    /// bound); nothing is connected to before the arguments are checked.
    @Test(arguments: [
        ["--meta-cache-interval", "500"],
        [
            "--meta-cache-interval", "5001", "--meta", "postgres://fp@127.0.0.1:1/meta", "--store",
            "clickhouse://127.0.0.1:1/footprint",
        ],
        [
            "--meta-cache-interval", "-1", "--meta", "postgres://fp@127.0.0.1:1/meta", "--store",
            "clickhouse://127.0.0.1:1/footprint",
        ],
    ])
    func aMetadataCacheIntervalNeedsPostgreSQLAndAtMostFiveSeconds(_ arguments: [String]) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(["serve", "--port", "0"] + arguments, currentDirectory: directory)
        #expect(result.status == 64, "\(result.output) \(result.error)")
        #expect(result.error.contains(arguments[0]), "\(result.error)")
        #expect(try run(["serve", "--help"]).output.contains("--meta-cache-interval"))
    }
}
