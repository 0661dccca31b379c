import CLibPQ
import Foundation

/// A value bound to a query parameter: integers as text (`int8`), strings and bytes as `bytea`
/// in binary, each with its byte count, so that any byte (NUL too) is bound exactly and nothing
/// a client sends is ever part of the SQL text.
enum PostgresValue: Sendable, Hashable {
    /// A 64-bit integer (`int8`).
    case integer(Int64)
    /// A string, stored as its UTF-8 bytes (`bytea`).
    case text(String)
    /// Bytes (`bytea`).
    case bytes([UInt8])
    /// SQL `NULL`.
    case null
}

/// What a PostgreSQL call failed with.
struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The SQLSTATE (`23505` for a unique violation), empty when the server sent none.
    var sqlState: String
    /// libpq's message.
    var message: String
    /// Whether the connection is gone (the server stopped, restarted or cannot be reached):
    /// the work may succeed on a new connection later.
    var connectionLost: Bool

    var description: String { sqlState.isEmpty ? message : "\(message) (SQLSTATE \(sqlState))" }

    /// Whether the failure says "try again later": the connection is gone, or the server is
    /// shutting down, starting, out of resources, cancelled the statement (timeout), or broke a serialization or deadlock.
    var isTransient: Bool {
        connectionLost || sqlState.hasPrefix("08") || sqlState.hasPrefix("53") || sqlState.hasPrefix("57")
            || sqlState == "40001" || sqlState == "40P01"
    }

    /// A unique constraint was violated.
    var isUniqueViolation: Bool { sqlState == "23505" }

    /// The server's failure as the store reports it: `unavailable` (retry later) when transient,
    /// else `storage`.
    var serverError: ServerError {
        ServerError(
            code: isTransient ? .unavailable : .storage,
            message: isTransient
                ? "PostgreSQL is unavailable, retry later: \(description)"
                : "PostgreSQL failed: \(description)")
    }
}

/// One libpq connection. Not thread-safe: ``PostgresPool`` hands it to one caller at a time.
final class PostgresConnection {
    private var handle: OpaquePointer?

    /// Connects with libpq keywords and values (`host`, `port`, `dbname`, `user`, `password`,
    /// `connect_timeout`, …), never a connection string built from them.
    init(parameters: [(String, String)]) throws(PostgresError) {
        handle = Self.connect(parameters)
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let message = handle.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
            if let handle { PQfinish(handle) }
            self.handle = nil
            throw PostgresError(sqlState: "", message: Self.trimmed(message), connectionLost: true)
        }
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Whether libpq still counts the connection as good.
    var isHealthy: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    /// Runs one statement with parameters `$1`, `$2`, …
    /// - Returns: the rows `read` makes of the result, in order.
    @discardableResult
    func query<Row>(
        _ sql: String, _ values: [PostgresValue] = [], _ read: (PostgresRow) throws -> Row
    ) throws -> [Row] {
        let result = try execute(sql, values)
        defer { PQclear(result) }
        let count = PQntuples(result)
        var rows: [Row] = []
        rows.reserveCapacity(Int(count))
        for index in 0..<count {
            rows.append(try read(PostgresRow(result: result, row: index)))
        }
        return rows
    }

