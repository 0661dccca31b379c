/// An error found while parsing JSON text: what is wrong and where (line and column, 1-based).
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in words.
    public var reason: String
    /// The byte offset of the fault, from 0.
    public var offset: Int
    /// The line of the fault, from 1.
    public var line: Int
    /// The column (in bytes) of the fault, from 1.
    public var column: Int

    public var description: String { "\(reason) at line \(line), column \(column)" }
}

/// A strict RFC 8259 JSON parser that reads UTF-8 bytes into a ``JSONValue``.
///
/// It rejects invalid UTF-8, unpaired surrogates, control characters in strings, trailing
/// content, and nesting deeper than ``maximumDepth``; every error names its line and column.
public struct JSONParser {
    /// The deepest nesting of arrays and objects accepted. Default 64.
    public var maximumDepth: Int

    /// Creates a parser.
    /// - Parameter maximumDepth: the deepest nesting accepted; default 64.
    public init(maximumDepth: Int = 64) {
        self.maximumDepth = maximumDepth
    }

    /// Parses one JSON text.
    public func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let array = Array(bytes)
        // The closure returns its error rather than throwing it: `withUnsafeBufferPointer`
        // rethrows typed errors only from Swift 6.0's standard library on.
        let result = array.withUnsafeBufferPointer { buffer -> Result<JSONValue, JSONParseError> in
            var reader = Reader(bytes: buffer, maximumDepth: maximumDepth)
            do throws(JSONParseError) {
                return .success(try reader.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw error
        }
    }

    /// Parses one JSON text from a string.
    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

extension JSONParser {
    fileprivate struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let maximumDepth: Int
        var index = 0
        var depth = 0
        /// Members of the objects being parsed, innermost last.
        var pending: [(key: String, value: JSONValue)] = []

        init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        mutating func parseDocument() throws(JSONParseError) -> JSONValue {
            skipWhitespace()
            if index == bytes.count { throw error("empty input") }
            let value = try parseValue()
            skipWhitespace()
            if index != bytes.count { throw error("unexpected content after the JSON value") }
            return value
        }

        func error(_ reason: String, at offset: Int? = nil) -> JSONParseError {
            let position = min(offset ?? index, bytes.count)
            var line = 1
            var lineStart = 0
            for i in 0..<position where bytes[i] == UInt8(ascii: "\n") {
                line += 1
                lineStart = i + 1
            }
            return JSONParseError(
                reason: reason, offset: position, line: line, column: position - lineStart + 1)
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        mutating func parseValue() throws(JSONParseError) -> JSONValue {
            guard index < bytes.count else { throw error("unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try parseObject()
            case UInt8(ascii: "["): return try parseArray()
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
            case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
            case UInt8(ascii: "n"): try expectLiteral("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw error("unexpected character '\(Self.printable(bytes[index]))'")
            }
        }

        static func printable(_ byte: UInt8) -> String {
            (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
        }

        mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
            let count = literal.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw error("unexpected end of input") }
            let start = literal.utf8Start
            for offset in 0..<count where bytes[index + offset] != start[offset] {
                throw error("invalid literal")
            }
            index += count
        }

        mutating func enter() throws(JSONParseError) {
            depth += 1
            if depth > maximumDepth { throw error("nesting deeper than \(maximumDepth)") }
        }

        mutating func parseObject() throws(JSONParseError) -> JSONValue {
            try enter()
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object([:])
            }
            // The members wait on a stack shared by every object being parsed, so the
            // dictionary is made once at its final size: growing one hashes every key again.
            let first = pending.count
            while true {
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of input in an object") }
                guard bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
                let key = try parseString()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    throw error("expected ':' after key \"\(key)\"")
                }
                index += 1
                skipWhitespace()
                let value = try parseValue()
                pending.append((key, value))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of input in an object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    depth -= 1
                    var members = [String: JSONValue](minimumCapacity: pending.count - first)
                    for position in first..<pending.count {
                        // A repeated key keeps its last value.
                        members[pending[position].key] = pending[position].value
                    }
                    pending.removeSubrange(first...)
                    return .object(members)
                }
                throw error("expected ',' or '}' in an object")
            }
        }

        mutating func parseArray() throws(JSONParseError) -> JSONValue {
            try enter()
            index += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(items)
            }
            while true {
                skipWhitespace()
                items.append(try parseValue())
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of input in an array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    depth -= 1
                    return .array(items)
                }
                throw error("expected ',' or ']' in an array")
            }
        }

        mutating func parseNumber() throws(JSONParseError) -> JSONValue {
            let start = index
            var isInteger = true
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number", at: start) }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, isDigit(bytes[index]) {
                    throw error("leading zeros are not allowed", at: start)
                }
            } else {
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else {
                    throw error("invalid number", at: start)
                }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
                {
                    index += 1
                }
                guard index < bytes.count, isDigit(bytes[index]) else {
                    throw error("invalid number", at: start)
                }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if isInteger, let value = Int64(text) { return .int(value) }
            guard let value = Double(text), value.isFinite else {
                throw error("number out of range", at: start)
            }
            return .double(value)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

        mutating func parseString() throws(JSONParseError) -> String {
            let quote = index
            index += 1
            // Fast path: no escapes, validate UTF-8 once at the end.
            var scan = index
            while scan < bytes.count {
                let byte = bytes[scan]
                if byte == UInt8(ascii: "\"") {
                    let slice = UnsafeBufferPointer(rebasing: bytes[index..<scan])
                    guard let text = Self.string(validatingUTF8: slice) else {
                        throw error("invalid UTF-8 in a string", at: quote)
                    }
                    index = scan + 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { throw error("control character in a string", at: scan) }
                scan += 1
            }
            guard scan < bytes.count else { throw error("unterminated string", at: quote) }
            var buffer: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[index..<scan]))
            index = scan
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    guard let text = buffer.withUnsafeBufferPointer(Self.string(validatingUTF8:)) else {
                        throw error("invalid UTF-8 in a string", at: quote)
                    }
                    return text
                }
                if byte < 0x20 { throw error("control character in a string") }
                if byte != UInt8(ascii: "\\") {
                    buffer.append(byte)
                    index += 1
                    continue
                }
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): buffer.append(0x22)
                case UInt8(ascii: "\\"): buffer.append(0x5C)
                case UInt8(ascii: "/"): buffer.append(0x2F)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired surrogate in a string") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw error("unpaired surrogate in a string")
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("unpaired surrogate in a string")
                    }
                    buffer.append(contentsOf: Array(String(Character(UnicodeScalar(scalar)!)).utf8))
                default:
                    throw error("invalid escape in a string", at: index - 2)
                }
            }
            throw error("unterminated string", at: quote)
        }

        /// The string of `bytes` if they are valid UTF-8 (RFC 3629: shortest forms, no
        /// surrogates, at most U+10FFFF), else `nil`. Checked here by hand: the standard
        /// library's generic validating initializer is not specialized across modules and costs
        /// more than the parse itself.
        static func string(validatingUTF8 bytes: UnsafeBufferPointer<UInt8>) -> String? {
            var index = 0
            let count = bytes.count
            while index < count {
                let lead = bytes[index]
                if lead < 0x80 {
                    index += 1
                    continue
                }
                let length: Int
                var lower: UInt8 = 0x80
                var upper: UInt8 = 0xBF
                switch lead {
                case 0xC2...0xDF: length = 2
                case 0xE0:
                    length = 3
                    lower = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: length = 3
                case 0xED:
                    length = 3
                    upper = 0x9F
                case 0xF0:
                    length = 4
                    lower = 0x90
                case 0xF1...0xF3: length = 4
                case 0xF4:
                    length = 4
                    upper = 0x8F
                default: return nil
                }
                guard index + length <= count else { return nil }
                let second = bytes[index + 1]
                guard second >= lower, second <= upper else { return nil }
                for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
                    return nil
                }
                index += length
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        mutating func parseHex4() throws(JSONParseError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("unexpected end of input in a \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 0x30)
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 0x61 + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 0x41 + 10)
                default: throw error("invalid \\u escape")
                }
                value = value * 16 + digit
                index += 1
            }
            return value
        }
    }
}
