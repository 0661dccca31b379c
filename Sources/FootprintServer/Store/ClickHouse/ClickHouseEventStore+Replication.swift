import Foundation

/// What a ClickHouse store's writes came to so far (``ClickHouseEventStore/writeReading``).
public struct ClickHouseWriteReading: Sendable, Equatable {
    /// Copies of unsettled INSERTs kept for a check once settled (``UnsettledInserts``).
    public var kept = 0
    /// Copies of unsettled INSERTs given up past the capacity.
    public var givenUp = 0
    /// Shards' parts of INSERTs found cut before their daily counts and repaired.
    public var repaired = 0
    /// Replicas a write was answered without (``ReplicationWait``).
    public var replicasPassedOver = 0
    /// Writes failed because a replica did not fetch their rows in time.
    public var replicationTimeouts = 0
    /// Messages whose first stored copies the copy checks found tied (``CopyDecision``): each
    /// counts twice.
    public var tiedMessages = 0
}

/// The wait, before a write on replicated shards is answered, until every replica holds its
/// rows (``ReplicationWait``).
extension ClickHouseEventStore {
    /// Seconds one read of a replica's state may take: one that does not answer by then is
    /// passed over as down.
    static let replicaReadTimeout = 2.0

    /// Seconds before a write's start from which a part still to fetch counts as possibly the
    /// write's: one logged earlier is not waited for (a part of a replica that died before its
    /// twin fetched it stays in the twin's queue, and would hold up every write until it
    /// returns). It allows for the whole seconds of `create_time` and for replicas' clocks up to
    /// a second apart.
    static let partsLoggedBefore = 2.0

    /// Waits, after a write's INSERTs were answered, until every replica of every shard holds
    /// their rows, passing over the replicas that are down, read-only or behind
    /// (``ReplicationWait``), at most ``Configuration/replicationWait`` seconds; then fails as
    /// `unavailable`. `started` is when its INSERTs started. Returns at once on unreplicated
    /// shards.
    func awaitReplicas(started: Date) throws(ServerError) {
        let limit = min(60, configuration.replicationWait)
        guard location.isReplicated, limit > 0 else { return }
        let start = DispatchTime.now()
        var local = sql
        local.tables = .local
        let tables = local.replicatedTables
        let parts = local.partsToFetch(
            since: Int64((started.timeIntervalSince1970 - Self.partsLoggedBefore).rounded(.down)))
        let replicas = location.replicaSets
        /// What `node` reports: its tables, then its parts to fetch (`nil` if it cannot be read).
        func report(_ node: ClickHouseLocation.Node) -> ReplicationWait.Report? {
            guard let read = try? client.rows(tables, on: node, timeout: Self.replicaReadTimeout),
                let fetching = try? client.rows(parts, on: node, timeout: Self.replicaReadTimeout)
            else { return nil }
            return ReplicationWait.Report(
                tables: read,
                fetching: Dictionary(grouping: fetching, by: \.table).mapValues { Set($0.map(\.part)) })
        }
        var wait = ReplicationWait(
            first: replicas.map { $0.map(report) }, maximumDelay: configuration.maximumReplicaDelay)
        var pause = 0.002
        while !wait.done {
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            guard elapsed < limit else {
                replication.withLock { $0.timeouts += 1 }
                throw ServerError(
                    code: .unavailable,
                    message: "a replica did not fetch the rows within \(limit) s (\(wait.description))")
            }
            Thread.sleep(forTimeInterval: min(pause, limit - elapsed))
            pause = min(0.05, pause * 2)
            for (shard, replica) in wait.waitingFor {
                wait.observe(report(replicas[shard][replica]), shard: shard, replica: replica)
            }
        }
        if wait.passedOver > 0 { replication.withLock { $0.passedOver += wait.passedOver } }
    }
}
