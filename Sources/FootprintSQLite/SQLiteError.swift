import CSQLite

/// A failed SQLite call: the SQLite result code and its message.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended SQLite result code (`SQLITE_CORRUPT`, `SQLITE_CONSTRAINT_UNIQUE`, ...).
    public var code: Int32
    /// SQLite's message and the statement that failed, when there was one.
    public var message: String

    /// Creates an error.
    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The primary result code (the low byte of ``code``).
    public var primaryCode: Int32 { code & 0xFF }

    /// Whether the database file is damaged or is not a database: move it aside and start over.
    public var isCorruption: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    /// Whether a uniqueness or other constraint was violated.
    public var isConstraint: Bool { primaryCode == SQLITE_CONSTRAINT }

    /// Whether the failure says nothing about the file itself (locked by another connection,
    /// out of memory, disk full), so that a file that failed this way must not be replaced.
    public var isTransient: Bool {
        [SQLITE_BUSY, SQLITE_LOCKED, SQLITE_NOMEM, SQLITE_FULL].contains(primaryCode)
    }

    /// Whether the disk is full.
    public var isFull: Bool { primaryCode == SQLITE_FULL }

    public var description: String { "SQLite error \(code): \(message)" }
}
