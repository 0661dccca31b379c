import FootprintSQLite
import Foundation

/// The durable on-device queue: one SQLite file (WAL) holding events waiting to be sent, the
/// dead-letter table and the tracker's persisted state.
///
/// Bounded by count and bytes: past either bound the oldest events (after those in flight) are
/// evicted, and the number evicted is kept until a batch reporting it is delivered. Confined to
/// the storage thread.
final class EventQueue {
    /// The bounds of the queue.
    struct Limits: Sendable {
        var maximumEvents: Int
        var maximumBytes: Int
        var maximumDeadLetters: Int
    }

    /// The database file.
    let path: String
    let limits: Limits
    private(set) var database: SQLiteDatabase
    /// Events in the queue.
    private(set) var count = 0
    /// Bytes of events in the queue.
    private(set) var bytes = 0
    /// Rows up to this id were handed to the uploader and are not evicted.
    var protectedUpTo: Int64 = 0
    private var insertStatement: SQLiteStatement
    /// Inserts ``rowsPerInsert`` events in one statement; prepared on first use per file.
    private var chunkInsertStatement: SQLiteStatement?
    /// Events per multi-row `INSERT`: one statement (and one AUTOINCREMENT bookkeeping update)
    /// for many rows.
    static let rowsPerInsert = 32
    private var deleteStatement: SQLiteStatement

    static let migrations = [
        """
        CREATE TABLE events(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            message_id TEXT NOT NULL,
            size INTEGER NOT NULL,
            body BLOB NOT NULL);
        CREATE TABLE dead_letters(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            message_id TEXT NOT NULL,
            reason TEXT NOT NULL,
            failed_at INTEGER NOT NULL,
            body BLOB NOT NULL);
        CREATE TABLE state(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """
    ]

    /// Opens the queue at `path`. A file that cannot be opened as this queue is moved aside
    /// (`<path>.corrupt-<ms>`) and replaced; `replaced` is told where it went.
    /// - Throws: only when even a fresh file cannot be created.
    init(path: String, limits: Limits, replaced: (String, String) -> Void) throws {
        self.path = path
        self.limits = limits
        let opened: (SQLiteDatabase, SQLiteStatement, SQLiteStatement)
        do {
            opened = try Self.open(path)
        } catch let error as SQLiteError where !error.isTransient {
            let movedTo = Self.moveAside(path)
            replaced(movedTo, "\(error)")
            opened = try Self.open(path)
        }
        (database, insertStatement, deleteStatement) = opened
        try loadTotals()
    }

    private static func open(_ path: String) throws -> (SQLiteDatabase, SQLiteStatement, SQLiteStatement) {
        let database = try SQLiteDatabase(path: path)
        try database.migrate(migrations)
        // A damaged page may only show when read: check the whole file once per start.
        let check = try database.prepare("PRAGMA quick_check")
        if try check.step(), let result = check.text(at: 0), result != "ok" {
            throw SQLiteError(code: 11, message: "quick_check: \(result.prefix(200))")
        }
        let insert = try database.prepare("INSERT INTO events(message_id, size, body) VALUES (?, ?, ?)")
        let delete = try database.prepare("DELETE FROM events WHERE id = ? RETURNING size")
        return (database, insert, delete)
    }

    /// Moves the database and its WAL files aside; returns the new path of the main file.
    static func moveAside(_ path: String) -> String {
        let stamp = SystemClock().now().millisecondsSince1970
        let target = "\(path).corrupt-\(stamp)"
        let files = FileManager.default
        for suffix in ["", "-wal", "-shm"] where files.fileExists(atPath: path + suffix) {
            try? files.removeItem(atPath: target + suffix)
            if (try? files.moveItem(atPath: path + suffix, toPath: target + suffix)) == nil {
                try? files.removeItem(atPath: path + suffix)
            }
        }
        return target
    }

