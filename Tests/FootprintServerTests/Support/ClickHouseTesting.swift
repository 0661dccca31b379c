import FootprintServer
import FootprintWire
import Foundation
import Testing

/// The ClickHouse cluster the ClickHouse suites run against, and stores on it.
///
/// The cluster is `FOOTPRINT_CLICKHOUSE_URL` (`clickhouse://…` listing every shard; written by
/// `scripts/cluster.sh start`, and `make test` starts two shards and sets it). Without it the
/// suites are skipped, unless `FOOTPRINT_REQUIRE_CLICKHOUSE=1` (set by `make test`): then they
/// run and fail, so a run can never pass by skipping them. Each test makes its own database on
/// the cluster and drops it afterwards, so suites run side by side.
enum ClickHouseTesting {
    static let environment = ProcessInfo.processInfo.environment

    /// The cluster's URL, `nil` when the environment names none.
    static let url = environment["FOOTPRINT_CLICKHOUSE_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// `FOOTPRINT_REQUIRE_CLICKHOUSE=1` (make test): the cluster and chDB must be there.
    static let required = environment["FOOTPRINT_REQUIRE_CLICKHOUSE"] == "1"

    /// Whether the ClickHouse suites run: with a cluster, or when required (and then fail).
    static let isAvailable = url != nil || required

    /// Why they do not run.
    static let reason: Comment =
        "needs FOOTPRINT_CLICKHOUSE_URL: run make test, or scripts/cluster.sh start and load its cluster.env"

    /// The cluster at `url` (default: the test cluster's) with a new database.
    static func newLocation(url: String? = nil) throws -> ClickHouseLocation {
        var location = try ClickHouseLocation(
            url: try url ?? ClickHouseTestEnvironment.requireURL(),
            environment: environment)
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
