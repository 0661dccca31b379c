import FootprintWire

/// The metadata of a deployment (``MetadataStore``) in a PostgreSQL database, so that collectors
/// on several machines share projects, keys, config, definitions, tokens, sessions, connect
/// sessions, snapshots, the deletion log and the retention horizons. Its events are in a
/// ClickHouse store (``Stores/open(metadata:events:options:)``).
///
/// It answers every call as ``SQLiteEventStore`` does: same uniqueness, same hashing of tokens
/// and session ids (``SecretHash``), same limits, same refusals; the decisions are shared
/// (``MetadataRules``). Every call runs on a connection of a bounded pool, each write in one
/// transaction; writes that count and then insert (config versions, sessions, snapshots) take
/// an advisory lock first, so that collectors writing at once keep the limits.
///
/// Write keys and the latest remote configs, which ingest reads on every request, are cached
/// (``MetadataCache``): every ``Configuration/cacheSeconds`` the store reads one revision number
/// that every change bumps, and reads them again only when it moved, so a change made through
/// any collector reaches every other within that interval plus one query. Every other call is
/// a round trip.
///
/// When PostgreSQL cannot be reached, calls fail with ``ServerError`` `unavailable` (retry
/// later: the APIs answer `503`), except the cached lookups of the keys and configs the cache
/// holds, so ingest for them goes on; the pool connects again by itself once it is back.
public final class PostgresMetadataStore: Sendable {
    /// How the store connects.
    public struct Configuration: Sendable {
        /// Connections open at once at most. Default 4.
        public var connections = 4
        /// How long a call waits for a free connection before failing `unavailable`, in seconds.
        /// Default 10.
        public var waitSeconds = 10.0
        /// How long connecting may take, in seconds (at least 2). Default 5.
        public var connectTimeoutSeconds = 5
        /// How long the cached write keys and remote configs answer before the store checks
        /// whether they changed, in seconds (0: at every lookup). Default 1.
        public var cacheSeconds = 1.0
        /// Creates the default configuration.
        public init() {}
    }

    /// Where the database is.
    public let location: PostgresLocation
    let pool: PostgresPool
    /// The ids of deleted people last read, with the deletion count they were read at.
    let deletedIdsCache = LockedValue<(revision: Int64, ids: DeletedIds)?>(nil)
    /// The write keys and latest remote configs.
    let cache: MetadataCache

    /// Connects to `location` and creates or updates the store's tables.
    /// - Throws: ``ServerError`` `unavailable` when PostgreSQL cannot be reached; `storage` when
    ///   the schema cannot be made (or is newer than this server's).
    public init(location: PostgresLocation, configuration: Configuration = Configuration())
        throws(ServerError)
    {
        self.location = location
        let pool = PostgresPool(
            parameters: location.connectionParameters(
                connectTimeoutSeconds: configuration.connectTimeoutSeconds),
            maximum: configuration.connections, waitSeconds: configuration.waitSeconds)
        self.pool = pool
        cache = MetadataCache(
            intervalMilliseconds: Int64((max(0, configuration.cacheSeconds) * 1000).rounded()),
            clock: SystemClock()
        ) { known throws(ServerError) in try Self.readSnapshot(pool, known: known) }
        do {
            try pool.withConnection { connection in try PostgresSchema.migrate(connection) }
            // Serves the existing projects at once.
            _ = try cache.project(writeKey: "")
        } catch {
            pool.close()
            throw ServerError(code: error.code, message: "cannot open \(location): \(error.message)")
        }
    }

    /// Runs `body` on a pooled connection.
    func perform<T>(_ body: (PostgresConnection) throws -> T) throws(ServerError) -> T {
        try pool.withConnection(body)
    }

    /// Runs `body` in a transaction on a pooled connection.
    func transaction<T>(_ body: (PostgresConnection) throws -> T) throws(ServerError) -> T {
        try pool.withConnection { connection in try connection.transaction { try body(connection) } }
    }

    /// Takes the transaction's advisory lock of `kind` for `id`: writers counting then inserting
    /// the same rows wait for each other.
    static func lock(_ connection: PostgresConnection, _ kind: LockKind, id: Int64) throws {
        try connection.run(
            "SELECT pg_advisory_xact_lock($1)", [.integer(kind.rawValue << 56 | (id & 0x00FF_FFFF_FFFF_FFFF))]
        )
    }

    /// What an advisory lock guards.
    enum LockKind: Int64 {
        case projectNames = 1, configVersions, connectSessions, snapshots, dashboardSessions, writeKeys
    }

    // MARK: Projects

    /// From the cache (``Configuration/cacheSeconds``).
    public func project(writeKey: String) throws(ServerError) -> Project? {
        try cache.project(writeKey: writeKey)
    }

    public func project(named name: String) throws(ServerError) -> Project? {
        try perform { connection in
            try connection.query(
                Self.selectProjects + " WHERE p.name = $1", [.text(name)], { try $0.project() }
            )
            .first
        }
    }

    public func createProject(named name: String) throws(ServerError) -> Project {
        let trimmed = try MetadataRules.projectName(name)
        let now = SystemClock().now()
        let key = Project.makeWriteKey()
        defer { cache.invalidate() }
        return try transaction { connection in
            try Self.lock(connection, .projectNames, id: 0)
            let existing = try connection.query("SELECT 1 FROM projects WHERE name = $1", [.text(trimmed)]) {
                _ in true
            }
            if !existing.isEmpty { throw MetadataRules.projectNameTaken(trimmed) }
            let id = try connection.query(
                "INSERT INTO projects(name, created_at) VALUES ($1, $2) RETURNING id",
                [.text(trimmed), .integer(now.millisecondsSince1970)]
            ) { try $0.int64(at: 0) }[0]
            try connection.run(
                "INSERT INTO write_keys(key, project_id, created_at) VALUES ($1, $2, $3)",
                [.text(key), .integer(id), .integer(now.millisecondsSince1970)])
            return Project(id: id, name: trimmed, writeKey: key, createdAt: now)
        }
    }

