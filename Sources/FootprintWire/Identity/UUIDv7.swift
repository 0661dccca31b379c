/// Makes RFC 9562 version 7 UUIDs: 48 bits of Unix milliseconds, then 74 random bits.
///
/// They sort by creation time, which keeps database indexes compact, and are made on the
/// device when an event is created so that a retried event keeps its `messageId`.
public enum UUIDv7 {
    /// A new UUIDv7 string (lower-case, 36 characters) for the instant `time`.
    public static func make(at time: Timestamp) -> String {
        var generator = SystemRandomNumberGenerator()
        return make(at: time, using: &generator)
    }

    /// A new UUIDv7 string for `time`, drawing its random bits from `generator`.
    public static func make(at time: Timestamp, using generator: inout some RandomNumberGenerator) -> String {
        let milliseconds = UInt64(bitPattern: time.millisecondsSince1970) & 0xFFFF_FFFF_FFFF
        let random = generator.next() as UInt64
        let high = (milliseconds << 16) | 0x7000 | (random & 0x0FFF)
        let low = ((generator.next() as UInt64) & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return format(high: high, low: low)
    }

    /// The creation time stored in a UUIDv7 string, or `nil` if it is not one.
    public static func timestamp(of uuid: String) -> Timestamp? {
        let hex = uuid.utf8.filter { $0 != UInt8(ascii: "-") }
        guard uuid.utf8.count == 36, hex.count == 32 else { return nil }
        var milliseconds: Int64 = 0
        for byte in hex.prefix(12) {
            guard let digit = hexValue(byte) else { return nil }
            milliseconds = milliseconds << 4 | Int64(digit)
        }
        guard hexValue(hex[12]) == 7 else { return nil }
        return Timestamp(millisecondsSince1970: milliseconds)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - 0x30
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - 0x61 + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - 0x41 + 10
        default: return nil
        }
    }

    static func format(high: UInt64, low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            var offset = 0
            for index in 0..<32 {
                if index == 8 || index == 12 || index == 16 || index == 20 {
                    buffer[offset] = UInt8(ascii: "-")
                    offset += 1
                }
                let word = index < 16 ? high : low
                let digit = UInt8(truncatingIfNeeded: (word >> UInt64(60 - (index % 16) * 4)) & 0xF)
                buffer[offset] = digit < 10 ? 0x30 + digit : 0x57 + digit
                offset += 1
            }
            return offset
        }
    }
}
