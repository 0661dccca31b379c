import Dispatch
import FootprintSQLite
import FootprintWire
import Foundation

/// The store's single writer: requests queue their batches, and one serial queue commits
/// everything queued so far in one transaction (group commit, ``GroupCommitQueue``), then calls
/// each request's completion.
///
/// One fsync then covers many requests, and a request is answered only after its rows are
/// durable.
final class GroupCommitWriter: @unchecked Sendable {
    /// The prepared statements the writer reuses.
    struct Statements {
        let insertEvent: SQLiteStatement
        let insertIdentity: SQLiteStatement
        let insertLostEvents: SQLiteStatement
        let selectSession: SQLiteStatement
        let upsertSession: SQLiteStatement
        let rollups: RollupDelta.Statements
        /// The person numbers, merges and day sets.
        let people: PersonSetWriter
    }

    /// A batch queued for the writer, with its events' payloads as stored (``StoredPayload``)
    /// and what they add to the rollups when every one of them is new: the thread that queues
    /// it does that work, so that the one writer does not.
    struct QueuedBatch: Sendable {
        let batch: IngestBatch
        let payloads: [SQLiteValue]
        /// The rollups of every event in the batch; the writer counts the events again one by
        /// one when some of them are not stored (already stored, or refused).
        let rollups: RollupDelta

        init(_ batch: IngestBatch) {
            self.batch = batch
            self.payloads = batch.events.map(StoredPayload.value(of:))
            var rollups = RollupDelta()
            for event in batch.events { rollups.add(event, project: batch.projectId) }
            self.rollups = rollups
        }
    }

    private let groups: GroupCommitQueue<QueuedBatch, WriteOutcome>
    // Used only on the queue of `groups`.
    private var database: SQLiteDatabase?
    private(set) var statements: Statements?
    /// The ids of deleted people refused on ingest.
    var deletedIds: DeletedIds
    /// Counts the writer's deletions of stored events (people, retention), so a deletion can
    /// tell whether what it read before taking the writer is still whole.
    let eventDeletions = LockedValue(0)
    /// `PRAGMA data_version` when ``deletedIds`` was read: another process's commit (a
    /// `footprint people delete` beside the server) changes it, and the ids are read again.
    private var dataVersion: Int64 = 0

    /// - Parameters:
    ///   - database: the writer's connection.
    ///   - linger: the longest a group waits for batches being prepared, in seconds (0: never).
    init(database: SQLiteDatabase, linger: Double = 0) throws {
        self.database = database
        self.groups = GroupCommitQueue(label: "footprint.store.writer", linger: linger)
        self.deletedIds = try DeletedIds(database: database)
        self.statements = Statements(
            insertEvent: try database.prepare(SQLiteSchema.insertEvent),
            insertIdentity: try database.prepare(SQLiteSchema.insertIdentity),
            insertLostEvents: try database.prepare(SQLiteSchema.insertLostEvents),
            selectSession: try database.prepare(SQLiteSchema.selectSession),
            upsertSession: try database.prepare(SQLiteSchema.upsertSession),
            rollups: RollupDelta.Statements(
                stored: try database.prepare(SQLiteSchema.addStoredEvents),
                count: try database.prepare(SQLiteSchema.upsertRollupCount),
                total: try database.prepare(SQLiteSchema.upsertRollupTotal),
                sessionPage: try database.prepare(SQLiteSchema.upsertSessionPage),
                dwell: try database.prepare(SQLiteSchema.upsertDwell),
                move: try database.prepare(SQLiteSchema.upsertMove)),
            people: try PersonSetWriter(database: database, salt: deletedIds.salt))
        groups.start { [weak self] batches in
            guard let self else {
                return .failure(ServerError(code: .closed, message: "the store is closed"))
            }
            return self.commit(batches)
        }
    }

    /// Queues `batch` and blocks until it is committed (or the commit failed).
    func write(_ batch: IngestBatch) throws(ServerError) -> WriteOutcome {
        try groups.write(QueuedBatch(batch))
    }

    /// Queues `batch`; `completion` runs on the writer's queue once it is committed (or the
    /// commit failed), or at once when the writer is closed.
    func write(
        _ batch: IngestBatch, completion: @escaping @Sendable (Result<WriteOutcome, ServerError>) -> Void
    ) {
        groups.write(QueuedBatch(batch), completion: completion)
    }

    /// Runs `body`, which prepares a batch and hands it to ``write(_:completion:)``; meanwhile a
    /// group about to be committed may wait for that batch (at most `linger`).
    func preparingWrite<T>(_ body: () throws -> T) rethrows -> T {
        try groups.preparingWrite(body)
    }