    public func projects() throws(ServerError) -> [Project] {
        try perform { connection in
            try connection.query(Self.selectProjects + " ORDER BY p.id", [], { try $0.project() })
        }
    }

    private static let selectProjects = """
        SELECT p.id, p.name, (SELECT k.key FROM write_keys k WHERE k.project_id = p.id ORDER BY k.key LIMIT 1),
            p.created_at
        FROM projects p
        """

    // MARK: Remote config and definitions

    public func storeConfig(projectId: Int64, document: String, at time: Timestamp) throws(ServerError)
        -> RemoteConfigVersion
    {
        defer { cache.invalidate() }
        return try transaction { connection in
            try Self.lock(connection, .configVersions, id: projectId)
            let latest =
                try connection.query(
                    "SELECT max(version) FROM config_versions WHERE project_id = $1", [.integer(projectId)]
                ) { try $0.optionalInt64(at: 0) }.first ?? nil
            let config = RemoteConfigVersion(
                version: (latest ?? 0) + 1, document: document, publishedAt: time)
            try connection.run(
                "INSERT INTO config_versions(project_id, version, document, published_at) VALUES ($1, $2, $3, $4)",
                [
                    .integer(projectId), .integer(config.version), .text(config.document),
                    .integer(config.publishedAt.millisecondsSince1970),
                ])
            return config
        }
    }

    /// From the cache (``Configuration/cacheSeconds``).
    public func latestConfig(projectId: Int64) throws(ServerError) -> RemoteConfigVersion? {
        try cache.latestConfig(projectId: projectId)
    }

    public func configVersions(projectId: Int64) throws(ServerError) -> [RemoteConfigVersion] {
        try configs(projectId: projectId, limit: nil)
    }

    private func configs(projectId: Int64, limit: Int64?) throws(ServerError) -> [RemoteConfigVersion] {
        try perform { connection in
            try connection.query(
                """
                SELECT version, document, published_at FROM config_versions WHERE project_id = $1
                ORDER BY version DESC LIMIT $2
                """, [.integer(projectId), limit.map { .integer($0) } ?? .null]
            ) { try $0.configVersion(at: 0) }
        }
    }

    public func eventDefinitions(projectId: Int64) throws(ServerError) -> [EventDefinition] {
        try perform { connection in
            try connection.query(
                "SELECT document FROM event_definitions WHERE project_id = $1 ORDER BY id",
                [.integer(projectId)]
            ) { row in
                try EventDefinition(json: try JSONParser().parse(Array((try row.text(at: 0) ?? "").utf8)))
            }
        }
    }

    public func saveEventDefinition(_ definition: EventDefinition, projectId: Int64, at time: Timestamp)
        throws(ServerError)
    {
        _ = try perform { connection in
            try connection.run(
                """
                INSERT INTO event_definitions(project_id, id, document, updated_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (project_id, id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at
                """,
                [
                    .integer(projectId), .text(definition.id), .text(JSONWriter.string(definition.jsonValue)),
                    .integer(time.millisecondsSince1970),
                ])
        }
    }

    @discardableResult
    public func deleteEventDefinition(id: String, projectId: Int64) throws(ServerError) -> Bool {
        try perform { connection in
            try connection.run(
                "DELETE FROM event_definitions WHERE project_id = $1 AND id = $2",
                [.integer(projectId), .text(id)])
                > 0
        }
    }

    // MARK: Retention

    public func anyProjectHasRetention() throws(ServerError) -> Bool {
        try perform { connection in
            try !connection.query("SELECT 1 FROM project_retention WHERE days IS NOT NULL LIMIT 1") { _ in
                true
            }
            .isEmpty
        }
    }

    public func retentionHorizon(projectId: Int64) throws(ServerError) -> Timestamp? {
        try perform { connection in
            try connection.query(
                "SELECT horizon_day FROM project_retention WHERE project_id = $1 AND horizon_day IS NOT NULL",
                [.integer(projectId)]
            ) { Timestamp(millisecondsSince1970: try $0.int64(at: 0) &* 86_400_000) }.first
        }
    }

    /// A project's own retention in days, or `nil` (the server's `--retention-days`, if any).
    public func retentionDays(projectId: Int64) throws(ServerError) -> Int? {
        try perform { connection in
            try connection.query(
                "SELECT days FROM project_retention WHERE project_id = $1 AND days IS NOT NULL",
                [.integer(projectId)]
            ) { Int(try $0.int64(at: 0)) }.first
        }
    }

    /// Sets (or with `nil` clears) a project's own retention in days (1 to 36,500).
    /// - Throws: ``ServerError`` `invalid_query` outside that range.
    public func setRetentionDays(_ days: Int?, projectId: Int64) throws(ServerError) {
        try MetadataRules.checkRetentionDays(days)
        _ = try perform { connection in
            try connection.run(
                """
                INSERT INTO project_retention(project_id, days) VALUES ($1, $2)
                ON CONFLICT (project_id) DO UPDATE SET days = excluded.days
                """, [.integer(projectId), days.map { .integer(Int64($0)) } ?? .null])
        }
    }

    /// Closes every connection; later calls fail with `closed`.
    public func close() {
        pool.close()
    }
}

extension PostgresMetadataStore: MetadataStore {}
