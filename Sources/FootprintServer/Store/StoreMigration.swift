import Dispatch
import FootprintWire

/// Copies everything a SQLite store holds about events into another store (`footprint migrate`,
/// typically into ClickHouse): every identity link, every lost-event report, then every event in
/// the order it was stored, in chunks.
///
/// - Idempotent: the target keeps one row per `messageId` (and per link and batch key), so
///   copying anything twice stores nothing twice.
/// - Resumable: after each chunk the target accepted, the source records the last row id copied
///   (``SQLiteEventStore/saveMigrationCursor(_:target:)``, keyed by ``targetName``); a run that
///   stopped resumes after it.
///
/// Projects, keys, configs, definitions and tokens are not copied: the source file itself
/// becomes the target's metadata file (`footprint serve --store … --db SOURCE`), so project ids
/// stay the same.
public struct StoreMigration {
    /// Migration settings.
    public struct Configuration: Sendable {
        /// Events read from the source per chunk. Default 100,000: each chunk is one INSERT per
        /// table into ClickHouse, and larger INSERTs make fewer, larger parts for the shards to
        /// write and merge (into the 2-shard cluster at 1M events, chunks of 10,000 cost the shards
        /// 40–59 s of CPU and 100,000 15–20 s; with the next chunk read ahead, the migration then
        /// holds about 400 MB rather than 80; docs/BENCHMARKS.md).
        public var chunkSize = 100_000
        /// Writes to the target in flight at once (each project of a chunk is one write; the
        /// links and lost-event reports are one write per instant they were stored). Default 16.
        public var concurrentWrites = 16
        /// Creates the default configuration.
        public init() {}
    }

    /// How far a run has come.
    public struct Progress: Sendable, Hashable {
        /// The source's events left to copy when the run started (after the stored cursor).
        public var totalEvents = 0
        /// Events copied so far in this run.
        public var copiedEvents = 0
        /// Of those, events the target stored for the first time.
        public var storedEvents = 0
        /// Of those, events the target already held (an earlier, interrupted run copied them).
        public var duplicateEvents = 0
        /// Of those, events the target refused (they carry the id of a deleted person).
        public var refusedEvents = 0
        /// The row id of the last event copied (the cursor).
        public var cursor: Int64 = 0
        /// The row id the run started after.
        public var startedAfter: Int64 = 0
        /// Identity links copied.
        public var identityLinks = 0
        /// Lost-event reports copied.
        public var lostEventReports = 0
        /// Whether every event has been copied.
        public var finished = false
        /// Creates an empty progress.
        public init() {}
    }

    /// The store copied from.
    public let source: SQLiteEventStore
    /// The store copied into.
    public let target: any EventStore
    /// Names the target in the source's cursor (for example its URL without the password).
    public let targetName: String
    /// The settings.
    public var configuration: Configuration

    /// Creates a migration.
    public init(
        from source: SQLiteEventStore, to target: any EventStore, targetName: String,
        configuration: Configuration = Configuration()
    ) {
        self.source = source
        self.target = target
        self.targetName = targetName
        self.configuration = configuration
    }

    /// Copies what is left to copy.
    /// - Parameter progress: called after the links and reports and after each chunk; an error
    ///   it throws stops the run (the cursor keeps what was copied).
    /// - Returns: the final progress.
    @discardableResult
    public func run(progress: (Progress) throws(ServerError) -> Void = { _ in }) throws(ServerError)
        -> Progress
    {
        var state = Progress()
        state.startedAfter = try source.migrationCursor(target: targetName)
        state.cursor = state.startedAfter
        state.totalEvents = try source.storedEventCount(after: state.cursor)

        let links = try source.storedIdentityLinks()
        try writeAll(
            groups(links, time: \.firstSeen, project: \.projectId).map { group in
                IngestBatch(
                    projectId: group.projectId, events: [], identityLinks: group.items.map(\.link),
                    receivedAt: group.time)
            })
        state.identityLinks = links.count
        let reports = try source.storedLostEvents()
        try writeAll(
            reports.map {
                IngestBatch(
                    projectId: $0.projectId, events: [], evictedCount: $0.count, batchKey: $0.batchKey,
                    receivedAt: $0.receivedAt)
            })
        state.lostEventReports = reports.count
        try progress(state)

        // The next chunk is read from the source while the target stores the one before; a
        // chunk's writes start once the one before has finished and its cursor is saved, so the
        // cursor only ever names a chunk the target accepted whole.
        let chunkSize = max(1, configuration.chunkSize)
        var pending: PendingChunk?
        do {
            var after = state.cursor
            while true {
                let chunk = try source.storedEvents(after: after, limit: chunkSize)
                if let finished = pending {
                    pending = nil
                    try record(try finished.outcomes(), of: finished, in: &state)
                    try progress(state)
                }
                guard let last = chunk.last else { break }
                after = last.id
                pending = PendingChunk(
                    count: chunk.count, cursor: last.id, outcomes: startAll(batches(of: chunk)))
            }
        } catch {
            // Whatever is still in flight finishes before the run stops; its cursor is not saved.
            _ = try? pending?.outcomes()
            throw error
        }
        state.finished = true
        return state
    }