    /// Runs one statement that returns no rows.
    /// - Returns: the rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [PostgresValue] = []) throws(PostgresError) -> Int {
        let result = try execute(sql, values)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN")
        do {
            let value = try body()
            try run("COMMIT")
            return value
        } catch {
            if handle.map({ PQstatus($0) == CONNECTION_OK }) == true { _ = try? run("ROLLBACK") }
            throw error
        }
    }

    private func execute(_ sql: String, _ values: [PostgresValue]) throws(PostgresError) -> OpaquePointer {
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError(sqlState: "", message: "the connection is closed", connectionLost: true)
        }
        guard values.count <= 65_535 else {
            throw PostgresError(sqlState: "", message: "more than 65,535 parameters", connectionLost: false)
        }
        // Each parameter's bytes, kept alive until PQexecParams returns.
        var buffers: [[UInt8]] = []
        var types: [Oid] = []
        var formats: [Int32] = []
        for value in values {
            switch value {
            case .integer(let number):
                buffers.append(Array(String(number).utf8))
                types.append(20)
                formats.append(0)
            case .text(let text):
                buffers.append(Array(text.utf8))
                types.append(17)
                formats.append(1)
            case .bytes(let bytes):
                buffers.append(bytes)
                types.append(17)
                formats.append(1)
            case .null:
                buffers.append([])
                types.append(0)
                formats.append(0)
            }
        }
        var lengths: [Int32] = []
        for buffer in buffers {
            guard buffer.count <= Int(Int32.max) else {
                throw PostgresError(sqlState: "", message: "a parameter is too long", connectionLost: false)
            }
            lengths.append(Int32(buffer.count))
        }
        let result = Self.withPointers(buffers, nulls: values.map { $0 == .null }) { pointers in
            PQexecParams(handle, sql, Int32(values.count), types, pointers, lengths, formats, 0)
        }
        guard let result else {
            throw PostgresError(
                sqlState: "", message: Self.trimmed(String(cString: PQerrorMessage(handle))),
                connectionLost: PQstatus(handle) != CONNECTION_OK)
        }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let message = Self.trimmed(String(cString: PQresultErrorMessage(result)))
            PQclear(result)
            throw PostgresError(
                sqlState: state, message: message, connectionLost: PQstatus(handle) != CONNECTION_OK)
        }
        return result
    }

    /// Calls `body` with a C array of pointers to each buffer's bytes (`nil` for `NULL`).
    private static func withPointers<T>(
        _ buffers: [[UInt8]], nulls: [Bool], _ body: ([UnsafePointer<CChar>?]) -> T
    ) -> T {
        // One allocation holds every parameter, each followed by a NUL (text-format values are
        // read up to it; binary ones by their length); pointers into it stay valid during `body`.
        let total = buffers.reduce(0) { $0 + $1.count + 1 }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: max(1, total)) { storage in
            var pointers: [UnsafePointer<CChar>?] = []
            var offset = 0
            for (index, buffer) in buffers.enumerated() {
                let start = storage.baseAddress! + offset
                buffer.withUnsafeBytes { bytes in
                    if let base = bytes.baseAddress, !bytes.isEmpty {
                        UnsafeMutableRawPointer(start).copyMemory(from: base, byteCount: bytes.count)
                    }
                }
                start[buffer.count] = 0
                pointers.append(nulls[index] ? nil : UnsafePointer(start))
                offset += buffer.count + 1
            }
            return body(pointers)
        }
    }

    private static func connect(_ parameters: [(String, String)]) -> OpaquePointer? {
        let keywords = parameters.map { strdup($0.0) } + [nil]
        let values = parameters.map { strdup($0.1) } + [nil]
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        return keywords.map { UnsafePointer($0) }.withUnsafeBufferPointer { keywordPointers in
            values.map { UnsafePointer($0) }.withUnsafeBufferPointer { valuePointers in
                PQconnectdbParams(keywordPointers.baseAddress, valuePointers.baseAddress, 0)
            }
        }
    }

    private static func trimmed(_ message: String) -> String {
        String(message.trimmingCharacters(in: .whitespacesAndNewlines).prefix(1_000))
    }
}

/// One row of a result, read by column index; an index out of range or a value of another
/// type throws rather than reading past the result.
struct PostgresRow {
    fileprivate let result: OpaquePointer
    fileprivate let row: Int32

    /// Whether the column is `NULL`.
    func isNull(at column: Int) throws(PostgresError) -> Bool {
        try PQgetisnull(result, row, checked(column)) == 1
    }

    /// An `int8`, `int4` or `int2` column (`NULL` throws).
    func int64(at column: Int) throws(PostgresError) -> Int64 {
        let bytes = try raw(at: column)
        guard let bytes, let value = Int64(String(decoding: bytes, as: UTF8.self)) else {
            throw PostgresError(
                sqlState: "", message: "column \(column) is not an integer", connectionLost: false)
        }
        return value
    }

    /// An integer column or `nil` when `NULL`.
    func optionalInt64(at column: Int) throws(PostgresError) -> Int64? {
        try isNull(at: column) ? nil : int64(at: column)
    }

    /// A `bytea` column as bytes, `nil` when `NULL`.
    func bytes(at column: Int) throws(PostgresError) -> [UInt8]? {
        guard let text = try raw(at: column) else { return nil }
        guard PQftype(result, Int32(column)) == 17 else { return text }
        guard let decoded = Self.hexDecoded(text) else {
            throw PostgresError(
                sqlState: "", message: "column \(column) is not hex bytea", connectionLost: false)
        }
        return decoded
    }

    /// A string column (`bytea` holding UTF-8, or `text`), `nil` when `NULL`.
    func text(at column: Int) throws(PostgresError) -> String? {
        try bytes(at: column).map { String(decoding: $0, as: UTF8.self) }
    }

    private func checked(_ column: Int) throws(PostgresError) -> Int32 {
        guard column >= 0, column < Int(PQnfields(result)) else {
            throw PostgresError(
                sqlState: "", message: "column \(column) is past the result's \(PQnfields(result))",
                connectionLost: false)
        }
        return Int32(column)
    }

    private func raw(at column: Int) throws(PostgresError) -> [UInt8]? {
        let index = try checked(column)
        guard PQgetisnull(result, row, index) == 0, let value = PQgetvalue(result, row, index) else {
            return nil
        }
        let length = Int(PQgetlength(result, row, index))
        return value.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// `\x` followed by hexadecimal digits (PostgreSQL's `bytea_output = hex`).
    private static func hexDecoded(_ text: [UInt8]) -> [UInt8]? {
        guard text.count >= 2, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x"),
            text.count % 2 == 0
        else { return nil }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((text.count - 2) / 2)
        var index = 2
        while index < text.count {
            guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
