/// Where the ClickHouse store lives, read from
/// `clickhouse://[user[:password]@]HOST:PORT/DATABASE[?cluster=NAME&shards=HOST:PORT,HOST:PORT]`.
///
/// `HOST:PORT` is a node's HTTP interface, which every query and insert goes to. `cluster` names
/// the `remote_servers` cluster the `Distributed` tables spread over (default `footprint`);
/// `shards` lists every shard's HTTP address, used only to create the tables on each shard
/// (without it, the node is the only shard). The user and password may also come from
/// `FOOTPRINT_CLICKHOUSE_USER` and `FOOTPRINT_CLICKHOUSE_PASSWORD`; the URL's win.
public struct ClickHouseLocation: Sendable, Hashable, CustomStringConvertible {
    /// A node's HTTP address.
    public struct Node: Sendable, Hashable, CustomStringConvertible {
        /// A host name, an IPv4 address or an IPv6 address (without brackets).
        public var host: String
        /// The HTTP port.
        public var port: UInt16

        /// Creates an address.
        public init(host: String, port: UInt16) {
            self.host = host
            self.port = port
        }

        /// `HOST:PORT`, the IPv6 host in brackets.
        public var description: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }
    }

    /// The node every query goes to.
    public var node: Node
    /// The database (created when missing).
    public var database: String
    /// The `remote_servers` cluster of the `Distributed` tables.
    public var cluster = "footprint"
    /// Every shard's HTTP address, where the tables are created; the node alone when not given.
    public var shards: [Node]
    /// The user (`nil`: ClickHouse's `default`).
    public var user: String?
    /// The password.
    public var password: String?

    /// The most shards a URL may list.
    public static let maximumShards = 64

    /// Creates a location.
    public init(
        node: Node, database: String, cluster: String = "footprint", shards: [Node] = [], user: String? = nil,
        password: String? = nil
    ) {
        self.node = node
        self.database = database
        self.cluster = cluster
        self.shards = shards.isEmpty ? [node] : shards
        self.user = user
        self.password = password
    }

    /// Reads a `clickhouse://` URL; the user and password default to the environment's
    /// `FOOTPRINT_CLICKHOUSE_USER` and `FOOTPRINT_CLICKHOUSE_PASSWORD`.
    /// - Throws: ``ServerError`` `invalid_store` naming what is wrong (never the password).
    public init(url text: String, environment: [String: String] = [:]) throws(ServerError) {
        func refuse(_ reason: String) -> ServerError {
            ServerError(
                code: .invalidStore,
                message:
                    "\(reason); expected clickhouse://[user[:password]@]HOST:PORT/DATABASE[?cluster=NAME&shards=HOST:PORT,...]"
            )
        }
        guard text.utf8.count <= 4096 else { throw refuse("the store URL is longer than 4096 bytes") }
        let scheme = "clickhouse://"
        guard text.lowercased().hasPrefix(scheme) else {
            throw refuse("the store URL must start with \(scheme)")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let slash = rest.firstIndex(of: "/") else { throw refuse("the store URL names no database") }
        var authority = rest[..<slash]
        let databaseText = rest[rest.index(after: slash)...]
        var user: String?
        var password: String?
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            authority = authority[authority.index(after: at)...]
            let parts = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.percentDecoded(parts[0]), !name.isEmpty else {
                throw refuse("the user in the store URL is empty or badly escaped")
            }
            user = name
            if parts.count == 2 {
                guard let secret = Self.percentDecoded(parts[1]) else {
                    throw refuse("the password in the store URL is badly escaped")
                }
                password = secret
            }
        }
        guard let node = Self.node(authority) else {
            throw refuse("\(String(authority).debugDescription) is not HOST:PORT")
        }
        let database = String(databaseText)
        guard Self.isIdentifier(database) else {
            throw refuse(
                "the database \(database.debugDescription) must be 1 to 64 letters, digits or _, not starting with a digit"
            )
        }
        var cluster = "footprint"
        var shards: [Node] = []
        var seen: Set<String> = []
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let value = parts.count == 2 ? parts[1] : ""
            guard seen.insert(name).inserted else { throw refuse("\(name.debugDescription) is given twice") }
            switch name {
            case "cluster":
                guard Self.isIdentifier(String(value)) else {
                    throw refuse("the cluster \(String(value).debugDescription) must be letters, digits or _")
                }
                cluster = String(value)
            case "shards":
                let listed = value.split(separator: ",", omittingEmptySubsequences: false)
                guard listed.count <= Self.maximumShards else {
                    throw refuse("more than \(Self.maximumShards) shards")
                }
                for item in listed {
                    guard let shard = Self.node(item) else {
                        throw refuse("the shard \(String(item).debugDescription) is not HOST:PORT")
                    }
                    guard !shards.contains(shard) else { throw refuse("the shard \(shard) is listed twice") }
                    shards.append(shard)
                }
            default:
                throw refuse(
                    "unknown store URL parameter \(name.debugDescription) (cluster and shards are known)")
            }
        }
        self.init(
            node: node, database: database, cluster: cluster, shards: shards,
            user: user ?? environment["FOOTPRINT_CLICKHOUSE_USER"].flatMap { $0.isEmpty ? nil : $0 },
            password: password ?? environment["FOOTPRINT_CLICKHOUSE_PASSWORD"])
    }

    /// Whether `text` looks like a ClickHouse store URL (rather than a file).
    public static func isURL(_ text: String) -> Bool {
        text.lowercased().hasPrefix("clickhouse://")
    }

    /// The location without the password, for logs and messages.
    public var description: String {
        let credentials = user.map { ($0.contains(":") || $0.contains("@") ? "?" : $0) + "@" } ?? ""
        let shardList = shards == [node] ? "" : "&shards=" + shards.map(\.description).joined(separator: ",")
        return "clickhouse://\(credentials)\(node)/\(database)?cluster=\(cluster)\(shardList)"
    }

    /// `HOST:PORT` or `[IPV6]:PORT`, `nil` when not one.
    static func node(_ text: Substring) -> Node? {
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
        return Node(host: String(host), port: port)
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