    /// Replaces a database found damaged while running. The events it held are lost with it and
    /// reported as evicted.
    func replaceDamaged(reason: String, replaced: (String, String) -> Void) throws {
        let lost = count
        let movedTo = Self.moveAside(path)
        replaced(movedTo, reason)
        (database, insertStatement, deleteStatement) = try Self.open(path)
        chunkInsertStatement = nil
        protectedUpTo = 0
        try loadTotals()
        try addUnreportedEvictions(Int64(lost))
    }

    private func loadTotals() throws {
        let totals = try database.prepare("SELECT count(*), coalesce(sum(size), 0) FROM events")
        _ = try totals.step()
        count = Int(totals.int64(at: 0))
        bytes = Int(totals.int64(at: 1))
    }

    /// Runs `body` in one transaction.
    func write<T>(_ body: () throws -> T) throws -> T {
        try database.transaction(body)
    }

    /// Appends encoded events in order (inside ``write(_:)``), many rows per statement.
    func append(_ events: [(messageId: String, body: [UInt8])]) throws {
        var start = 0
        if events.count >= Self.rowsPerInsert {
            let chunk = try chunkInsertStatement ?? prepareChunkInsert()
            while events.count - start >= Self.rowsPerInsert {
                chunk.reset()
                for (offset, event) in events[start..<start + Self.rowsPerInsert].enumerated() {
                    try bindRow(event, in: chunk, at: offset)
                }
                while try chunk.step() {}
                start += Self.rowsPerInsert
            }
        }
        for event in events[start...] {
            insertStatement.reset()
            try bindRow(event, in: insertStatement, at: 0)
            while try insertStatement.step() {}
        }
        count += events.count
        bytes += events.reduce(0) { $0 + $1.body.count }
    }

    private func bindRow(
        _ event: (messageId: String, body: [UInt8]), in statement: SQLiteStatement, at row: Int
    )
        throws
    {
        let first = Int32(row * 3 + 1)
        try statement.bind(.text(event.messageId), at: first)
        try statement.bind(.integer(Int64(event.body.count)), at: first + 1)
        try statement.bind(.blob(event.body), at: first + 2)
    }

    private func prepareChunkInsert() throws -> SQLiteStatement {
        let rows = Array(repeating: "(?, ?, ?)", count: Self.rowsPerInsert).joined(separator: ", ")
        let statement = try database.prepare("INSERT INTO events(message_id, size, body) VALUES \(rows)")
        chunkInsertStatement = statement
        return statement
    }

    /// Evicts the oldest events not in flight until the queue is within its bounds (inside
    /// ``write(_:)``). Returns how many were evicted; they are added to the evictions to report.
    @discardableResult
    func evictOverflow() throws -> Int {
        var evicted = 0
        let select = try database.prepare("SELECT id, size FROM events WHERE id > ? ORDER BY id LIMIT 512")
        while count > limits.maximumEvents || bytes > limits.maximumBytes {
            var cut: Int64?
            var freedCount = 0
            var freedBytes = 0
            try select.bind([.integer(protectedUpTo)])
            while try select.step() {
                cut = select.int64(at: 0)
                freedCount += 1
                freedBytes += Int(select.int64(at: 1))
                if count - freedCount <= limits.maximumEvents && bytes - freedBytes <= limits.maximumBytes {
                    break
                }
            }
            select.reset()
            guard let cut else { break }
            try database.prepare("DELETE FROM events WHERE id > ? AND id <= ?")
                .run([.integer(protectedUpTo), .integer(cut)])
            count -= freedCount
            bytes -= freedBytes
            evicted += freedCount
        }
        if evicted > 0 { try addUnreportedEvictions(Int64(evicted)) }
        return evicted
    }

    /// Evictions not yet reported to the server.
    var unreportedEvictions: Int64 {
        get throws { Int64(try state("unreported_evictions") ?? "0") ?? 0 }
    }

    /// Adds `amount` (negative once reported) to the evictions to report.
    func addUnreportedEvictions(_ amount: Int64) throws {
        guard amount != 0 else { return }
        try setState("unreported_evictions", String(max(0, try unreportedEvictions + amount)))
    }

