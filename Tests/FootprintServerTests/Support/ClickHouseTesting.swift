import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

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
            // Rounds of settled session figures when a test makes them (ClickHouseSettledTests).
            configuration.settledInterval = 0
            configure(&configuration)
            let store = try ClickHouseEventStore(
                location: location, metadataPath: path, configuration: configuration)
            defer {
                try? store.dropDatabase()
                store.close()
            }
            return try body(store, try store.metadata.createProject(named: "shop"))
        }
    }

    /// The error writing `batch` into `store` fails with, or `nil` when it is stored.
    static func writeFailure(_ store: ClickHouseEventStore, _ batch: IngestBatch) -> ServerError? {
        do {
            _ = try store.write(batch)
            return nil
        } catch {
            return error
        }
    }

    /// Stops (or with `running`, starts again) the background merges of the store's event table
    /// on every shard, so that copies of an event stay in it (no merge collapses them for the
    /// reads). Mutations are merges too: a deletion waits until they run again.
    static func stopMerges(_ store: ClickHouseEventStore, running: Bool = false) throws {
        for shard in store.location.shards {
            _ = try store.client.execute(
                "SYSTEM \(running ? "START" : "STOP") MERGES \(store.location.database).events_local",
                on: shard)
        }
    }

    /// The rows of a project's events table, every stored copy.
    static func storedRows(_ store: ClickHouseEventStore, project: Project) throws -> Int {
        Int(
            try store.client.rows(
                "SELECT count() FROM \(store.location.database).events WHERE project_id = \(project.id)"
            ).first.map { ClickHouseFormat.int64($0[0]) } ?? -1)
    }

    /// The redundant copies a project's records name, each once.
    static func redundantCopies(_ store: ClickHouseEventStore, project: Project) throws -> Int {
        Int(
            try store.client.rows(
                """
                SELECT count() FROM (SELECT DISTINCT device, message_id, sequence
                    FROM \(store.location.database).duplicate_copies WHERE project_id = \(project.id))
                """
            ).first.map { ClickHouseFormat.int64($0[0]) } ?? -1)
    }
}
