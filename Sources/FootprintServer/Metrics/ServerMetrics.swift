import Dispatch

/// The server's counters for `GET /metrics`: one small lock box that the request paths add to,
/// and two readings taken when metrics are asked for (open connections, requests in flight),
/// each given by whoever knows it.
public final class ServerMetrics: Sendable {
    private struct State {
        var snapshot = MetricsSnapshot()
        var connections: (@Sendable () -> (open: Int, evicted: Int))?
        var requestsInFlight: (@Sendable () -> Int)?
        var metadataCache: (@Sendable () -> MetadataCacheReading)?
        var clickHouseWrites: (@Sendable () -> ClickHouseWriteReading)?
    }

    private let state = LockedValue(State())

    /// Creates empty counters.
    public init() {}

    /// Where the numbers of open client connections and of connections evicted for newcomers
    /// come from (the HTTP server); without one, `footprint_http_connections_open` and
    /// `footprint_http_connections_evicted_total` are left out.
    public func setConnections(_ provider: (@Sendable () -> (open: Int, evicted: Int))?) {
        state.withLock { $0.connections = provider }
    }

    /// Where the number of requests being handled comes from (the HTTP server).
    public func setRequestsInFlight(_ provider: (@Sendable () -> Int)?) {
        state.withLock { $0.requestsInFlight = provider }
    }

    /// Where the metadata cache's state comes from (the metadata store); without one, the
    /// `footprint_metadata_…` gauges are left out.
    public func setMetadataCache(_ provider: (@Sendable () -> MetadataCacheReading)?) {
        state.withLock { $0.metadataCache = provider }
    }

    /// Where the numbers of a ClickHouse store's writes come from (unsettled INSERTs' copies,
    /// replicas passed over: ``ClickHouseEventStore/writeReading``); without one, those families
    /// are left out.
    public func setClickHouseWrites(_ provider: (@Sendable () -> ClickHouseWriteReading)?) {
        state.withLock { $0.clickHouseWrites = provider }
    }

    /// Counts one response with `status`.
    public func countResponse(status: Int) {
        let status = (100...599).contains(status) ? status : 0
        state.withLock { $0.snapshot.requestsByStatus[status, default: 0] &+= 1 }
    }

    /// Counts what one ingest request came to.
    public func countEvents(stored: Int, duplicates: Int, rejected: Int) {
        state.withLock { state in
            state.snapshot.eventsStored &+= UInt64(max(0, stored))
            state.snapshot.eventsDuplicate &+= UInt64(max(0, duplicates))
            state.snapshot.eventsRejected &+= UInt64(max(0, rejected))
        }
    }

    /// Counts one snapshot upload answered `201` (`created`) or `200` (a resend already stored).
    public func countSnapshot(created: Bool) {
        state.withLock { state in
            if created {
                state.snapshot.snapshotsStored &+= 1
            } else {
                state.snapshot.snapshotsDuplicate &+= 1
            }
        }
    }

    /// Counts one snapshot upload refused for `reason`, the code of its answer
    /// (`unknown_connect_token`). The codes are the upload's own fixed set; past
    /// ``MetricsSnapshot/maximumRefusalReasons`` distinct ones, the rest count as `other`.
    public func countSnapshotRefused(reason: String) {
        state.withLock { state in
            var reason = reason
            if state.snapshot.snapshotsRefused[reason] == nil
                && state.snapshot.snapshotsRefused.count >= MetricsSnapshot.maximumRefusalReasons
            {
                reason = "other"
            }
            state.snapshot.snapshotsRefused[reason, default: 0] &+= 1
        }
    }

    /// A commit being timed, from ``beginCommit()`` to ``endCommit(_:)``.
    public struct CommitTiming: Sendable {
        fileprivate let startedNanoseconds: UInt64
    }

    /// Counts a batch handed to the writer in the queue depth and starts timing its commit.
    public func beginCommit() -> CommitTiming {
        state.withLock { $0.snapshot.queueDepth += 1 }
        return CommitTiming(startedNanoseconds: DispatchTime.now().uptimeNanoseconds)
    }

    /// Ends ``beginCommit()``'s timing (committed or failed): out of the queue depth, into the
    /// commit latency histogram.
    public func endCommit(_ timing: CommitTiming) {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds &- timing.startedNanoseconds) / 1e9
        state.withLock { state in
            state.snapshot.queueDepth -= 1
            state.snapshot.observeCommit(seconds: seconds)
        }
    }

    /// The counters now, with the readings of the providers.
    public func snapshot() -> MetricsSnapshot {
        let (snapshot, connections, inFlight, metadataCache, unsettled) = state.withLock {
            ($0.snapshot, $0.connections, $0.requestsInFlight, $0.metadataCache, $0.clickHouseWrites)
        }
        var result = snapshot
        let reading = connections?()
        result.connectionsOpen = reading?.open
        result.connectionsEvicted = reading?.evicted
        result.requestsInFlight = inFlight?() ?? 0
        result.metadataCache = metadataCache?()
        let writes = unsettled?()
        result.unsettledMessages = writes?.kept
        result.unsettledMessagesGivenUp = writes?.givenUp
        result.cutInsertsRepaired = writes?.repaired
        result.replicasPassedOver = writes?.replicasPassedOver
        result.replicationTimeouts = writes?.replicationTimeouts
        result.tiedMessages = writes?.tiedMessages
        return result
    }
}
