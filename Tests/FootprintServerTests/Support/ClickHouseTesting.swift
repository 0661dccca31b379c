import FootprintServer
import FootprintWire
import Foundation
import Testing

/// The ClickHouse cluster the ClickHouse suites run against: `FOOTPRINT_CLICKHOUSE_URL`, a
/// `clickhouse://` URL listing every shard (`make test` starts one and sets it). Each test makes
/// its own database on it and drops it afterwards, so suites run side by side.
enum ClickHouseTesting {
    /// The cluster's URL, `nil` when the environment names none.
    static let url: String? = {
        let value = ProcessInfo.processInfo.environment["FOOTPRINT_CLICKHOUSE_URL"] ?? ""
        return value.isEmpty ? nil : value
    }()

    /// Whether the ClickHouse suites run.
    static let isAvailable = url != nil

    /// Why they do not.
    static let reason: Comment =
        "FOOTPRINT_CLICKHOUSE_URL is not set: start a cluster (scripts/cluster.sh start) and set it to its clickhouse:// URL"

    /// The cluster's location with a new database of its own.
    static func newLocation() throws -> ClickHouseLocation {
        var location = try ClickHouseLocation(
            url: try #require(url), environment: ProcessInfo.processInfo.environment)
        var generator = SystemRandomNumberGenerator()
        location.database = "fp_test_" + String(generator.next() as UInt64, radix: 16)
        return location
    }

    /// Runs `body` with a ClickHouse store in a new database (its metadata in a temporary
    /// SQLite file) and its project `shop`, then drops the database.
    static func withStore<T>(
        configure: (inout ClickHouseEventStore.Configuration) -> Void = { _ in },
        _ body: (ClickHouseEventStore, Project) throws -> T
    ) throws -> T {
        let location = try newLocation()
        return try withTemporaryDatabase("footprint-clickhouse") { path in
            var configuration = ClickHouseEventStore.Configuration()
            configuration.metadata.synchronous = "OFF"
            configure(&configuration)
            let store = try ClickHouseEventStore(
                location: location, metadataPath: path, configuration: configuration)
            defer {
                try? store.dropDatabase()
                store.close()
            }
            return try body(store, try store.createProject(named: "shop"))
        }
    }
}

/// `make test` sets `FOOTPRINT_REQUIRE_CLICKHOUSE=1`: there, a missing cluster fails the run
/// instead of skipping the ClickHouse suites.
@Suite struct ClickHouseRequirementTests {
    @Test func theClickHouseSuitesRunWhenRequired() {
        let required = ProcessInfo.processInfo.environment["FOOTPRINT_REQUIRE_CLICKHOUSE"] == "1"
        #expect(
            !required || ClickHouseTesting.isAvailable,
            "FOOTPRINT_REQUIRE_CLICKHOUSE=1 but no cluster: \(ClickHouseTesting.reason)")
    }
}