    /// Reads the events `selection` names, at most `maximumBytes` of them (always at least one),
    /// and protects them from eviction until the next read.
    func read(_ selection: BatchSelection, maximumBytes: Int) throws -> StoredBatch {
        var batch = StoredBatch()
        let statement: SQLiteStatement
        var wanted: Set<Int64>?
        switch selection {
        case .oldest(let limit):
            statement = try database.prepare("SELECT id, message_id, body FROM events ORDER BY id LIMIT ?")
            try statement.bind([.integer(Int64(max(1, limit)))])
        case .rows(let rows):
            statement = try database.prepare(
                "SELECT id, message_id, body FROM events WHERE id BETWEEN ? AND ? ORDER BY id")
            try statement.bind([.integer(rows.min() ?? 0), .integer(rows.max() ?? -1)])
            wanted = Set(rows)
        }
        var total = 0
        while try statement.step() {
            let row = statement.int64(at: 0)
            if let wanted, !wanted.contains(row) { continue }
            let body = statement.blob(at: 2)
            if !batch.rowIds.isEmpty && total + body.count > maximumBytes { break }
            total += body.count
            batch.rowIds.append(row)
            batch.messageIds.append(statement.text(at: 1) ?? "")
            batch.bodies.append(body)
        }
        batch.unreportedEvictions = try unreportedEvictions
        protectedUpTo = max(protectedUpTo, batch.rowIds.last ?? 0)
        return batch
    }

    /// Applies the response policy's decisions (inside ``write(_:)``).
    func apply(_ effects: [DeliveryEffect], now: Timestamp) throws -> [(messageId: String, reason: String)] {
        var deadLettered: [(String, String)] = []
        for effect in effects {
            switch effect {
            case .delete(let rows):
                for row in rows { try delete(row) }
            case .deadLetter(let row, let reason):
                let moved = try database.prepare(
                    """
                    INSERT INTO dead_letters(message_id, reason, failed_at, body)
                    SELECT message_id, ?, ?, body FROM events WHERE id = ? RETURNING message_id
                    """)
                try moved.bind([.text(reason), .integer(now.millisecondsSince1970), .integer(row)])
                if try moved.step() { deadLettered.append((moved.text(at: 0) ?? "", reason)) }
                moved.reset()
                try delete(row)
            }
        }
        if !deadLettered.isEmpty {
            try database.prepare(
                "DELETE FROM dead_letters WHERE id <= (SELECT max(id) FROM dead_letters) - ?"
            ).run([.integer(Int64(limits.maximumDeadLetters))])
        }
        return deadLettered
    }

    private func delete(_ row: Int64) throws {
        try deleteStatement.bind([.integer(row)])
        if try deleteStatement.step() {
            count -= 1
            bytes -= Int(deleteStatement.int64(at: 0))
        }
        deleteStatement.reset()
    }

    /// Removes every queued event (opt-out).
    func removeAllEvents() throws {
        try database.execute("DELETE FROM events")
        try setState("unreported_evictions", "0")
        count = 0
        bytes = 0
    }

    /// A persisted state value.
    func state(_ key: String) throws -> String? {
        let statement = try database.prepare("SELECT value FROM state WHERE key = ?")
        try statement.bind([.text(key)])
        return try statement.step() ? statement.text(at: 0) : nil
    }

    /// Persists a state value (`nil` removes it).
    func setState(_ key: String, _ value: String?) throws {
        if let value {
            try database.prepare("INSERT OR REPLACE INTO state(key, value) VALUES (?, ?)").run([
                .text(key), .text(value),
            ])
        } else {
            try database.prepare("DELETE FROM state WHERE key = ?").run([.text(key)])
        }
    }

    /// The dead letters, oldest first: message id, reason and stored JSON.
    func deadLetters() throws -> [(messageId: String, reason: String, body: [UInt8])] {
        try database.prepare("SELECT message_id, reason, body FROM dead_letters ORDER BY id").rows {
            ($0.text(at: 0) ?? "", $0.text(at: 1) ?? "", $0.blob(at: 2))
        }
    }
}
