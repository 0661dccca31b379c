/// Where the ClickHouse store lives, read from
/// `clickhouse://[user[:password]@]HOST:PORT/DATABASE[?cluster=NAME&replicas=N&shards=HOST:PORT,HOST:PORT]`.
///
/// `HOST:PORT` is a node's HTTP interface, which every query and insert goes to. `cluster` names
/// the `remote_servers` cluster the `Distributed` tables spread over (default `footprint`);
/// `shards` lists every shard's HTTP address, used only to create the tables on each shard
/// (without it, the node is the only shard). `replicas` is how many servers each shard has
/// (default 1): with 2 or more, the tables are `Replicated*` ones (ZooKeeper keeps each shard's
/// part list, see ``ClickHouseSQL/engine(_:_:table:)``) and `shards` lists every server, each
/// shard's replicas one after the other (`replicas=2&shards=S1R1,S1R2,S2R1,S2R2`). The user and
/// password may also come from `FOOTPRINT_CLICKHOUSE_USER` and `FOOTPRINT_CLICKHOUSE_PASSWORD`;
/// the URL's win.
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
    /// How many servers each shard has, 1 to ``maximumReplicas``: with more than 1 the tables are
    /// `Replicated*` ones and ``shards`` lists every replica of each shard, one shard after the
    /// other. Default 1.
    public var replicas = 1
    /// The user (`nil`: ClickHouse's `default`).
    public var user: String?
    /// The password.
    public var password: String?

    /// The most shards a URL may list.
    public static let maximumShards = 64
    /// The most replicas a shard may have.
    public static let maximumReplicas = 8

    /// Whether the shards have replicas (``replicas`` above 1): the tables are `Replicated*` ones.
    public var isReplicated: Bool { replicas > 1 }

    /// Each shard's servers, in the order ``shards`` lists them (one list per shard; each of
    /// one server without replicas).
    public var replicaSets: [[Node]] {
        stride(from: 0, to: shards.count, by: replicas).map {
            Array(shards[$0..<min(shards.count, $0 + replicas)])
        }
    }

    /// Creates a location.
    public init(
        node: Node, database: String, cluster: String = "footprint", shards: [Node] = [], replicas: Int = 1,
        user: String? = nil, password: String? = nil
    ) {
        self.node = node
        self.database = database
        self.cluster = cluster
        self.shards = shards.isEmpty ? [node] : shards
        self.replicas = replicas
        self.user = user
        self.password = password
    }

    /// Reads a `clickhouse://` URL; the user and password default to the environment's
    /// `FOOTPRINT_CLICKHOUSE_USER` and `FOOTPRINT_CLICKHOUSE_PASSWORD`.
    /// - Throws: ``ServerError`` `invalid_store` naming what is wrong (never the password).
    public init(url text: String, environment: [String: String] = [:]) throws(ServerError) {
        let syntax =
            "clickhouse://[user[:password]@]HOST:PORT/DATABASE[?cluster=NAME&replicas=N&shards=HOST:PORT,...]"
        let refuse = { (reason: String) in StoreURL.refusal(reason, syntax: syntax) }
        let url = try StoreURL(text, schemes: ["clickhouse://"], syntax: syntax)
        var cluster = "footprint"
        var shards: [Node] = []
        var replicas = 1
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
            case "replicas":
                guard let count = Int(value), (1...Self.maximumReplicas).contains(count) else {
                    throw refuse(
                        "the replicas \(String(value).debugDescription) must be a number from 1 to \(Self.maximumReplicas)"
                    )
                }
                replicas = count
            default:
                throw refuse(
                    "unknown store URL parameter \(name.debugDescription) (cluster, replicas and shards are known)"
                )
            }
        }
        if replicas > 1 {
            guard !shards.isEmpty, shards.count % replicas == 0 else {
                throw refuse(
                    "with replicas=\(replicas), shards must list every replica of every shard (a multiple of \(replicas) addresses)"
                )
            }
        }
        self.init(
            node: url.node, database: url.database, cluster: cluster, shards: shards, replicas: replicas,
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
        let replicaCount = replicas > 1 ? "&replicas=\(replicas)" : ""
        return "clickhouse://\(credentials)\(node)/\(database)?cluster=\(cluster)\(replicaCount)\(shardList)"
    }
}
