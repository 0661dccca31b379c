import CSQLite

/// A compiled SQL statement. Bind parameters (1-based), ``step()`` through rows, read columns
/// (0-based), ``reset()`` to run it again. Finalized when released.
public final class SQLiteStatement {
    let handle: OpaquePointer
    /// The connection that compiled this statement; kept alive while the statement lives.
    public let database: SQLiteDatabase
    /// The SQL text.
    public let sql: String

    init(database: SQLiteDatabase, sql: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let status = sqlite3_prepare_v2(database.handle, sql, -1, &handle, nil)
        guard status == SQLITE_OK, let handle else {
            throw SQLiteError(
                code: sqlite3_extended_errcode(database.handle),
                message: "\(database.lastErrorMessage) in: \(sql.prefix(200))")
        }
        self.handle = handle
        self.database = database
        self.sql = sql
        parameterCount = Int(sqlite3_bind_parameter_count(handle))
    }

    /// The largest parameter index in the SQL.
    private let parameterCount: Int

    deinit {
        sqlite3_finalize(handle)
    }

    /// Advances to the next row. Returns `true` while there is a row to read.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(handle)
        if status == SQLITE_ROW { return true }
        if status == SQLITE_DONE { return false }
        sqlite3_reset(handle)
        throw SQLiteError(
            code: sqlite3_extended_errcode(database.handle),
            message: "\(database.lastErrorMessage) in: \(sql.prefix(200))")
    }

    /// Resets the statement to run again and clears its bindings.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values` to parameters 1, 2, ... in order, after a ``reset()``: parameters past
    /// the values are NULL.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        // Clearing is only needed for parameters the values do not bind again.
        if values.count < parameterCount { sqlite3_clear_bindings(handle) }
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one value to the 1-based parameter `index`.
    public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let status: Int32
        switch value {
        case .null: status = sqlite3_bind_null(handle, index)
        case .integer(let number): status = sqlite3_bind_int64(handle, index, number)
        case .real(let number): status = sqlite3_bind_double(handle, index, number)
        case .text(let text): status = Self.bindText(text, to: handle, at: index)
        case .blob(let bytes):
            status = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), csqlite_transient())
            }
        }
        try database.check(status, sql)
    }

    /// Binds `text` with its UTF-8 byte count, so that a NUL inside it is part of the value (a
    /// length of -1 would end the text at the first NUL).
    private static func bindText(_ text: String, to handle: OpaquePointer, at index: Int32) -> Int32 {
        // An empty buffer may have no address, and SQLite binds a null pointer as NULL, not ''.
        if text.isEmpty { return sqlite3_bind_text(handle, index, "", 0, csqlite_transient()) }
        var text = text
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { characters in
                sqlite3_bind_text64(
                    handle, index, characters.baseAddress, sqlite3_uint64(characters.count),
                    csqlite_transient(),
                    UInt8(SQLITE_UTF8))
            }
        }
    }

    /// Runs the statement with `values` bound, ignoring any rows.
    public func run(_ values: [SQLiteValue] = []) throws(SQLiteError) {
        try bind(values)
        while try step() {}
    }

    /// Runs the statement with `values` bound and collects each row through `read`.
    public func rows<T>(_ values: [SQLiteValue] = [], _ read: (SQLiteStatement) throws -> T) throws -> [T] {
        try bind(values)
        var result: [T] = []
        while try step() { result.append(try read(self)) }
        return result
    }

    /// Whether column `index` of the current row is NULL.
    public func isNull(at index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// Whether column `index` of the current row holds a BLOB (not text, a number or NULL).
    public func isBlob(at index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_BLOB }

    /// Column `index` of the current row as an integer (0 for NULL).
    public func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` of the current row as a double (0 for NULL).
    public func double(at index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// Column `index` of the current row as text, or `nil` for NULL; all of its bytes, NULs
    /// included.
    public func text(at index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Column `index` of the current row as bytes (empty for NULL).
    public func blob(at index: Int32) -> [UInt8] {
        withBlob(at: index) { Array($0) }
    }

    /// Calls `body` with column `index` of the current row as bytes (empty for NULL), without
    /// copying them: the bytes are valid only during the call.
    public func withBlob<Result>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows
        -> Result
    {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let pointer = sqlite3_column_blob(handle, index) else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

/// A value bound to an SQL parameter.
public enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLiteValue {
    /// `.text(value)`, or `.null` when `value` is `nil`.
    public static func text(_ value: String?) -> SQLiteValue { value.map(SQLiteValue.text) ?? .null }
}
