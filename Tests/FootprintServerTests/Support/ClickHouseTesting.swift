import FootprintServer
import FootprintWire
import Foundation
import Testing

/// A ClickHouse store in a database of its own on the test cluster
/// (``ClickHouseTestEnvironment``), dropped afterwards, so suites run side by side.
enum ClickHouseTesting {
    /// The cluster at `url` (default: the test cluster's) with a new database.
    static func newLocation(url: String? = nil) throws -> ClickHouseLocation {
        var location = try ClickHouseLocation(
            url: try url ?? ClickHouseTestEnvironment.requireURL(),
            environment: ClickHouseTestEnvironment.environment)
        location.database = ClickHouseTestEnvironment.newDatabaseName("fp_store")
        return location
    }

    /// Runs `body` with a ClickHouse store in a new database of the cluster at `url` (default:
    /// the test cluster), its metadata in a temporary SQLite file, and its project `shop`; then
    /// drops the database.
    static func withStore<T>(
        url: String? = nil, configure: (inout ClickHouseEventStore.Configuration) -> Void = { _ in },
        _ body: (ClickHouseEventStore, Project) throws -> T
    ) throws -> T {
        let location = try newLocation(url: url)
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
