/// SQL string literals, the way values travel into the store's queries (18.16 has no bound query
/// parameters), and the fields of ClickHouse's `TabSeparated` answers. Rows go in as `RowBinary`
/// (``ClickHouseRowBinary``).
enum ClickHouseFormat {
    /// `text` as a quoted SQL string literal: backslash, quote and control characters escaped.
    static func literal(_ text: String) -> String {
        "'" + escaped(text) + "'"
    }

    /// `text` with backslash, quote, tab, newline, carriage return and NUL escaped by a backslash.
    private static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A `TabSeparated` output field as text: escapes undone; `nil` for `\N`.
    static func text(_ field: Substring) -> String? {
        if field == "\\N" { return nil }
        guard field.utf8.contains(92) else { return String(field) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(field.utf8.count)
        var escaped = false
        for byte in field.utf8 {
            if escaped {
                switch byte {
                case UInt8(ascii: "n"): bytes.append(10)
                case UInt8(ascii: "t"): bytes.append(9)
                case UInt8(ascii: "r"): bytes.append(13)
                case UInt8(ascii: "0"): bytes.append(0)
                case UInt8(ascii: "b"): bytes.append(8)
                case UInt8(ascii: "f"): bytes.append(12)
                default: bytes.append(byte)
                }
                escaped = false
            } else if byte == 92 {
                escaped = true
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A `TabSeparated` output field as a whole number (`0` when it is not one).
    static func int64(_ field: Substring) -> Int64 {
        Int64(field) ?? Int64(Int(saturating: Double(field) ?? 0))
    }
}
