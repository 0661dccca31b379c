/// A pattern over element paths: `*` stands for any text inside one `#` segment, `**` for any
/// text across segments; everything else is literal.
///
/// `#buy:#UIButton#**#CartViewController#**` matches a `buy:` action from any `UIButton` on any
/// cart page, whatever the layout between.
public struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let text: String
    private let tokens: [Token]
    /// The literal bytes every match starts with, checked first to reject fast.
    private let literalPrefix: [UInt8]

    private enum Token: Sendable, Hashable {
        case literal([UInt8])
        case segmentWildcard
        case anyWildcard
    }

    /// Why a pattern was refused.
    public struct Error: Swift.Error, Sendable, Hashable {
        /// What is wrong.
        public var message: String
    }

    /// The most wildcards one pattern may hold; more would make matching slow.
    public static let maximumWildcards = 8

    /// Compiles a pattern.
    /// - Throws: ``Error`` when it is empty, does not start with `#`, holds `***`, or has more
    ///   than ``maximumWildcards`` wildcards.
    public init(_ text: String) throws(Error) {
        guard text.hasPrefix("#") || text.hasPrefix("*") else {
            throw Error(message: "a path pattern starts with \"#\" or \"*\"")
        }
        var tokens: [Token] = []
        var literal: [UInt8] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "*") {
                if !literal.isEmpty {
                    tokens.append(.literal(literal))
                    literal = []
                }
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                    if index + 2 < bytes.count, bytes[index + 2] == UInt8(ascii: "*") {
                        throw Error(message: "\"***\" is not a wildcard; use \"**\"")
                    }
                    tokens.append(.anyWildcard)
                    index += 2
                } else {
                    tokens.append(.segmentWildcard)
                    index += 1
                }
            } else {
                literal.append(bytes[index])
                index += 1
            }
        }
        if !literal.isEmpty { tokens.append(.literal(literal)) }
        var wildcards = 0
        for token in tokens {
            if case .literal = token { continue }
            wildcards += 1
        }
        guard wildcards <= Self.maximumWildcards else {
            throw Error(message: "more than \(Self.maximumWildcards) wildcards")
        }
        self.text = text
        self.tokens = tokens
        if case .literal(let prefix)? = tokens.first {
            literalPrefix = prefix
        } else {
            literalPrefix = []
        }
    }

    /// Whether `path` matches the whole pattern.
    public func matches(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { matches(utf8: $0) }
    }

    /// Whether the UTF-8 bytes of a path match the whole pattern.
    public func matches(utf8 path: UnsafeBufferPointer<UInt8>) -> Bool {
        guard path.count >= literalPrefix.count else { return false }
        for index in literalPrefix.indices where path[index] != literalPrefix[index] { return false }
        return Self.match(tokens[...], path, from: 0)
    }

    private static func match(
        _ tokens: ArraySlice<Token>, _ path: UnsafeBufferPointer<UInt8>, from start: Int
    ) -> Bool {
        guard let token = tokens.first else { return start == path.count }
        let rest = tokens.dropFirst()
        switch token {
        case .literal(let literal):
            guard path.count - start >= literal.count else { return false }
            for offset in literal.indices where path[start + offset] != literal[offset] { return false }
            return match(rest, path, from: start + literal.count)
        case .segmentWildcard:
            var end = start
            while true {
                if match(rest, path, from: end) { return true }
                guard end < path.count, path[end] != UInt8(ascii: "#") else { return false }
                end += 1
            }
        case .anyWildcard:
            for end in start...path.count where match(rest, path, from: end) { return true }
            return false
        }
    }

    public var description: String { text }
}
