import Dispatch
import FootprintSQLite
import FootprintWire
import Foundation

/// The embedded store: one SQLite file in WAL mode.
///
/// Writes go through one ``GroupCommitWriter`` (one connection, many requests per
/// transaction); reads use a small pool of other connections, so they never block the writer.
public final class SQLiteEventStore: EventStore, MetadataStore, MetadataLedger {
    /// Store settings.
    public struct Configuration: Sendable {
        /// `PRAGMA synchronous` of the writer: `FULL` (default; each commit is fsynced, so an
        /// answered request survives a power loss) or `NORMAL` (survives a crash of the process).
        public var synchronous = "FULL"
        /// The most idle read connections kept open. Default 4.
        public var readerPoolSize = 4
        /// Open for reading only (reports on a database another process writes): no writer, no
        /// migrations, and writes fail with `closed`. Default `false`.
        public var readOnly = false
        /// The most events one report reads into memory; a range holding more is refused with
        /// `invalidQuery` (narrow it) instead of exhausting memory. Default 5,000,000.
        public var maximumReportEvents = 5_000_000
        /// The longest a group commit waits, in seconds, for the batches whose decoding is under
        /// way when it is about to start, so that a few clients each waiting for their answer
        /// share one commit. A lone request (nothing else being decoded) never waits. Default
        /// 0.003 (3 ms); 0 never waits.
        public var commitLinger = 0.003
        /// Count people (UV, DAU/WAU/MAU, retention, people per event and element) from the
        /// per-day sets of person numbers (`person_sets`) when a report's filter names no app
        /// version, OS or page; `false` reads the person rows for every report, as before the
        /// sets (the benchmarks time both). Default `true`.
        public var countsPeopleFromSets = true
        /// How long the cached write keys answer before the store checks whether they changed
        /// (another process revoked one), in seconds (0: at every lookup). Default 1.
        public var cacheSeconds = 1.0
        /// The writer's WAL is copied into the file once it holds this many 4 KiB pages
        /// (`PRAGMA wal_autocheckpoint`; SQLite's own is 1,000). Each commit appends every page it
        /// changed to the log, and the rollups' pages are changed by nearly every commit: with a
        /// longer log a page changed by many commits is copied into the file once, not once per
        /// commit (docs/BENCHMARKS.md, *Loading: fewer, larger commits*). The log file is cut
        /// back to this many pages when it starts over after a commit larger than that grew it.
        /// Default 16,384 (64 MiB).
        public var checkpointPages = 16_384
        /// Creates the default configuration.
        public init() {}
    }

    /// The database file.
    public let path: String
    let configuration: Configuration
    /// `nil` when opened read-only.
    private let writer: GroupCommitWriter?
    private let readers: SQLiteReaders
    /// The write keys, confirmed by polling the file's metadata revision.
    let cache: MetadataCache

