/// A request's target (`/v1/people/alice?project=shop`) decoded from the bytes the client sent,
/// every byte kept: a `%00` is a NUL character in the decoded text, never the end of it.
///
/// The path is percent-decoded (`+` stays a plus); the query is read as a form
/// (`application/x-www-form-urlencoded`: `&` between fields, `+` and `%20` both a space,
/// `%2B` a plus). Anything that cannot be decoded exactly is refused, naming the part:
/// a `%` not followed by two hex digits, bytes that are not UTF-8 once decoded (an overlong
/// encoding included), and a query parameter given twice (which of the two was meant cannot be
/// told). Whether a NUL is allowed is the route's decision: ids never hold one
/// (``identifier(_:name:)``); a page name may, and is matched exactly.
public struct RequestTarget: Sendable, Hashable {
    /// The decoded path (`/v1/people/alice`).
    public var path: String
    /// The decoded query parameters, each name once.
    public var query: [String: String]

    /// What a request refused before its target was read stands for: the root, no query.
    static let unreadable = RequestTarget(path: "/", query: [:])

    private init(path: String, query: [String: String]) {
        self.path = path
        self.query = query
    }

    /// Decodes `target` as it appears in the request line: `origin-form` (`/path?query`),
    /// `absolute-form` (`http://host/path?query`, as proxies send) or `*`.
    /// - Throws: `invalid_path` or `invalid_query` naming what cannot be decoded.
    public init(_ target: some Collection<UInt8>) throws(ServerError) {
        var bytes = Array(target)
        guard !bytes.contains(0) else {
            throw ServerError(
                code: .invalidPath, message: "the request target holds a NUL byte; a NUL is sent as %00")
        }
        if let start = Self.originStart(of: bytes) {
            // `http://host` and `http://host?x` name the root.
            bytes.replaceSubrange(..<start, with: [UInt8(ascii: "/")])
            if bytes.count > 1, bytes[1] == UInt8(ascii: "/") { bytes.removeFirst() }
        }
        let mark = bytes.firstIndex(of: UInt8(ascii: "?"))
        let rawPath = bytes[..<(mark ?? bytes.endIndex)]
        guard rawPath.first == UInt8(ascii: "/") || rawPath.elementsEqual("*".utf8) else {
            throw ServerError(code: .invalidPath, message: "the request target must start with /")
        }
        do {
            path = try PercentDecoding.decode(rawPath, plus: .literal)
        } catch {
            throw ServerError(code: .invalidPath, message: "the path \(error.reason)")
        }
        if let mark {
            query = try Self.fields(bytes[(mark + 1)...], code: .invalidQuery)
        } else {
            query = [:]
        }
    }

    /// Decodes a form's fields (a query string or an `application/x-www-form-urlencoded` body).
    /// - Parameter code: the error code of a refusal (`invalid_query` for a query string).
    /// - Throws: a field that cannot be decoded, or given twice, named in the message.
    public static func fields(_ form: some Collection<UInt8>, code: ServerError.Code) throws(ServerError)
        -> [String: String]
    {
        var fields: [String: String] = [:]
        for piece in form.split(separator: UInt8(ascii: "&")) {
            let equals = piece.firstIndex(of: UInt8(ascii: "="))
            let rawName = piece[..<(equals ?? piece.endIndex)]
            let rawValue = equals.map { piece[piece.index(after: $0)...] } ?? piece[piece.endIndex...]
            let name: String
            do {
                name = try PercentDecoding.decode(rawName, plus: .space)
            } catch {
                throw ServerError(
                    code: code, message: "the parameter name \(Self.quoted(rawName)) \(error.reason)")
            }
            let value: String
            do {
                value = try PercentDecoding.decode(rawValue, plus: .space)
            } catch {
                throw ServerError(code: code, message: "\(Self.quoted(name.utf8)) \(error.reason)")
            }
            guard fields.updateValue(value, forKey: name) == nil else {
                throw ServerError(
                    code: code,
                    message: "\(Self.quoted(name.utf8)) is given more than once; give each parameter once")
            }
        }
        return fields
    }

    /// `text` as an id taken from a path or query (a person, a definition, a snapshot): refused
    /// when it is empty or holds a NUL character, which no stored id holds (so `alice%00x` is
    /// never read as `alice`).
    /// - Throws: `invalid_path` naming the id.
    public static func identifier(_ text: some StringProtocol, name: String) throws(ServerError) -> String {
        guard !text.isEmpty else {
            throw ServerError(code: .invalidPath, message: "the \(name) is empty")
        }
        guard !text.utf8.contains(0) else {
            throw ServerError(code: .invalidPath, message: "the \(name) holds a NUL character (%00)")
        }
        return String(text)
    }

    /// Where the path starts in an `absolute-form` target (`http://host:8080/v1/batch` → the
    /// index of `/v1`); `nil` for any other form.
    private static func originStart(of bytes: [UInt8]) -> Int? {
        for scheme in ["http://", "https://"] {
            let prefix = Array(scheme.utf8)
            guard bytes.count >= prefix.count,
                bytes[..<prefix.count].map({ $0 | 0x20 }).elementsEqual(prefix)
            else { continue }
            let rest = bytes[prefix.count...]
            return rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? bytes.count
        }
        return nil
    }

    /// Raw bytes shown in a message: at most 64, as text with anything not printable escaped.
    private static func quoted(_ bytes: some Collection<UInt8>) -> String {
        var shown = ""
        for byte in bytes.prefix(64) {
            if byte >= 0x20 && byte < 0x7f && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                shown.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                shown += "\\x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return "\"" + shown + (bytes.count > 64 ? "…" : "") + "\""
    }
}

/// `%XX` escapes decoded into bytes, and the bytes read as UTF-8, with nothing dropped or replaced.
public enum PercentDecoding {
    /// What a `+` means.
    public enum Plus: Sendable {
        /// A plus sign (in a path).
        case literal
        /// A space (in a query string or form body).
        case space
    }

    /// Why text could not be decoded.
    public enum Failure: Error, Sendable, Hashable {
        /// A `%` not followed by two hex digits (at the end, or `%zz`).
        case malformedEscape
        /// The decoded bytes are not UTF-8 (an overlong form, a lone continuation byte, ...).
        case invalidUTF8

        /// The failure as the end of a sentence about the part (`"the path " + reason`).
        public var reason: String {
            switch self {
            case .malformedEscape: "has a % that is not followed by two hex digits"
            case .invalidUTF8: "is not UTF-8 once its %-escapes are decoded"
            }
        }
    }

    /// Decodes `bytes`; every decoded byte is kept (a `%00` is a NUL character).
    public static func decode(_ bytes: some Collection<UInt8>, plus: Plus) throws(Failure) -> String {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            index = bytes.index(after: index)
            switch byte {
            case UInt8(ascii: "%"):
                guard index != bytes.endIndex, let high = hexValue(bytes[index]) else {
                    throw .malformedEscape
                }
                index = bytes.index(after: index)
                guard index != bytes.endIndex, let low = hexValue(bytes[index]) else {
                    throw .malformedEscape
                }
                index = bytes.index(after: index)
                decoded.append(high << 4 | low)
            case UInt8(ascii: "+") where plus == .space:
                decoded.append(UInt8(ascii: " "))
            default:
                decoded.append(byte)
            }
        }
        // Swift's decoder replaces what is not UTF-8 (overlong forms included) with U+FFFD, so
        // text that reads back as other bytes was not UTF-8.
        let text = String(decoding: decoded, as: UTF8.self)
        guard text.utf8.elementsEqual(decoded) else { throw .invalidUTF8 }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
