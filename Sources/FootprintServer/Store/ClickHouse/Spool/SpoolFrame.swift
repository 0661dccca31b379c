/// The framing of a spool segment (``ClickHouseSpool``): records one after another, each its
/// payload's length (`UInt32`, little-endian), the payload's ``CRC32`` (`UInt32`, little-endian)
/// and the payload.
///
/// A crash can cut the last record short, or leave a tail of bytes never written; such a record
/// was never acknowledged. ``records(in:)`` stops at the first record whose length runs past the
/// end or whose checksum does not match, and everything from there is dropped.
enum SpoolFrame {
    /// The bytes before each payload: its length and its checksum.
    static let headerBytes = 8

    /// The largest payload a frame holds (a length above it is damage, not a record).
    static let maximumPayloadBytes = 1 << 30

    /// Appends `payload`, framed, to `bytes`.
    static func append(_ payload: [UInt8], to bytes: inout [UInt8]) {
        precondition(payload.count <= maximumPayloadBytes, "a spool record holds at most 1 GiB")
        appendWord(UInt32(payload.count), to: &bytes)
        appendWord(CRC32.checksum(payload), to: &bytes)
        bytes.append(contentsOf: payload)
    }

    /// `payload` framed.
    static func frame(_ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerBytes + payload.count)
        append(payload, to: &bytes)
        return bytes
    }

    /// The whole records at the start of `bytes`, and the bytes they take: a torn or damaged
    /// record and everything after it are left out.
    static func records(in bytes: [UInt8]) -> (payloads: [[UInt8]], validBytes: Int) {
        var payloads: [[UInt8]] = []
        var offset = 0
        while bytes.count - offset >= headerBytes {
            let length = Int(word(in: bytes, at: offset))
            let checksum = word(in: bytes, at: offset + 4)
            let start = offset + headerBytes
            guard length <= maximumPayloadBytes, length <= bytes.count - start else { break }
            let payload = Array(bytes[start..<start + length])
            guard CRC32.checksum(payload) == checksum else { break }
            payloads.append(payload)
            offset = start + length
        }
        return (payloads, offset)
    }

    private static func appendWord(_ value: UInt32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func word(in bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }
}
