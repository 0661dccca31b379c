/// Standard Base64 (RFC 4648 §4, with `=` padding), for a snapshot's image bytes: the wire
/// module reads and writes it without Foundation.
public enum Base64 {
    private static let alphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The Base64 text of `bytes`, padded with `=`.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index < input.count {
            let first = input[index]
            let second = index + 1 < input.count ? input[index + 1] : 0
            let third = index + 2 < input.count ? input[index + 2] : 0
            output.append(alphabet[Int(first >> 2)])
            output.append(alphabet[Int((first & 0x03) << 4 | second >> 4)])
            output.append(
                index + 1 < input.count ? alphabet[Int((second & 0x0F) << 2 | third >> 6)] : UInt8(ascii: "=")
            )
            output.append(index + 2 < input.count ? alphabet[Int(third & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of Base64 `text`, or `nil` when it is not canonical Base64: a length that is
    /// not a multiple of 4, a character outside the alphabet, padding anywhere but at the end,
    /// or pad bits that are not zero. No whitespace is allowed.
    public static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            let padding =
                isLast
                ? (input[index + 3] == UInt8(ascii: "=")
                    ? (input[index + 2] == UInt8(ascii: "=") ? 2 : 1) : 0) : 0
            var group: UInt32 = 0
            for offset in 0..<4 {
                let byte = input[index + offset]
                let value: UInt8
                if offset >= 4 - padding {
                    value = 0
                } else {
                    guard let decoded = sextet(byte) else { return nil }
                    value = decoded
                }
                group = group << 6 | UInt32(value)
            }
            output.append(UInt8(truncatingIfNeeded: group >> 16))
            if padding < 2 { output.append(UInt8(truncatingIfNeeded: group >> 8)) }
            if padding < 1 { output.append(UInt8(truncatingIfNeeded: group)) }
            // Canonical form: the bits the padding drops must be zero.
            if padding == 2, group & 0xFFFF != 0 { return nil }
            if padding == 1, group & 0xFF != 0 { return nil }
            index += 4
        }
        return output
    }

    /// How many bytes Base64 text of `length` characters decodes to at most.
    public static func maximumDecodedCount(ofLength length: Int) -> Int { length / 4 * 3 }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
