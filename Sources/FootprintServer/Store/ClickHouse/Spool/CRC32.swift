/// CRC-32 (ISO-HDLC, the checksum of zlib, gzip and PNG: polynomial 0xEDB88320 reflected,
/// initial value and final XOR 0xFFFFFFFF). The check value of `"123456789"` is 0xCBF43926.
enum CRC32 {
    /// The checksum of `bytes`.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// The checksum of each byte value, a byte at a time.
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1
        }
        return crc
    }
}
