/// Unsigned LEB128 varints, the stores' compact integer form: seven bits a byte, low bits first,
/// the high bit set on every byte but the last.
enum Varint {
    /// Appends `value`.
    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var number = value
        while number >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: number) | 0x80)
            number >>= 7
        }
        bytes.append(UInt8(number))
    }

    /// Appends a signed value zigzag-encoded (0, -1, 1, -2, … as 0, 1, 2, 3, …), so that a small
    /// negative value takes few bytes.
    static func append(signed value: Int64, to bytes: inout [UInt8]) {
        append(UInt64(bitPattern: (value << 1) ^ (value >> 63)), to: &bytes)
    }

    /// Reads varints from bytes that are input like any other: every read checks its bounds, and
    /// only the shortest form of a number is accepted.
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        private(set) var offset = 0

        init(_ bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        /// Whether every byte has been read.
        var isAtEnd: Bool { offset == bytes.count }

        /// The next varint, or `nil` when the bytes end first, it is longer than 64 bits, or it
        /// is padded (a last byte of 0 after others).
        mutating func next() -> UInt64? {
            var value: UInt64 = 0
            for shift in stride(from: UInt64(0), to: 64, by: 7) {
                guard offset < bytes.count else { return nil }
                let byte = bytes[offset]
                offset += 1
                let bits = UInt64(byte & 0x7F)
                // The tenth byte holds bit 63 only.
                guard shift < 63 || bits <= 1 else { return nil }
                value |= bits << shift
                if byte & 0x80 == 0 { return byte != 0 || shift == 0 ? value : nil }
            }
            return nil
        }

        /// The next zigzag-encoded signed varint (``Varint/append(signed:to:)``).
        mutating func nextSigned() -> Int64? {
            guard let value = next() else { return nil }
            return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
        }

        /// The next `count` bytes, or `nil` when fewer are left.
        mutating func take(_ count: UInt64) -> UnsafeRawBufferPointer? {
            guard count <= UInt64(bytes.count - offset) else { return nil }
            let taken = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(count)])
            offset += Int(count)
            return taken
        }
    }
}
