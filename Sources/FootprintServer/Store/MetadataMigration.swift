import FootprintSQLite
import FootprintWire

/// Copies everything a SQLite file holds that is not events into a PostgreSQL metadata store
/// (`footprint migrate --meta`), row for row (``MetadataTable/all``): projects and write keys,
/// config versions, event definitions, retention, the refused ids and the deletion log (with the
/// salt of their digests), read tokens and dashboard sessions (their hashes only, as stored),
/// connect sessions, snapshots and their images, and the ClickHouse stores the file records.
/// Ids stay the same, so the events (copied by ``StoreMigration``) keep their projects, and every
/// key, token and session works against the target as against the file.
///
/// - Checked before anything is written: every project the target holds is the source's (same
///   id, name and creation time), and the target's salt is the source's or has digested nothing
///   yet. Otherwise the target holds another deployment's metadata: the run is refused
///   (``ServerError`` `conflict`), nothing merged.
/// - In transactions: the salt, then each chunk of each table, then the identities' sequences
///   and the mark of a finished copy, each in one transaction.
/// - Resumable and idempotent: a row the target already holds alike is skipped, so a run after
///   an interruption copies the rest; a row it holds with other values is refused (`conflict`,
///   naming it). A finished copy is marked in the target, and a later run copies nothing (rows
///   deleted in the target since, such as a revoked key, stay deleted).
public struct MetadataMigration {
    /// Migration settings.
    public struct Configuration: Sendable {
        /// Rows copied per transaction at most. Default 500.
        public var chunkRows = 500
        /// Bytes copied per transaction at most (snapshots and their images are large); a larger
        /// row is a chunk of its own. Default 16 MiB.
        public var chunkBytes = 16 << 20
        /// Creates the default configuration.
        public init() {}
    }

    /// How far a run has come.
    public struct Progress: Sendable, Hashable {
        /// The source's metadata rows (the salt not counted).
        public var totalRows = 0
        /// Rows gone through so far in this run.
        public var copiedRows = 0
        /// Of those, rows the target did not hold.
        public var newRows = 0
        /// Of those, rows the target already held alike (an earlier, interrupted run copied them).
        public var presentRows = 0
        /// The table being copied (empty before the first and after the last).
        public var table = ""
        /// When an earlier run finished the copy into this target, in which case this run copied
        /// nothing; `nil` otherwise.
        public var finishedBefore: Timestamp?
        /// Whether every row has been copied.
        public var finished = false
        /// Creates an empty progress.
        public init() {}
    }

    /// The file copied from.
    public let source: SQLiteEventStore
    /// The store copied into.
    public let target: PostgresMetadataStore
    /// The settings.
    public var configuration: Configuration

    /// Creates a migration.
    public init(
        from source: SQLiteEventStore, to target: PostgresMetadataStore,
        configuration: Configuration = Configuration()
    ) {
        self.source = source
        self.target = target
        self.configuration = configuration
    }

    /// The `store_state` key of the target whose value is when a copy finished.
    static let finishedKey = "metadata_copied"

