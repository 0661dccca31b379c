import FootprintCommandLine
import FootprintServer
import Foundation

/// `footprint migrate`: copies a SQLite database's events, identity links and lost-event
/// reports into ClickHouse (``StoreMigration``) and its metadata into PostgreSQL
/// (``MetadataMigration``), each with a progress line; resumable and idempotent.
enum MigrateCommand: Command {
    static let name = "migrate"
    static let summary = "copy a SQLite database's events into ClickHouse, its metadata into PostgreSQL"
    static let usage = """
        footprint migrate --from PATH [--to STORE] [--meta URL] [--chunk N] [--quiet]
          --from   the SQLite database to copy (PATH or sqlite:PATH). Stop the server on it first: it is
                   refused while one runs (with --meta, the ClickHouse collectors on it too)
          --to     copy its events into clickhouse://[USER[:PASSWORD]@]HOST:PORT/DATABASE[?cluster=NAME&shards=…].
                   Without --meta the file stays the metadata file (projects, keys, configs, definitions,
                   tokens) and records the store: serve it with --store STORE --db PATH
          --meta   copy its metadata into postgres://USER[:PASSWORD]@HOST:PORT/DATABASE: projects, write keys,
                   configs, definitions, retention, read tokens and dashboard sessions (as their hashes),
                   connect sessions, snapshots, the deletion log; ids, keys and tokens unchanged. Serve it
                   with --store STORE --meta URL, no file needed. A database holding other projects is refused
          --chunk  events per chunk (default 100000); the copy resumes after the last whole chunk
          --quiet  no progress line, only the summary
        Give --to, --meta or both (the events are copied first). Running it again copies only what is
        new, and nothing is stored twice; a finished metadata copy is not repeated.
        """

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(
            arguments, options: ["from", "to", "meta", "chunk"], flags: ["quiet"])
        guard let sourcePath = try StoreAccess.sqlitePath(parsed, option: "from"),
            parsed.options["to"] != nil || parsed.options["meta"] != nil
        else {
            throw UsageError(.missingValue, description: "--from and --to or --meta are required\n\n\(usage)")
        }
        var clickHouse: ClickHouseLocation?
        if let to = parsed.options["to"] {
            let location = try StoreAccess.location(to, option: "to")
            guard let events = location.clickHouse else {
                throw UsageError(
                    description: "--to must be clickhouse://HOST:PORT/DATABASE, not \(location)"
                        + (location.postgres != nil ? " (PostgreSQL takes the metadata: --meta)" : ""))
            }
            clickHouse = events
        }
        let postgres = try StoreAccess.postgresLocation(parsed)
        let chunk = try parsed.integer(
            "chunk", default: StoreMigration.Configuration().chunkSize, in: 1...1_000_000)
        let source = try StoreAccess.open(sourcePath, existing: true)
        defer { source.close() }
        // Held as the collectors hold it: no SQLite server may take events into the file meanwhile;
        // copying the metadata, no collector may change it either.
        let lock = try StoreLock(databasePath: sourcePath, mode: postgres == nil ? .shared : .exclusive)
        defer { lock.release() }
        let progress = ProgressLine(quiet: parsed.flags.contains("quiet"))
        if let clickHouse {
            try copyEvents(from: source, path: sourcePath, to: clickHouse, chunk: chunk, progress: progress)
        }
        if let postgres {
            try copyMetadata(from: source, path: sourcePath, to: postgres, progress: progress)
        }
    }

    private static func copyEvents(
        from source: SQLiteEventStore, path: String, to clickHouse: ClickHouseLocation, chunk: Int,
        progress line: ProgressLine
    ) throws {
        // The source stays the metadata file: the store's projects are the source's.
        let target = try ClickHouseEventStore(location: clickHouse, metadata: source)
        let targetName = clickHouse.description
        defer { target.close() }
        var configuration = StoreMigration.Configuration()
        configuration.chunkSize = chunk
        let migration = StoreMigration(
            from: source, to: target, targetName: targetName, configuration: configuration)
        let started = Date()
        let result = try migration.run { progress in
            let percent = progress.totalEvents > 0 ? 100 * progress.copiedEvents / progress.totalEvents : 100
            let seconds = max(0.001, Date().timeIntervalSince(started))
            line.show(
                "copied \(progress.copiedEvents) of \(progress.totalEvents) events (\(percent)%), "
                    + "\(progress.storedEvents) new, \(progress.duplicateEvents) already there, "
                    + String(format: "%.0f events/s", Double(progress.copiedEvents) / seconds))
        }
        line.end()
        let resumed = result.startedAfter > 0 ? " (resumed after event \(result.startedAfter))" : ""
        print(
            "Migrated \(path) to \(targetName)\(resumed): \(result.copiedEvents) events copied, "
                + "\(result.storedEvents) new, \(result.duplicateEvents) already there, "
                + "\(result.refusedEvents) refused (deleted people), \(result.identityLinks) identity links, "
                + "\(result.lostEventReports) lost-event reports, "
                + String(format: "in %.1f s", Date().timeIntervalSince(started)))
    }

    private static func copyMetadata(
        from source: SQLiteEventStore, path: String, to postgres: PostgresLocation,
        progress line: ProgressLine
    ) throws {
        let target = try PostgresMetadataStore(location: postgres)
        defer { target.close() }
        let started = Date()
        let result = try MetadataMigration(from: source, to: target).run { progress in
            let percent = progress.totalRows > 0 ? 100 * progress.copiedRows / progress.totalRows : 100
            line.show(
                "copied \(progress.copiedRows) of \(progress.totalRows) metadata rows (\(percent)%), "
                    + "\(progress.newRows) new, \(progress.presentRows) already there"
                    + (progress.table.isEmpty ? "" : " (\(progress.table))"))
        }
        line.end()
        if let finished = result.finishedBefore {
            print("The metadata of \(path) was copied to \(postgres) on \(finished.iso8601); nothing to copy")
            return
        }
        print(
            "Copied the metadata of \(path) to \(postgres): \(result.copiedRows) rows, \(result.newRows) new, "
                + "\(result.presentRows) already there, "
                + String(format: "in %.1f s", Date().timeIntervalSince(started)))
    }

    /// The progress line: on a terminal rewritten in place; in a log, one line per update.
    private struct ProgressLine {
        var quiet: Bool
        let terminal = isatty(STDOUT_FILENO) != 0

        func show(_ text: String) {
            guard !quiet else { return }
            print((terminal ? "\r" : "") + text, terminator: terminal ? "" : "\n")
            fflush(nil)
        }

        /// Ends a line rewritten in place.
        func end() {
            if !quiet, terminal { print() }
        }
    }
}
