import CZlib

/// CRC-32 (ISO-HDLC, the checksum of zlib, gzip and PNG: polynomial 0xEDB88320 reflected,
/// initial value and final XOR 0xFFFFFFFF), computed by zlib's `crc32`. The check value of
/// `"123456789"` is 0xCBF43926.
enum CRC32 {
    /// The checksum of `bytes` (at most ``SpoolFrame/maximumPayloadBytes``, 1 GiB).
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        precondition(bytes.count <= Int(UInt32.max), "zlib's crc32 takes a 32-bit length")
        return bytes.withUnsafeBufferPointer { buffer in
            UInt32(truncatingIfNeeded: crc32(0, buffer.baseAddress, uInt(buffer.count)))
        }
    }
}