    /// A chunk whose writes were handed to the target: ``outcomes`` waits for them.
    private struct PendingChunk {
        /// Its events.
        var count: Int
        /// The row id of its last event.
        var cursor: Int64
        /// Waits for its writes; their outcomes in order, or the first failure.
        var outcomes: () throws(ServerError) -> [WriteOutcome]
    }

    /// A chunk's events as one batch per project, in the order each project first appears.
    private func batches(of chunk: [SQLiteEventStore.StoredEvent]) -> [IngestBatch] {
        var byProject: [Int64: [EventRecord]] = [:]
        var order: [Int64] = []
        for stored in chunk {
            if byProject[stored.projectId] == nil { order.append(stored.projectId) }
            byProject[stored.projectId, default: []].append(stored.event)
        }
        let receivedAt = chunk.last?.event.receivedAt ?? Timestamp(millisecondsSince1970: 0)
        return order.map { project in
            IngestBatch(projectId: project, events: byProject[project] ?? [], receivedAt: receivedAt)
        }
    }

    /// Adds a finished chunk's outcomes to `state` and saves its cursor in the source.
    private func record(_ outcomes: [WriteOutcome], of chunk: PendingChunk, in state: inout Progress)
        throws(ServerError)
    {
        for outcome in outcomes {
            state.storedEvents += outcome.stored
            state.duplicateEvents += outcome.duplicates
            state.refusedEvents += outcome.refused.count
        }
        state.copiedEvents += chunk.count
        state.cursor = chunk.cursor
        try source.saveMigrationCursor(chunk.cursor, target: targetName)
    }

    private struct Group<Item> {
        var projectId: Int64
        var time: Timestamp
        var items: [Item]
    }

    /// Runs of consecutive items with the same project and time.
    private func groups<Item>(_ items: [Item], time: KeyPath<Item, Timestamp>, project: KeyPath<Item, Int64>)
        -> [Group<Item>]
    {
        var groups: [Group<Item>] = []
        for item in items {
            if let last = groups.last, last.projectId == item[keyPath: project],
                last.time == item[keyPath: time]
            {
                groups[groups.count - 1].items.append(item)
            } else {
                groups.append(
                    Group(projectId: item[keyPath: project], time: item[keyPath: time], items: [item]))
            }
        }
        return groups
    }

    /// Writes `batches` with up to ``Configuration/concurrentWrites`` in flight (the target may
    /// commit them together); returns their outcomes in order, or throws the first failure.
    @discardableResult
    private func writeAll(_ batches: [IngestBatch]) throws(ServerError) -> [WriteOutcome] {
        try startAll(batches)()
    }

    /// Hands `batches` to the target, up to ``Configuration/concurrentWrites`` in flight (it
    /// blocks while that many are), and returns what waits for the last of them: their outcomes
    /// in order, or the first failure.
    private func startAll(_ batches: [IngestBatch]) -> () throws(ServerError) -> [WriteOutcome] {
        let slots = DispatchSemaphore(value: max(1, configuration.concurrentWrites))
        let group = DispatchGroup()
        let results = LockedValue<[Result<WriteOutcome, ServerError>?]>(
            Array(repeating: nil, count: batches.count))
        for (index, batch) in batches.enumerated() {
            slots.wait()
            group.enter()
            target.write(batch) { result in
                results.withLock { $0[index] = result }
                slots.signal()
                group.leave()
            }
        }
        return { () throws(ServerError) -> [WriteOutcome] in
            group.wait()
            return try results.withLock { $0 }.map { result throws(ServerError) in
                guard let result else {
                    throw ServerError(code: .storage, message: "a migration write did not finish")
                }
                return try result.get()
            }
        }
    }
}
