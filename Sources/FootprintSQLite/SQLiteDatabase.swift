import CSQLite

/// One connection to an SQLite database file.
///
/// Not thread-safe: the owner (an actor or a serial queue) uses it from one context at a time.
/// Every call checks its result code and throws ``SQLiteError``.
public final class SQLiteDatabase {
    /// How the connection is opened.
    public struct Options: Sendable {
        /// Open read-only. Default `false`.
        public var readOnly = false
        /// Use write-ahead logging, so readers never block the writer. Default `true`.
        public var writeAheadLog = true
        /// `PRAGMA synchronous`: `NORMAL` (default; with WAL a power loss can drop the last
        /// commits but never corrupts) or `FULL` (each commit is fsynced).
        public var synchronous = "NORMAL"
        /// How long to wait on a lock held by another connection, in milliseconds. Default 5,000.
        public var busyTimeoutMilliseconds: Int32 = 5000
        /// The most memory the connection's page cache may take, in KiB (`PRAGMA cache_size`
        /// of minus this); `nil` (default) keeps SQLite's own, 2 MiB. The cache grows only as
        /// pages are read.
        public var cacheKibibytes: Int?
        /// `PRAGMA wal_autocheckpoint` of a writable WAL connection: its commit copies the log
        /// into the file once the log holds this many pages; `nil` (default) keeps SQLite's
        /// 1,000. A page changed by several commits before then is copied once. The log file is
        /// also cut back to this many pages when it starts over (`PRAGMA journal_size_limit`):
        /// one commit larger than that grows it, and it would otherwise keep that size.
        public var checkpointPages: Int?
        /// Creates the default options.
        public init() {}
    }

    let handle: OpaquePointer
    /// The file this connection opened.
    public let path: String

    /// Opens (creating when allowed) the database at `path`; `":memory:"` for a private one.
    public init(path: String, options: Options = Options()) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags =
            (options.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteError(code: status, message: "cannot open \(path): \(message)")
        }
        self.handle = handle
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, options.busyTimeoutMilliseconds)
        if let kibibytes = options.cacheKibibytes { try execute("PRAGMA cache_size=-\(max(64, kibibytes))") }
        if !options.readOnly {
            if options.writeAheadLog { try execute("PRAGMA journal_mode=WAL") }
            if options.writeAheadLog, let pages = options.checkpointPages {
                try execute("PRAGMA wal_autocheckpoint=\(max(1, pages))")
                let statement = try prepare("PRAGMA page_size")
                let pageBytes = try statement.step() ? statement.int64(at: 0) : 4096
                statement.reset()
                let (limit, overflow) = Int64(max(1, pages)).multipliedReportingOverflow(by: pageBytes)
                try execute("PRAGMA journal_size_limit=\(overflow ? Int64.max : limit)")
            }
            try execute("PRAGMA synchronous=\(options.synchronous)")
        }
        // Fail fast on a file that is not a database or is damaged in its header.
        try execute("SELECT count(*) FROM sqlite_master")
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if status != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(errorMessage)
            throw SQLiteError(
                code: sqlite3_extended_errcode(handle), message: "\(message) in: \(sql.prefix(200))")
        }
    }

    /// Compiles one SQL statement.
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(database: self, sql: sql)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The rowid of the last inserted row.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The number of rows the last statement changed.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// `PRAGMA user_version`: the schema version migrations have reached.
    public var userVersion: Int {
        get throws(SQLiteError) {
            let statement = try prepare("PRAGMA user_version")
            _ = try statement.step()
            return Int(statement.int64(at: 0))
        }
    }

    /// Sets `PRAGMA user_version`.
    public func setUserVersion(_ version: Int) throws(SQLiteError) {
        try execute("PRAGMA user_version=\(version)")
    }

    /// Applies, in order, each migration past the stored `user_version`, each in its own
    /// transaction together with the version bump.
    /// - Parameter migrations: SQL scripts; migration `i` brings the schema to version `i + 1`.
    public func migrate(_ migrations: [String]) throws {
        let current = try userVersion
        guard current < migrations.count else { return }
        for version in current..<migrations.count {
            try transaction {
                try execute(migrations[version])
                try setUserVersion(version + 1)
            }
        }
    }

    /// Writes the WAL into the main file and truncates it.
    public func checkpoint() throws(SQLiteError) {
        try execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func check(_ status: Int32, _ context: @autoclosure () -> String) throws(SQLiteError) {
        guard status == SQLITE_OK || status == SQLITE_ROW || status == SQLITE_DONE else {
            throw SQLiteError(
                code: sqlite3_extended_errcode(handle), message: "\(lastErrorMessage) in: \(context())")
        }
    }
}
