import FootprintWire

/// What a server, a report and every command run on: one ``MetadataStore`` and one
/// ``EventStore``. A SQLite deployment keeps both in one file (one ``SQLiteEventStore`` is
/// both); a ClickHouse deployment keeps its events in ClickHouse and its metadata in a SQLite
/// file or in PostgreSQL. ``open(metadata:events:options:)`` is the one place that opens them.
public struct Stores: Sendable {
    /// Projects, keys, config, definitions, tokens, sessions and snapshots.
    public let metadata: any MetadataStore
    /// Events and identity links.
    public let events: any EventStore

    /// The stores of a deployment whose metadata and events are kept apart.
    public init(metadata: any MetadataStore, events: any EventStore) {
        self.metadata = metadata
        self.events = events
    }

    /// One store keeping both metadata and events (a SQLite file).
    public init(_ store: some MetadataStore & EventStore) {
        self.init(metadata: store, events: store)
    }

    /// Finishes pending writes and closes the events, then the metadata (once when one store
    /// keeps both).
    public func close() {
        events.close()
        if (events as AnyObject) !== (metadata as AnyObject) { metadata.close() }
    }

    /// How ``open(metadata:events:options:)`` opens the stores.
    public struct Options: Sendable {
        /// The SQLite file's settings (read-only, pool sizes, group commit).
        public var sqlite = SQLiteEventStore.Configuration()
        /// The ClickHouse store's settings, when the events are there.
        public var clickHouse = ClickHouseEventStore.Configuration()
        /// The PostgreSQL metadata store's settings, when the metadata is there.
        public var postgres = PostgresMetadataStore.Configuration()
        /// Creates the default options.
        public init() {}
    }

    /// Opens a deployment's stores.
    /// - Parameters:
    ///   - metadata: where the metadata is: a SQLite file (created when missing, unless read-only),
    ///     or a PostgreSQL database (its tables created when missing), whose events must then be in
    ///     ClickHouse.
    ///   - events: where the events are: `nil` or that same file, which must then keep its own
    ///     events (the metadata file of a ClickHouse store is refused, naming the store), or
    ///     ClickHouse, whose metadata is then `metadata` (which records it, unless read-only).
    /// - Throws: ``ServerError`` `invalid_store` when metadata is ClickHouse, two SQLite files
    ///   are named, or PostgreSQL is named without ClickHouse; `store_in_use`; what opening the
    ///   stores throws.
    public static func open(
        metadata: StoreLocation, events: StoreLocation? = nil, options: Options = Options()
    )
        throws(ServerError) -> Stores
    {
        if let postgres = metadata.postgres {
            return try open(postgres: postgres, events: events, options: options)
        }
        guard let path = metadata.sqlitePath else {
            throw ServerError(
                code: .invalidStore,
                message:
                    "\(metadata) cannot keep metadata (projects, keys, config): give a SQLite file or postgres://…"
            )
        }
        switch events {
        case nil, .sqlite:
            if let other = events?.sqlitePath, other != path {
                throw ServerError(
                    code: .invalidStore,
                    message: "sqlite:\(other) and sqlite:\(path) differ: a SQLite store keeps its events "
                        + "with its projects, in one file")
            }
            return Stores(try SQLiteEventStore.openingOwnEvents(path: path, configuration: options.sqlite))
        case .postgres(let location):
            throw ServerError(
                code: .invalidStore,
                message: "\(location) keeps metadata, not events: give the events as clickhouse://…")
        case .clickHouse(let location):
            let file = try SQLiteEventStore(path: path, configuration: options.sqlite)
            return try pair(file) { () throws(ServerError) in
                try ClickHouseEventStore(
                    location: location, metadata: file, configuration: options.clickHouse)
            }
        }
    }

    /// The metadata in PostgreSQL, the events in ClickHouse (the only pairing it has).
    private static func open(postgres: PostgresLocation, events: StoreLocation?, options: Options)
        throws(ServerError) -> Stores
    {
        guard let clickHouse = events?.clickHouse else {
            throw ServerError(
                code: .invalidStore,
                message:
                    "\(postgres) keeps only metadata: give the events as clickhouse://… (a SQLite store keeps "
                    + "its own metadata in its file)")
        }
        let metadata = try PostgresMetadataStore(location: postgres, configuration: options.postgres)
        return try pair(metadata) { () throws(ServerError) in
            try ClickHouseEventStore(
                location: clickHouse, metadata: metadata, configuration: options.clickHouse)
        }
    }

    /// `metadata` with the events `open` opens; `metadata` is closed again when they cannot be.
    private static func pair(
        _ metadata: any MetadataStore, events open: () throws(ServerError) -> any EventStore
    )
        throws(ServerError) -> Stores
    {
        do {
            return Stores(metadata: metadata, events: try open())
        } catch {
            metadata.close()
            throw error
        }
    }
}