    /// Opens (creating and migrating when needed) the database at `path`.
    public init(path: String, configuration: Configuration = Configuration()) throws(ServerError) {
        self.path = path
        self.configuration = configuration
        let readers = SQLiteReaders(path: path, keptIdle: configuration.readerPoolSize)
        self.readers = readers
        cache = MetadataCache(
            intervalMilliseconds: Int64((max(0, configuration.cacheSeconds) * 1000).rounded()),
            clock: SystemClock()
        ) { known throws(ServerError) in try Self.readKeys(readers, known: known) }
        if let problem = Self.pathProblem(path) {
            throw ServerError(code: .storage, message: "cannot open the database \(path): \(problem)")
        }
        do {
            if configuration.readOnly {
                var options = SQLiteDatabase.Options()
                options.readOnly = true
                let database = try SQLiteDatabase(path: path, options: options)
                let version = try database.userVersion
                guard version == SQLiteSchema.migrations.count else {
                    throw ServerError(
                        code: .storage,
                        message:
                            "schema version \(version), this build reads \(SQLiteSchema.migrations.count)")
                }
                let rebuilding = try database.prepare(
                    "SELECT 1 FROM store_state WHERE key IN (?1, ?2, ?3, ?4)"
                )
                .rows([
                    .text(SQLiteSchema.rebuildKey), .text(SQLiteSchema.timesKey),
                    .text(SQLiteSchema.labelSetsKey), .text(SQLiteSchema.personSetsKey),
                ]) { _ in true }
                guard rebuilding.isEmpty else {
                    throw ServerError(
                        code: .storage,
                        message:
                            "its rollups are still being built from its events (after an upgrade); reports would be incomplete. Open it for writing once (footprint serve) and let it finish"
                    )
                }
                readers.add(database)
                writer = nil
            } else {
                var options = SQLiteDatabase.Options()
                options.synchronous = configuration.synchronous
                // The writer's cache: 64 MiB instead of SQLite's 2 MiB. Each commit touches pages
                // of the events' indexes and of every aggregate; with the small cache it read many
                // of them back from the file each time (`footprint generate` of 300,000 events:
                // 8,600–11,200 events/s with 2 MiB, 12,000–12,600 with 64 MiB; docs/BENCHMARKS.md).
                options.cacheKibibytes = 65_536
                options.checkpointPages = configuration.checkpointPages
                let database = try SQLiteDatabase(path: path, options: options)
                try database.migrate(SQLiteSchema.migrations)
                let writer = try GroupCommitWriter(database: database, linger: configuration.commitLinger)
                try writer.rebuildRollups()
                try writer.fillRollupTimes()
                try writer.fillPersonSets()
                try writer.compressStoredPayloads()
                try writer.buildMergesIfDue()
                self.writer = writer
            }
        } catch let error as ServerError {
            throw ServerError(code: error.code, message: "cannot open the database \(path): \(error.message)")
        } catch {
            throw ServerError(code: .storage, message: "cannot open the database \(path): \(error)")
        }
    }

    deinit {
        writer?.close()
    }