    /// Copies what is left to copy.
    /// - Parameter progress: called after the checks and after each chunk is committed; an error
    ///   it throws stops the run (what was committed stays).
    /// - Returns: the final progress.
    /// - Throws: ``ServerError`` `conflict` when the target holds another deployment's metadata;
    ///   what reading and writing throw.
    @discardableResult
    public func run(progress: (Progress) throws(ServerError) -> Void = { _ in }) throws(ServerError)
        -> Progress
    {
        var state = Progress()
        let salt = try source.read { database in
            try database.prepare("SELECT salt FROM people_salt WHERE id = 1").rows([]) { $0.blob(at: 0) }
                .first ?? []
        }
        if let finished = try check(salt: salt) {
            state.finishedBefore = finished
            state.finished = true
            return state
        }
        for table in MetadataTable.all {
            state.totalRows += try source.read { database in
                Int(try database.prepare(table.countSource).rows([]) { $0.int64(at: 0) }.first ?? 0)
            }
        }
        _ = try target.transaction { connection in
            try connection.run(
                """
                INSERT INTO people_salt(id, salt) VALUES (1, $1)
                ON CONFLICT (id) DO UPDATE SET salt = excluded.salt
                """, [.bytes(salt)])
        }
        try progress(state)

        for table in MetadataTable.all {
            state.table = table.name
            var after: [PostgresValue]?
            while let chunk = try chunk(of: table, after: after) {
                let present = try target.transaction { connection in try copy(chunk, of: table, connection) }
                state.copiedRows += chunk.count
                state.presentRows += present
                state.newRows += chunk.count - present
                after = chunk.last.map { Array($0.prefix(table.keyCount)) }
                try progress(state)
            }
        }
        try finish()
        state.table = ""
        state.finished = true
        return state
    }

