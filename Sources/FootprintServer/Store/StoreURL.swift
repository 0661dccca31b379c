/// A store's URL read into its parts,
/// `SCHEME://[USER[:PASSWORD]@]HOST:PORT/DATABASE[?NAME=VALUE&…]`, the same way for every store
/// (``ClickHouseLocation``, ``PostgresLocation``); each store decides what its parameters mean and
/// where a missing user or password comes from.
struct StoreURL {
    /// The user, percent-decoded (`nil`: not in the URL).
    var user: String?
    /// The password, percent-decoded (`nil`: not in the URL).
    var password: String?
    /// `HOST:PORT`.
    var node: ClickHouseLocation.Node
    /// The database: 1 to 64 letters, digits or `_`, not starting with a digit.
    var database: String
    /// The query's parameters in order, each name once; a value may be empty.
    var parameters: [(name: String, value: Substring)]

    /// An `invalid_store` error: `reason`, then the URL's expected form (`syntax`).
    static func refusal(_ reason: String, syntax: String) -> ServerError {
        ServerError(code: .invalidStore, message: "\(reason); expected \(syntax)")
    }

    /// Reads `text`, which must start with one of `schemes` (lowercase; matched in any case).
    /// - Throws: ``refusal(_:syntax:)`` naming what is wrong (never the password) and `syntax`.
    init(_ text: String, schemes: [String], syntax: String) throws(ServerError) {
        let refuse = { (reason: String) in Self.refusal(reason, syntax: syntax) }
        guard text.utf8.count <= 4096 else { throw refuse("the store URL is longer than 4096 bytes") }
        guard let scheme = schemes.first(where: { text.lowercased().hasPrefix($0) }) else {
            throw refuse("the store URL must start with \(schemes[0])")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let slash = rest.firstIndex(of: "/") else { throw refuse("the store URL names no database") }
        var authority = rest[..<slash]
        if let at = authority.lastIndex(of: "@") {
            let parts = authority[..<at].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            authority = authority[authority.index(after: at)...]
            // No NUL: the user and password reach C strings (libpq) and HTTP headers.
            guard let name = Self.percentDecoded(parts[0]), !name.isEmpty, !name.utf8.contains(0) else {
                throw refuse("the user in the store URL is empty or badly escaped")
            }
            user = name
            if parts.count == 2 {
                guard let secret = Self.percentDecoded(parts[1]), !secret.utf8.contains(0) else {
                    throw refuse("the password in the store URL is badly escaped")
                }
                password = secret
            }
        }
        guard let node = Self.address(authority) else {
            throw refuse("\(String(authority).debugDescription) is not HOST:PORT")
        }
        self.node = node
        database = String(rest[rest.index(after: slash)...])
        guard Self.isIdentifier(database) else {
            throw refuse(
                "the database \(database.debugDescription) must be 1 to 64 letters, digits or _, not starting with a digit"
            )
        }
        var seen: Set<String> = []
        parameters = []
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard seen.insert(name).inserted else { throw refuse("\(name.debugDescription) is given twice") }
            parameters.append((name, parts.count == 2 ? parts[1] : ""))
        }
    }

    /// `HOST:PORT` or `[IPV6]:PORT`, `nil` when not one.
    static func address(_ text: Substring) -> ClickHouseLocation.Node? {
        var host: Substring
        var portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            guard after.hasPrefix(":") else { return nil }
            portText = after.dropFirst()
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return nil
            }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            let allowed = { (c: Character) in
                c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "." || c == "_")
            }
            guard !host.isEmpty, host.count <= 253, host.allSatisfy(allowed) else { return nil }
        }
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = UInt16(portText), port > 0
        else { return nil }
        return ClickHouseLocation.Node(host: String(host), port: port)
    }

    /// 1 to 64 ASCII letters, digits or `_`, not starting with a digit: safe to write into SQL
    /// unquoted.
    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.utf8.first, text.utf8.count <= 64 else { return false }
        let isLetter = { (byte: UInt8) in
            (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95
        }
        return isLetter(first) && text.utf8.allSatisfy { isLetter($0) || ($0 >= 48 && $0 <= 57) }
    }

    /// `%XX` escapes undone; `nil` when one is malformed or the result is not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == 37 else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                Character(Unicode.Scalar(high)).isHexDigit, Character(Unicode.Scalar(low)).isHexDigit,
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return Array(text.utf8) == bytes ? text : nil
    }
}
