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
        let syntax = "clickhouse://[user[:password]@]HOST:PORT/DATABASE[?cluster=NAME&shards=HOST:PORT,...]"
        let refuse = { (reason: String) in StoreURL.refusal(reason, syntax: syntax) }
        let url = try StoreURL(text, schemes: ["clickhouse://"], syntax: syntax)
        var cluster = "footprint"
        var shards: [Node] = []
        for (name, value) in url.parameters {
            switch name {
            case "cluster":
                guard StoreURL.isIdentifier(String(value)) else {
                    throw refuse("the cluster \(String(value).debugDescription) must be letters, digits or _")
                }
                cluster = String(value)
            case "shards":
                let listed = value.split(separator: ",", omittingEmptySubsequences: false)
                guard listed.count <= Self.maximumShards else {
                    throw refuse("more than \(Self.maximumShards) shards")
                }
                for item in listed {
                    guard let shard = StoreURL.address(item) else {
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
            node: url.node, database: url.database, cluster: cluster, shards: shards,
            user: url.user ?? environment["FOOTPRINT_CLICKHOUSE_USER"].flatMap { $0.isEmpty ? nil : $0 },
            password: url.password ?? environment["FOOTPRINT_CLICKHOUSE_PASSWORD"])
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
}