    /// Checks that the target holds nothing but this source's metadata.
    /// - Returns: when an earlier run finished the copy, `nil` when none did.
    private func check(salt: [UInt8]) throws(ServerError) -> Timestamp? {
        let projects = try source.projects()
        return try target.transaction { connection in
            try connection.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            let targetSalt =
                try connection.query("SELECT salt FROM people_salt WHERE id = 1") { try $0.bytes(at: 0) }
                .first ?? nil
            let finished = try connection.query(
                "SELECT value FROM store_state WHERE key = $1", [.text(Self.finishedKey)]
            ) { Timestamp(millisecondsSince1970: try $0.int64(at: 0)) }.first
            if let finished {
                guard targetSalt == salt else {
                    throw Self.refusal(
                        "it holds the metadata copied from another file on \(finished.iso8601)")
                }
                return finished
            }
            let byId = Dictionary(projects.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for held in try connection.query(
                "SELECT id, name, created_at FROM projects ORDER BY id", [],
                {
                    Project(
                        id: try $0.int64(at: 0), name: try $0.text(at: 1) ?? "", writeKey: "",
                        createdAt: Timestamp(millisecondsSince1970: try $0.int64(at: 2)))
                })
            {
                guard let own = byId[held.id] else {
                    throw Self.refusal(
                        "it holds project \(held.id) (\(held.name)), which the source does not")
                }
                guard own.name == held.name, own.createdAt == held.createdAt else {
                    throw Self.refusal(
                        "its project \(held.id) is \(held.name), created \(held.createdAt.iso8601); the source's is "
                            + "\(own.name), created \(own.createdAt.iso8601)")
                }
            }
            if targetSalt != salt {
                let digests =
                    try connection.query(
                        "SELECT (SELECT count(*) FROM deleted_ids) + (SELECT count(*) FROM person_deletions)"
                    ) { try $0.int64(at: 0) }.first ?? 0
                guard digests == 0 else {
                    throw Self.refusal("it holds \(digests) deleted people's digests made with another salt")
                }
            }
            return nil
        }
    }

    /// The next rows of `table` after the key `after` (from the start when `nil`), at most
    /// ``Configuration/chunkRows`` and about ``Configuration/chunkBytes``; `nil` when none is left.
    private func chunk(of table: MetadataTable, after: [PostgresValue]?) throws(ServerError)
        -> [[PostgresValue]]?
    {
        let rows = try source.read { database in
            let statement = try database.prepare(table.selectSource(afterKey: after != nil))
            try statement.bind(after.map(table.sourceKey) ?? [])
            var rows: [[PostgresValue]] = []
            var bytes = 0
            while rows.count < max(1, configuration.chunkRows), bytes < configuration.chunkBytes,
                try statement.step()
            {
                let row = table.columns.indices.map { table.sourceValue(statement, at: $0) }
                bytes += row.reduce(0) { total, value in
                    if case .bytes(let data) = value { return total + data.count }
                    return total + 8
                }
                rows.append(row)
            }
            return rows
        }
        return rows.isEmpty ? nil : rows
    }

    /// Inserts the rows of `chunk` the target does not hold, a few hundred per statement, and
    /// compares those it holds.
    /// - Returns: how many it held alike.
    /// - Throws: `conflict` when the target holds a row's key, or another unique value of it,
    ///   with other values.
    private func copy(_ chunk: [[PostgresValue]], of table: MetadataTable, _ connection: PostgresConnection)
        throws -> Int
    {
        // PostgreSQL binds at most 65,535 parameters per statement.
        let perStatement = max(1, 60_000 / table.columns.count)
        var present = 0
        for start in stride(from: 0, to: chunk.count, by: perStatement) {
            let rows = chunk[start..<min(chunk.count, start + perStatement)]
            let inserted = Set(
                try connection.query(table.insertTarget(count: rows.count), rows.flatMap { $0 }) { result in
                    try table.key.indices.map { try table.targetValue(result, at: $0) }
                })
            for row in rows where !inserted.contains(Array(row.prefix(table.keyCount))) {
                try compare(row, of: table, connection)
                present += 1
            }
        }
        return present
    }

    /// Compares a row with the one the target holds with its key.
    /// - Throws: `conflict` when the target holds none (another unique value of it is taken) or
    ///   another.
    private func compare(_ row: [PostgresValue], of table: MetadataTable, _ connection: PostgresConnection)
        throws
    {
        let held = try connection.query(table.selectTarget, Array(row.prefix(table.keyCount))) { result in
            try table.columns.indices.map { try table.targetValue(result, at: $0) }
        }
        guard let held = held.first else {
            throw Self.refusal(
                "another of its rows has a unique value of the source's \(table.describe(row))")
        }
        guard held == row else {
            throw Self.refusal("its \(table.describe(row)) differs from the source's")
        }
    }

    /// Moves each identity's sequence past the ids copied (and past every id SQLite ever gave
    /// out, so that a snapshot's id is never reused), tells collectors the refused ids changed,
    /// and marks the copy finished.
    private func finish() throws(ServerError) {
        var highest: [(table: String, id: Int64)] = []
        for table in MetadataTable.all where table.generatesIds {
            let id = try source.read { database in
                try database.prepare(
                    """
                    SELECT max(coalesce((SELECT max(id) FROM \(table.name)), 0),
                        coalesce((SELECT seq FROM sqlite_sequence WHERE name = '\(table.name)'), 0))
                    """
                ).rows([]) { $0.int64(at: 0) }.first ?? 0
            }
            highest.append((table.name, id))
        }
        try target.transaction { connection in
            for (table, id) in highest {
                let sequence = "pg_get_serial_sequence('\(table)', 'id')"
                try connection.query(
                    """
                    SELECT setval(\(sequence), m) FROM (
                        SELECT greatest($1::bigint, coalesce(max(id), 0),
                            coalesce(pg_sequence_last_value(\(sequence)::regclass), 0)) AS m
                        FROM \(table)) highest
                    WHERE m > 0
                    """, [.integer(id)]
                ) { _ in () }
            }
            try connection.run(
                """
                INSERT INTO store_state(key, value) VALUES ($1, 1)
                ON CONFLICT (key) DO UPDATE SET value = store_state.value + 1
                """, [.text(PostgresMetadataStore.deletionsKey)])
            try connection.run(
                "INSERT INTO store_state(key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
                [.text(Self.finishedKey), .integer(SystemClock().now().millisecondsSince1970)])
        }
    }

    /// The refusal of a target holding other metadata: `reason`, then what to do.
    private static func refusal(_ reason: String) -> ServerError {
        ServerError(
            code: .conflict,
            message:
                "the PostgreSQL database holds metadata that is not this file's (\(reason)); refusing to "
                + "merge them: copy into an empty database (CREATE DATABASE …)")
    }
}