    /// What keeps `path` from being a database file, said for people, or `nil`: a folder there,
    /// or no folder to hold it (SQLite says only "unable to open database file" of both).
    public static func pathProblem(_ path: String) -> String? {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            guard isFolder.boolValue else { return nil }
            return
                "\(path) is a folder; name a file in it, such as \((path as NSString).appendingPathComponent("footprint.sqlite"))"
        }
        let folder = (path as NSString).deletingLastPathComponent
        guard !folder.isEmpty else { return nil }
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            return "the folder \(folder) does not exist; create it first"
        }
        return isFolder.boolValue ? nil : "\(folder) is a file, not a folder"
    }

    /// The writer, or a `closed` error for a read-only store.
    func requireWriter() throws(ServerError) -> GroupCommitWriter {
        guard let writer else { throw ServerError(code: .closed, message: "the store is open read-only") }
        return writer
    }

    /// Batches waiting for the next group commit (0 for a read-only store).
    public var queuedWrites: Int { writer?.queuedWrites ?? 0 }

    /// Groups of batches the writer has committed (or failed) so far.
    var groupsCommitted: Int { writer?.groupsCommitted ?? 0 }

    /// Whether the writer's next group is waiting for batches being prepared.
    var writerIsLingering: Bool { writer?.isLingering ?? false }

    /// Runs `body` while the writer counts one batch as being prepared, so that a group commit
    /// about to start waits for it (at most ``Configuration/commitLinger``).
    public func preparingWrite<T>(_ body: () throws -> T) rethrows -> T {
        guard let writer else { return try body() }
        return try writer.preparingWrite(body)
    }

    public func write(_ batch: IngestBatch) throws(ServerError) -> WriteOutcome {
        try requireWriter().write(batch)
    }

    public func write(
        _ batch: IngestBatch, completion: @escaping @Sendable (Result<WriteOutcome, ServerError>) -> Void
    ) {
        do {
            try requireWriter().write(batch, completion: completion)
        } catch {
            completion(.failure(error))
        }
    }

    /// From the cache (``Configuration/cacheSeconds``).
    public func project(writeKey: String) throws(ServerError) -> Project? {
        // No key holds a NUL (keys are made by the server); one that does is unknown.
        guard !writeKey.utf8.contains(0) else { return nil }
        return try cache.project(writeKey: writeKey)
    }

    public func project(named name: String) throws(ServerError) -> Project? {
        try read { database in
            try database.prepare(Self.selectProjects + " WHERE p.name = ?1").rows(
                [.text(name)], { try $0.project() }
            )
            .first
        }
    }

    public func createProject(named name: String) throws(ServerError) -> Project {
        let trimmed = try MetadataRules.projectName(name)
        let now = SystemClock().now()
        let key = Project.makeWriteKey()
        defer { cache.invalidate() }
        return try requireWriter().perform { database in
            try database.transaction {
                let existing = try database.prepare("SELECT 1 FROM projects WHERE name = ?1").rows([
                    .text(trimmed)
                ]) {
                    _ in true
                }
                if !existing.isEmpty {
                    throw MetadataRules.projectNameTaken(trimmed)
                }
                try database.prepare("INSERT INTO projects(name, created_at) VALUES (?1, ?2)").run([
                    .text(trimmed), .integer(now.millisecondsSince1970),
                ])
                let id = database.lastInsertRowID
                try database.prepare(
                    "INSERT INTO write_keys(key, project_id, created_at) VALUES (?1, ?2, ?3)"
                ).run([
                    .text(key), .integer(id), .integer(now.millisecondsSince1970),
                ])
                return Project(id: id, name: trimmed, writeKey: key, createdAt: now)
            }
        }
    }

    public func projects() throws(ServerError) -> [Project] {
        try read { database in
            try database.prepare(Self.selectProjects + " ORDER BY p.id").rows([], { try $0.project() })
        }
    }

    public func storeConfig(projectId: Int64, document: String, at time: Timestamp) throws(ServerError)
        -> RemoteConfigVersion
    {
        try requireWriter().perform { database in
            try database.transaction {
                let latest =
                    try database.prepare(
                        "SELECT max(version) FROM config_versions WHERE project_id = ?1"
                    ).rows([.integer(projectId)]) { $0.isNull(at: 0) ? nil : $0.int64(at: 0) }.first ?? nil
                let config = RemoteConfigVersion(
                    version: (latest ?? 0) + 1, document: document, publishedAt: time)
                try database.prepare(
                    "INSERT INTO config_versions(project_id, version, document, published_at) VALUES (?1, ?2, ?3, ?4)"
                ).run([
                    .integer(projectId), .integer(config.version), .text(config.document),
                    .integer(config.publishedAt.millisecondsSince1970),
                ])
                return config
            }
        }
    }

    public func latestConfig(projectId: Int64) throws(ServerError) -> RemoteConfigVersion? {
        try read { database in
            try database.prepare(
                """
                SELECT version, document, published_at FROM config_versions WHERE project_id = ?1
                ORDER BY version DESC LIMIT 1
                """
            ).rows([.integer(projectId)]) { row in
                RemoteConfigVersion(
                    version: row.int64(at: 0), document: row.text(at: 1) ?? "{}",
                    publishedAt: Timestamp(millisecondsSince1970: row.int64(at: 2)))
            }.first
        }
    }

    /// Counted with the rollups in each transaction (`project_events`), not by scanning the events.
    public func eventCount(projectId: Int64) throws(ServerError) -> Int {
        try read { database in
            try database.prepare("SELECT stored FROM project_events WHERE project_id = ?1").rows([
                .integer(projectId)
            ]) {
                Int($0.int64(at: 0))
            }.first ?? 0
        }
    }

    public func close() {
        writer?.close()
        readers.close()
    }

    /// Runs `body` with a read connection from the pool (opening one when none is idle).
    func read<T>(_ body: (SQLiteDatabase) throws -> T) throws(ServerError) -> T {
        try readers.read(body)
    }

    /// How many reads one report runs at once: the machine's cores.
    static let concurrentReads = max(1, ProcessInfo.processInfo.activeProcessorCount)

    private static let selectProjects = """
        SELECT p.id, p.name, (SELECT min(k.key) FROM write_keys k WHERE k.project_id = p.id), p.created_at
        FROM projects p
        """
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines.
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) })
        else {
            return ""
        }
        return String(self[start...end])
    }
}
