/// The server's counters at one moment, as `GET /metrics` shows them (``exposition()``).
public struct MetricsSnapshot: Sendable, Hashable {
    /// The upper bounds, in seconds, of the commit latency histogram's buckets (the last bucket,
    /// `+Inf`, is implied).
    public static let commitLatencyBounds: [Double] = [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// Responses sent, by HTTP status.
    public var requestsByStatus: [Int: UInt64] = [:]
    /// Events newly stored.
    public var eventsStored: UInt64 = 0
    /// Events skipped because their `messageId` was stored before.
    public var eventsDuplicate: UInt64 = 0
    /// Events refused one by one (``IngestDecoder/Rejection``).
    public var eventsRejected: UInt64 = 0
    /// Screen snapshots newly stored (`POST /v1/snapshots` answered `201`).
    public var snapshotsStored: UInt64 = 0
    /// Screen snapshot uploads whose `snapshot_id` was stored before (answered `200`).
    public var snapshotsDuplicate: UInt64 = 0
    /// Screen snapshot uploads refused, by the answer's code (`unknown_connect_token`,
    /// `rate_limited`, `image_too_large`, …).
    public var snapshotsRefused: [String: UInt64] = [:]
    /// The most distinct refusal reasons ``snapshotsRefused`` keeps apart (the rest count as
    /// `other`), so the exposition stays bounded whatever happens.
    public static let maximumRefusalReasons = 64
    /// Commits observed in each bucket of ``commitLatencyBounds`` (not cumulative), then the
    /// ones above the last bound; one more element than the bounds.
    public var commitLatencyBuckets = [UInt64](repeating: 0, count: commitLatencyBounds.count + 1)
    /// The commit latencies observed, summed, in seconds.
    public var commitLatencySum = 0.0
    /// Open client connections, when the HTTP layer reports them.
    public var connectionsOpen: Int?
    /// Connections closed so far to keep the table within its limit (the longest-idle one for
    /// a newcomer, or a newcomer finding every other connection in flight), when reported.
    public var connectionsEvicted: Int?
    /// Batches waiting for their commit or being committed.
    public var queueDepth = 0
    /// Requests being handled.
    public var requestsInFlight = 0
    /// The metadata cache's state, when the server reports it.
    public var metadataCache: MetadataCacheReading?
    /// Copies of failed INSERTs a ClickHouse store keeps to check again once settled, when it
    /// reports them (``ClickHouseEventStore/unsettledMessages``).
    public var unsettledMessages: Int?
    /// Copies of unsettled INSERTs given up so far past the store's capacity, when reported.
    public var unsettledMessagesGivenUp: Int?
    /// Shards' parts of INSERTs found cut before their daily counts and repaired so far
    /// (``UnsettledInserts``), when reported.
    public var cutInsertsRepaired: Int?
    /// Replicas a write was answered without since the store opened (down, read-only or behind
    /// when it was written: ``ReplicationWait``), when reported.
    public var replicasPassedOver: Int?
    /// Writes failed because a replica did not fetch their rows in time, when reported.
    public var replicationTimeouts: Int?
    /// Messages whose first stored copies a ClickHouse store's copy checks found tied (two
    /// collectors of one tag, ``CopyDecision``), when reported.
    public var tiedMessages: Int?

    /// Creates an empty snapshot.
    public init() {}

    /// Counts one commit that took `seconds` (queueing included) into its bucket.
    public mutating func observeCommit(seconds: Double) {
        let seconds = seconds.isFinite ? max(0, seconds) : 0
        let bucket = Self.commitLatencyBounds.firstIndex { seconds <= $0 } ?? Self.commitLatencyBounds.count
        commitLatencyBuckets[bucket] &+= 1
        commitLatencySum += seconds
    }
}
