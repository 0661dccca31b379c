import Dispatch
import FootprintSQLite
import FootprintWire

/// The store's single writer: requests queue their batches, and one serial queue commits
/// everything queued so far in one transaction (group commit), then wakes each request.
///
/// One fsync then covers many requests, and a request is answered only after its rows are
/// durable.
final class GroupCommitWriter: @unchecked Sendable {
    /// A batch waiting for its commit, and where its result goes.
    private final class PendingWrite: @unchecked Sendable {
        let batch: IngestBatch
        let done = DispatchSemaphore(value: 0)
        var result: Result<WriteOutcome, ServerError> = .failure(
            ServerError(code: .closed, message: "not run"))

        init(batch: IngestBatch) {
            self.batch = batch
        }
    }

    private struct Queue {
        var writes: [PendingWrite] = []
        var draining = false
        var closed = false
    }

    /// The prepared statements the writer reuses.
    private struct Statements {
        let insertEvent: SQLiteStatement
        let insertIdentity: SQLiteStatement
        let insertLostEvents: SQLiteStatement
        let upsertRollupCount: SQLiteStatement
        let upsertRollupPerson: SQLiteStatement
        let upsertRollupActive: SQLiteStatement
    }

    private let queue = DispatchQueue(label: "footprint.store.writer")
    private let pending = LockedValue(Queue())
    // Used only on `queue`.
    private var database: SQLiteDatabase?
    private var statements: Statements?

    init(database: SQLiteDatabase) throws(SQLiteError) {
        self.database = database
        self.statements = Statements(
            insertEvent: try database.prepare(SQLiteSchema.insertEvent),
            insertIdentity: try database.prepare(SQLiteSchema.insertIdentity),
            insertLostEvents: try database.prepare(SQLiteSchema.insertLostEvents),
            upsertRollupCount: try database.prepare(SQLiteSchema.upsertRollupCount),
            upsertRollupPerson: try database.prepare(SQLiteSchema.upsertRollupPerson),
            upsertRollupActive: try database.prepare(SQLiteSchema.upsertRollupActive))
    }

    /// Queues `batch` and blocks until it is committed (or the commit failed).
    func write(_ batch: IngestBatch) throws(ServerError) -> WriteOutcome {
        let write = PendingWrite(batch: batch)
        enum Admission { case startDrain, joined, closed }
        let admission = pending.withLock { state -> Admission in
            if state.closed { return .closed }
            state.writes.append(write)
            if state.draining { return .joined }
            state.draining = true
            return .startDrain
        }
        switch admission {
        case .closed: throw ServerError(code: .closed, message: "the store is closed")
        case .startDrain: queue.async { self.drain() }
        case .joined: break
        }
        write.done.wait()
        return try write.result.get()
    }

    /// Runs `body` on the writer's queue with the writer's connection, between group commits.
    func perform<T>(_ body: (SQLiteDatabase) throws -> T) throws(ServerError) -> T {
        let result: Result<T, ServerError> = queue.sync {
            guard let database else {
                return .failure(ServerError(code: .closed, message: "the store is closed"))
            }
            do {
                return .success(try body(database))
            } catch let error as ServerError {
                return .failure(error)
            } catch {
                return .failure(ServerError(code: .storage, message: "\(error)"))
            }
        }
        return try result.get()
    }

    /// Refuses new writes, commits the queued ones, checkpoints the WAL and closes the connection.
    func close() {
        pending.withLock { $0.closed = true }
        queue.sync {
            self.drainNow()
            try? self.database?.checkpoint()
            self.statements = nil
            self.database = nil
        }
    }

    private func drain() {
        while drainNow() {}
    }

    /// Commits every queued write as one group; returns whether there was any.
    @discardableResult
    private func drainNow() -> Bool {
        let group = pending.withLock { state -> [PendingWrite] in
            let taken = state.writes
            state.writes = []
            if taken.isEmpty { state.draining = false }
            return taken
        }
        guard !group.isEmpty else { return false }
        let outcome = commit(group.map(\.batch))
        for (index, write) in group.enumerated() {
            write.result = outcome.map { $0[index] }
            write.done.signal()
        }
        return true
    }

    private func commit(_ batches: [IngestBatch]) -> Result<[WriteOutcome], ServerError> {
        guard let database, let statements else {
            return .failure(ServerError(code: .closed, message: "the store is closed"))
        }
        do {
            let outcomes = try database.transaction {
                var rollups = RollupDelta()
                let outcomes = try batches.map { batch throws(SQLiteError) in
                    try insert(batch, using: statements, rollups: &rollups)
                }
                try rollups.write(
                    count: statements.upsertRollupCount, person: statements.upsertRollupPerson,
                    active: statements.upsertRollupActive)
                return outcomes
            }
            return .success(outcomes)
        } catch {
            return .failure(
                ServerError(code: .storage, message: "the batch could not be committed: \(error)"))
        }
    }

    private func insert(_ batch: IngestBatch, using statements: Statements, rollups: inout RollupDelta)
        throws(SQLiteError) -> WriteOutcome
    {
        var stored = 0
        let project = SQLiteValue.integer(batch.projectId)
        for event in batch.events {
            try statements.insertEvent.run([
                project, .text(event.messageId), .text(event.type.rawValue), .text(event.name),
                .integer(event.time.millisecondsSince1970),
                .integer(event.clientTimestamp.millisecondsSince1970),
                event.sentAt.map { .integer($0.millisecondsSince1970) } ?? .null,
                .integer(event.receivedAt.millisecondsSince1970), .text(event.anonymousId),
                .text(event.userId),
                .text(event.sessionId), .text(event.page), .text(event.elementPath), .text(event.appVersion),
                .text(event.os), .text(event.payload), .text(event.similarPath), .text(event.elementText),
                .text(event.itemId), event.durationMilliseconds.map(SQLiteValue.integer) ?? .null,
            ])
            if statements.insertEvent.database.changes > 0 {
                stored += 1
                rollups.add(event, project: batch.projectId)
            }
        }
        let now = SQLiteValue.integer(batch.receivedAt.millisecondsSince1970)
        for link in batch.identityLinks {
            try statements.insertIdentity.run([project, .text(link.anonymousId), .text(link.userId), now])
        }
        if batch.evictedCount > 0 {
            try statements.insertLostEvents.run([
                project, .text(batch.batchKey), .integer(Int64(batch.evictedCount)), now,
            ])
        }
        return WriteOutcome(stored: stored, duplicates: batch.events.count - stored)
    }
}