    /// Batches waiting for the next group commit.
    var queuedWrites: Int { groups.queuedWrites }

    /// Groups of batches committed (or failed) so far.
    var groupsCommitted: Int { groups.groupsCommitted }

    /// Whether the next group is waiting for batches being prepared.
    var isLingering: Bool { groups.isLingering }

    /// Runs `body` on the writer's queue with the writer's connection, between group commits.
    func perform<T>(_ body: (SQLiteDatabase) throws -> T) throws(ServerError) -> T {
        let result: Result<T, ServerError> = groups.sync {
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

    /// Counts into the rollups the stored events not counted yet (after a migration that
    /// rebuilds them), oldest first, `chunk` events per transaction. Progress is stored with
    /// each transaction, so an interrupted rebuild resumes where it stopped.
    /// - Returns: the events counted.
    @discardableResult
    func rebuildRollups(chunk: Int = 20_000) throws(ServerError) -> Int {
        try countStoredEvents(
            progress: SQLiteSchema.rebuildKey, chunk: chunk, count: { $0.add($1, project: $2) }
        ) {
            database throws(SQLiteError) in
            // The merges are made again from the links.
            try database.prepare("INSERT OR REPLACE INTO store_state(key, value) VALUES (?1, 1)").run([
                .text(SQLiteSchema.personSetsKey)
            ])
        }
    }

    /// Adds the stored events' times to `rollup_times` (after the migration that adds it), as
    /// ``rebuildRollups(chunk:)`` counts every rollup.
    /// - Returns: the events whose times were added.
    @discardableResult
    func fillRollupTimes(chunk: Int = 20_000) throws(ServerError) -> Int {
        try countStoredEvents(
            progress: SQLiteSchema.timesKey, chunk: chunk, count: { $0.addTimes($1, project: $2) },
            finish: { _ in })
    }

    /// Adds the stored events' people to the day sets (after the migration that adds
    /// `person_label_sets`), as ``rebuildRollups(chunk:)`` counts every rollup.
    /// - Returns: the events whose people were added.
    @discardableResult
    func fillPersonSets(chunk: Int = 20_000) throws(ServerError) -> Int {
        try countStoredEvents(
            progress: SQLiteSchema.labelSetsKey, chunk: chunk, count: { $0.addPeople($1, project: $2) },
            finish: { _ in })
    }

    /// Counts the stored events after the one `progress` (a `store_state` key) names into the
    /// rollups with `count`, oldest first, `chunk` per transaction, moving `progress` on with
    /// each; when none are left, removes `progress` and runs `finish` in the same transaction.
    /// Does nothing without `progress`.
    private func countStoredEvents(
        progress key: String, chunk: Int, count: (inout RollupDelta, EventRecord, Int64) -> Void,
        finish: (SQLiteDatabase) throws(SQLiteError) -> Void
    ) throws(ServerError) -> Int {
        try perform { database in
            guard let statements = self.statements else { return 0 }
            let progress = try database.prepare("SELECT value FROM store_state WHERE key = ?1").rows([
                .text(key)
            ]) { $0.int64(at: 0) }
            guard var last = progress.first else { return 0 }
            let select = try database.prepare(
                "SELECT \(Self.rollupColumns) FROM events WHERE id > ?1 ORDER BY id LIMIT ?2")
            let save = try database.prepare("UPDATE store_state SET value = ?2 WHERE key = ?1")
            var counted = 0
            while true {
                let finished = try database.transaction { () throws -> Bool in
                    var delta = RollupDelta()
                    let rows = try select.rows([.integer(last), .integer(Int64(chunk))], Self.rollupRow)
                    guard let newest = rows.last else {
                        try database.prepare("DELETE FROM store_state WHERE key = ?1").run([.text(key)])
                        try finish(database)
                        return true
                    }
                    for row in rows { count(&delta, row.event, row.project) }
                    try Self.write(delta, using: statements)
                    last = newest.id
                    counted += rows.count
                    try save.run([.text(key), .integer(last)])
                    return false
                }
                if finished { return counted }
            }
        }
    }

    /// Builds the merges from the links when they are due (``SQLiteSchema/personSetsKey``), in
    /// one transaction.
    func buildMergesIfDue() throws(ServerError) {
        try perform { database in
            guard let statements = self.statements else { return }
            let due = try database.prepare("SELECT 1 FROM store_state WHERE key = ?1").rows([
                .text(SQLiteSchema.personSetsKey)
            ]) { _ in true }
            guard !due.isEmpty else { return }
            try database.transaction { try statements.people.rebuildMerges() }
        }
    }

    /// Refuses new writes, commits the queued ones, checkpoints the WAL and closes the connection.
    func close() {
        groups.close {
            try? self.database?.checkpoint()
            self.statements = nil
            self.database = nil
        }
    }

    /// Reads ``deletedIds`` again when another connection changed the database since.
    private func refreshDeletedIds(_ database: SQLiteDatabase) throws {
        let version = try database.prepare("PRAGMA data_version").rows([]) { $0.int64(at: 0) }.first ?? 0
        if version != dataVersion {
            deletedIds = try DeletedIds(database: database)
            dataVersion = version
        }
    }

    /// The ids refused now (read again when another process deleted a person meanwhile): for a
    /// store whose events are elsewhere (ClickHouse) and whose metadata this writer keeps.
    func currentDeletedIds() throws(ServerError) -> DeletedIds {
        try perform { database in
            try self.refreshDeletedIds(database)
            return self.deletedIds
        }
    }

    private func commit(_ batches: [QueuedBatch]) -> Result<[WriteOutcome], ServerError> {
        guard let database, let statements else {
            return .failure(ServerError(code: .closed, message: "the store is closed"))
        }
        do {
            try refreshDeletedIds(database)
            let outcomes = try database.transaction {
                var rollups = RollupDelta()
                var linked: [Int64: Set<String>] = [:]
                let outcomes = try batches.map { batch throws(SQLiteError) in
                    try insert(batch, using: statements, rollups: &rollups, linked: &linked)
                }
                try Self.write(rollups, using: statements)
                var numbers: PersonSetWriter.Numbers = [:]
                for (project, anonymousIds) in linked {
                    try statements.people.updateMerges(
                        project: project, anonymousIds: anonymousIds, numbers: &numbers)
                }
                return outcomes
            }
            return .success(outcomes)
        } catch {
            return .failure(
                ServerError(code: .storage, message: "the batch could not be committed: \(error)"))
        }
    }

    /// The columns of `events` that ``rollupRow(_:)`` reads.
    static let rollupColumns = """
        id, project_id, type, name, time, anonymous_id, user_id, session_id, page, element_path,
            \(SQLiteSchema.similarPath), element_text, item_id, duration_ms, app_version, os, plan_event
        """

    /// A stored event as the rollups count it, from a row of ``rollupColumns``.
    static func rollupRow(_ row: SQLiteStatement) -> (id: Int64, project: Int64, event: EventRecord) {
        let time = Timestamp(millisecondsSince1970: row.int64(at: 4))
        let event = EventRecord(
            messageId: "", type: MessageType(rawValue: row.text(at: 2) ?? "") ?? .track,
            name: row.text(at: 3), time: time, clientTimestamp: time, sentAt: nil,
            receivedAt: time,
            anonymousId: row.text(at: 5), userId: row.text(at: 6), sessionId: row.text(at: 7),
            page: row.text(at: 8), elementPath: row.text(at: 9), appVersion: row.text(at: 14),
            os: row.text(at: 15), payload: "", similarPath: row.text(at: 10),
            elementText: row.text(at: 11), itemId: row.text(at: 12),
            durationMilliseconds: row.isNull(at: 13) ? nil : row.int64(at: 13),
            planEventName: row.text(at: 16))
        return (id: row.int64(at: 0), project: row.int64(at: 1), event: event)
    }

    /// Updates the stored sessions the delta's events belong to, then writes every rollup.
    static func write(_ delta: RollupDelta, using statements: Statements) throws(SQLiteError) {
        var rollups = delta
        for (key, added) in delta.sessions {
            let values: [SQLiteValue] = [.integer(key.project), .text(key.key)]
            let select = statements.selectSession
            try select.bind(values)
            var stored: (timeline: SessionTimeline?, appVersion: String, os: String)?
            if try select.step() {
                stored = (storedTimeline(select), select.text(at: 3) ?? "", select.text(at: 4) ?? "")
            }
            select.reset()
            // A stored timeline that cannot be read (never written by this code) starts again.
            let before = stored?.timeline
            var timeline = before ?? SessionTimeline()
            for event in added.events {
                timeline.add(time: event.time, mark: event.mark, isPageView: event.isPageView)
            }
            let appVersion = stored?.appVersion ?? added.appVersion
            let os = stored?.os ?? added.os
            rollups.replace(session: key, before: before, after: timeline, appVersion: appVersion, os: os)
            guard let start = timeline.start, let end = timeline.end else { continue }
            try statements.upsertSession.run(
                values + [
                    .integer(Timestamp(millisecondsSince1970: start).dayNumber), .integer(start),
                    .integer(end),
                    .integer(Int64(timeline.pageViews)), .text(appVersion), .text(os),
                    .blob(timeline.storedMarks),
                ])
        }
        try rollups.write(statements.rollups)
        var numbers: PersonSetWriter.Numbers = [:]
        try statements.people.add(delta.personDays, numbers: &numbers)
        try statements.people.addTimes(delta.personTimes, numbers: &numbers)
    }

    /// The timeline of a row of ``SQLiteSchema/selectSession``: its marks as a BLOB
    /// (``SessionTimeline/storedMarks``) or, in rows written before those, as JSON text
    /// (``SessionTimeline/encodedMarks``); `nil` when they cannot be read.
    static func storedTimeline(_ select: SQLiteStatement) -> SessionTimeline? {
        let start = select.int64(at: 0)
        let end = select.int64(at: 1)
        let pageViews = Int(select.int64(at: 2))
        guard select.isBlob(at: 5) else {
            return SessionTimeline(
                start: start, end: end, pageViews: pageViews, encodedMarks: select.text(at: 5) ?? "")
        }
        return select.withBlob(at: 5) {
            SessionTimeline(start: start, end: end, pageViews: pageViews, storedMarks: $0)
        }
    }

    /// The values of ``SQLiteSchema/insertEvent`` for `event`, its payload as stored.
    static func insertValues(_ event: EventRecord, project: SQLiteValue, payload: SQLiteValue)
        -> [SQLiteValue]
    {
        // The two times as offsets (``SQLiteSchema/clientTimestamp``), or in their own columns
        // when an offset does not fit; the similar path only where it is not the element's own.
        func offset(_ value: Timestamp) -> SQLiteValue {
            let (offset, overflow) = value.millisecondsSince1970.subtractingReportingOverflow(
                event.time.millisecondsSince1970)
            return overflow ? .null : .integer(offset)
        }
        let clientOffset = offset(event.clientTimestamp)
        let receivedOffset = offset(event.receivedAt)
        return [
            project, .text(event.messageId), .text(event.type.rawValue), .text(event.name),
            .integer(event.time.millisecondsSince1970),
            .integer(clientOffset == .null ? event.clientTimestamp.millisecondsSince1970 : 0),
            event.sentAt.map { .integer($0.millisecondsSince1970) } ?? .null,
            .integer(receivedOffset == .null ? event.receivedAt.millisecondsSince1970 : 0),
            .text(event.anonymousId), .text(event.userId),
            .text(event.sessionId), .text(event.page), .text(event.elementPath), .text(event.appVersion),
            .text(event.os), payload, .text(event.similarPath == event.elementPath ? nil : event.similarPath),
            .text(event.elementText), .text(event.itemId),
            event.durationMilliseconds.map(SQLiteValue.integer) ?? .null, .text(event.planEventName),
            clientOffset, receivedOffset,
        ]
    }

    /// Stores a batch's events (counted in `rollups`) and links (their anonymous ids added to
    /// `linked` when new).
    private func insert(
        _ queued: QueuedBatch, using statements: Statements, rollups: inout RollupDelta,
        linked: inout [Int64: Set<String>]
    )
        throws(SQLiteError) -> WriteOutcome
    {
        let batch = queued.batch
        var stored = 0
        let refused = deletedIds.refusedEvents(of: batch)
        let refusedSet = Set(refused)
        let project = SQLiteValue.integer(batch.projectId)
        var storedIndexes: [Int] = []
        for (index, event) in batch.events.enumerated() where !refusedSet.contains(index) {
            try statements.insertEvent.run(
                Self.insertValues(event, project: project, payload: queued.payloads[index]))
            if statements.insertEvent.database.changes > 0 {
                stored += 1
                storedIndexes.append(index)
            }
        }
        if stored == batch.events.count {
            rollups.merge(queued.rollups)
        } else {
            for index in storedIndexes { rollups.add(batch.events[index], project: batch.projectId) }
        }
        let now = SQLiteValue.integer(batch.receivedAt.millisecondsSince1970)
        for link in deletedIds.acceptedLinks(of: batch) {
            try statements.insertIdentity.run([project, .text(link.anonymousId), .text(link.userId), now])
            if statements.insertIdentity.database.changes > 0 {
                linked[batch.projectId, default: []].insert(link.anonymousId)
            }
        }
        if batch.evictedCount > 0 {
            try statements.insertLostEvents.run([
                project, .text(batch.batchKey), .integer(Int64(batch.evictedCount)), now,
            ])
        }
        return WriteOutcome(
            stored: stored, duplicates: batch.events.count - stored - refused.count, refused: refused)
    }
}
