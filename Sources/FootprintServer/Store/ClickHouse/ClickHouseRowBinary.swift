/// Rows in ClickHouse's `RowBinary` format, the form the store's INSERTs send: each row's values
/// one after another in their columns' order, with no separators, names or types.
///
/// The encodings of the column types the schema uses (``ClickHouseSQL/eventColumns`` and the
/// companion tables), which ClickHouse 18.16 and current releases read alike:
/// - `UInt8`, `Int64`, `UInt64`: the value's bytes, little-endian;
/// - `String`: its length in bytes as an unsigned LEB128 varint, then the UTF-8 bytes (any byte
///   may appear; nothing is escaped);
/// - `Nullable(T)`: one byte, 1 for NULL (and nothing follows), 0 followed by the `T`;
/// - `Array(T)`: the element count as a varint, then each element.
///
/// The schema stores times as `Int64` milliseconds and days as `Int64` day numbers, so no
/// `Date` or `DateTime` column is written.
struct ClickHouseRowBinary: Sendable, Equatable {
    /// The encoded rows so far.
    private(set) var bytes: [UInt8] = []

    /// Creates an empty buffer of at least `capacity` bytes.
    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Whether no value was written.
    var isEmpty: Bool { bytes.isEmpty }

    /// An unsigned LEB128 varint: seven bits a byte, low bits first, the high bit set on every
    /// byte but the last.
    mutating func appendVarint(_ value: UInt64) {
        Varint.append(value, to: &bytes)
    }

    /// A `UInt8`.
    mutating func append(_ value: UInt8) {
        bytes.append(value)
    }

    /// A `UInt64`, little-endian.
    mutating func append(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// An `Int64`, little-endian (two's complement).
    mutating func append(_ value: Int64) {
        append(UInt64(bitPattern: value))
    }

    /// A `String`: its UTF-8 length as a varint, then its bytes.
    mutating func append(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// A `Nullable(String)`.
    mutating func append(_ value: String?) {
        guard let value else { return bytes.append(1) }
        bytes.append(0)
        append(value)
    }

    /// A `Nullable(Int64)`.
    mutating func append(_ value: Int64?) {
        guard let value else { return bytes.append(1) }
        bytes.append(0)
        append(value)
    }

    /// An `Array(String)`.
    mutating func append(_ values: [String]) {
        appendVarint(UInt64(values.count))
        for value in values { append(value) }
    }

    /// A `String` of raw bytes: their count as a varint, then the bytes.
    mutating func appendBytes(_ values: [UInt8]) {
        appendVarint(UInt64(values.count))
        bytes.append(contentsOf: values)
    }

    /// Bytes already encoded (rows another buffer wrote), as they are.
    mutating func appendRaw(_ values: some Collection<UInt8>) {
        bytes.append(contentsOf: values)
    }

    /// An `Array(UInt8)`.
    mutating func append(_ values: [UInt8]) {
        appendBytes(values)
    }
}
