import FootprintSQLite

/// The read connections of one SQLite file: opened when none is idle, a few kept for the next
/// reads. Apart from the store, so that its write-key cache (``MetadataCache``) reads through it.
final class SQLiteReaders: Sendable {
    /// The database file.
    let path: String
    /// The most idle connections kept open.
    let keptIdle: Int
    private let idle = LockedValue<[SQLiteDatabase]>([])

    /// Creates an empty pool.
    init(path: String, keptIdle: Int) {
        self.path = path
        self.keptIdle = keptIdle
    }

    /// Keeps an open connection for the next read.
    func add(_ database: SQLiteDatabase) {
        idle.withLock { $0.append(database) }
    }

    /// Runs `body` with an idle connection, or a new read-only one.
    /// - Throws: what `body` throws as a ``ServerError``, any other failure as `storage`.
    func read<T>(_ body: (SQLiteDatabase) throws -> T) throws(ServerError) -> T {
        do {
            let database = try idle.withLock { $0.popLast() } ?? open()
            let result = try body(database)
            idle.withLock { pool in
                if pool.count < keptIdle { pool.append(database) }
            }
            return result
        } catch let error as ServerError {
            throw error
        } catch {
            throw ServerError(code: .storage, message: "cannot read \(path): \(error)")
        }
    }

    /// Closes the idle connections.
    func close() {
        idle.withLock { $0.removeAll() }
    }

    private func open() throws(SQLiteError) -> SQLiteDatabase {
        var options = SQLiteDatabase.Options()
        options.readOnly = true
        return try SQLiteDatabase(path: path, options: options)
    }
}
