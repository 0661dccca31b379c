/// Writes a ``JSONValue`` as compact JSON text (UTF-8), object keys sorted so equal values give
/// equal bytes.
///
/// A non-finite number is written as `null`; callers that must refuse such values check
/// ``JSONValue/firstInvalidNumberPath(prefix:)`` first.
public enum JSONWriter {
    /// The UTF-8 bytes of `value`.
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(value, into: &output)
        return output
    }

    /// The JSON text of `value`.
    public static func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// Appends the JSON text of `value` to `output`.
    public static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(true): output.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
        case .bool(false): output.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
        case .int(let number): output.append(contentsOf: String(number).utf8)
        case .double(let number): writeDouble(number, into: &output)
        case .string(let text): writeString(text, into: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (position, item) in items.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                write(item, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            writeObject(members, into: &output)
        }
    }

    /// Appends the JSON text of an object to `output`, keys sorted.
    public static func writeObject(_ members: JSONObject, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        var first = true
        for (key, value) in members.sorted(by: { $0.key < $1.key }) {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            writeString(key, into: &output)
            output.append(UInt8(ascii: ":"))
            write(value, into: &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    /// Appends a JSON number to `output` (`null` for NaN and infinities).
    public static func writeDouble(_ number: Double, into output: inout [UInt8]) {
        guard number.isFinite else {
            output.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
            return
        }
        if number.rounded() == number, abs(number) < 1e15 {
            output.append(contentsOf: String(Int64(number)).utf8)
            output.append(contentsOf: [UInt8(ascii: "."), UInt8(ascii: "0")])
        } else {
            output.append(contentsOf: "\(number)".utf8)
        }
    }

    /// Appends a JSON string literal to `output`, escaping what JSON requires.
    public static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Fast path: most strings need no escaping and are copied in one go.
        let copied = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return false }
            output.append(contentsOf: bytes)
            return true
        }
        if copied == true {
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): output.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: [
                    0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
                ])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
