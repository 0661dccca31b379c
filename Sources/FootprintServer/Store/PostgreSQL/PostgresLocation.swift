/// Where the PostgreSQL metadata store lives, read from `postgres://USER[:PASSWORD]@HOST:PORT/DATABASE`
/// (`postgresql://` too). The password may also come from `FOOTPRINT_POSTGRES_PASSWORD` and the
/// user from `FOOTPRINT_POSTGRES_USER`; the URL's win. ``description`` never shows the password.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// The server's address.
    public var node: ClickHouseLocation.Node
    /// The database (it must exist; the store creates its tables in it).
    public var database: String
    /// The user.
    public var user: String
    /// The password (`nil`: none, or libpq's own `~/.pgpass`).
    public var password: String?

    /// Creates a location.
    public init(node: ClickHouseLocation.Node, database: String, user: String, password: String? = nil) {
        self.node = node
        self.database = database
        self.user = user
        self.password = password
    }

    /// Reads a `postgres://` URL.
    /// - Parameters:
    ///   - text: the URL.
    ///   - environment: where `FOOTPRINT_POSTGRES_USER` and `FOOTPRINT_POSTGRES_PASSWORD` come from.
    ///     Default: none.
    /// - Throws: ``ServerError`` `invalid_store` naming what is wrong (never the password).
    public init(url text: String, environment: [String: String] = [:]) throws(ServerError) {
        let syntax = "postgres://USER[:PASSWORD]@HOST:PORT/DATABASE"
        let refuse = { (reason: String) in StoreURL.refusal(reason, syntax: syntax) }
        let url = try StoreURL(text, schemes: Self.schemes, syntax: syntax)
        guard url.parameters.isEmpty else { throw refuse("the store URL takes no parameters") }
        let user = url.user ?? environment["FOOTPRINT_POSTGRES_USER"].flatMap { $0.isEmpty ? nil : $0 }
        guard let user else { throw refuse("the store URL names no user") }
        let password =
            url.password ?? environment["FOOTPRINT_POSTGRES_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        self.init(node: url.node, database: url.database, user: user, password: password)
    }

    /// Whether `text` looks like a PostgreSQL URL.
    public static func isURL(_ text: String) -> Bool {
        schemes.contains { text.lowercased().hasPrefix($0) }
    }

    /// The URL without the password.
    public var description: String {
        let shown = user.contains(":") || user.contains("@") || user.contains("/") ? "?" : user
        return "postgres://\(shown)@\(node)/\(database)"
    }

    /// libpq's connection keywords and values: a silent server is given up on after TCP keepalives
    /// (30 s idle, then 3 probes 5 s apart) or unacknowledged sends (`tcp_user_timeout`), and a
    /// statement runs at most 30 s (then `unavailable`).
    func connectionParameters(connectTimeoutSeconds: Int) -> [(String, String)] {
        var parameters = [
            ("host", node.host), ("port", String(node.port)), ("dbname", database), ("user", user),
            ("connect_timeout", String(max(2, connectTimeoutSeconds))), ("application_name", "footprint"),
            ("client_encoding", "UTF8"), ("keepalives", "1"), ("keepalives_idle", "30"),
            ("keepalives_interval", "5"), ("keepalives_count", "3"),
            // No NOTICE ("relation … already exists, skipping" on every open) on standard error.
            ("options", "-c statement_timeout=30000 -c client_min_messages=warning"),
            ("tcp_user_timeout", String(max(2, connectTimeoutSeconds) * 1000)),
        ]
        if let password { parameters.append(("password", password)) }
        return parameters
    }

    private static let schemes = ["postgres://", "postgresql://"]
}
