import FootprintCommandLine
import FootprintServer
import Foundation

/// `footprint migrate`: copies a SQLite database's events, identity links and lost-event
/// reports into another store, in chunks, with a progress line; resumable and idempotent
/// (``StoreMigration``).
enum MigrateCommand: Command {
    static let name = "migrate"
    static let summary = "copy a SQLite database's events into ClickHouse"
    static let usage = """
        footprint migrate --from PATH --to STORE [--chunk N] [--quiet]
          --from   the SQLite database to copy (PATH or sqlite:PATH). Stop the server on it first: it is
                   refused while one runs. The file stays the metadata file (projects, keys, configs,
                   definitions, tokens) and records the store: serve it with --store STORE --db PATH
          --to     the store to copy into: clickhouse://[USER[:PASSWORD]@]HOST:PORT/DATABASE[?cluster=NAME&shards=…]
          --chunk  events per chunk (default 10000); the copy resumes after the last whole chunk
          --quiet  no progress line, only the summary
        Running it again copies only what is new; nothing is stored twice.
        """

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(arguments, options: ["from", "to", "chunk"], flags: ["quiet"])
        guard let sourcePath = try StoreAccess.sqlitePath(parsed, option: "from"),
            let to = parsed.options["to"]
        else {
            throw UsageError(.missingValue, description: "--from and --to are required\n\n\(usage)")
        }
        let location = try StoreAccess.location(to, option: "to")
        guard let clickHouse = location.clickHouse else {
            throw UsageError(description: "--to must be clickhouse://HOST:PORT/DATABASE, not \(location)")
        }
        let source = try StoreAccess.open(sourcePath, existing: true)
        defer { source.close() }
        // Held as the collectors hold it: no SQLite server may take events into the file meanwhile.
        let lock = try StoreLock(databasePath: sourcePath, mode: .shared)
        defer { lock.release() }
        // The source stays the metadata file: the store's projects are the source's.
        let target = try ClickHouseEventStore(location: clickHouse, metadata: source)
        let targetName = clickHouse.description
        defer { target.close() }
        var configuration = StoreMigration.Configuration()
        configuration.chunkSize = try parsed.integer(
            "chunk", default: configuration.chunkSize, in: 1...1_000_000)
        let migration = StoreMigration(
            from: source, to: target, targetName: targetName, configuration: configuration)
        let quiet = parsed.flags.contains("quiet")
        let started = Date()
        // On a terminal the progress line is rewritten in place; in a log, one line per chunk.
        let terminal = isatty(STDOUT_FILENO) != 0
        let result = try migration.run { progress in
            guard !quiet else { return }
            let percent = progress.totalEvents > 0 ? 100 * progress.copiedEvents / progress.totalEvents : 100
            let seconds = max(0.001, Date().timeIntervalSince(started))
            print(
                (terminal ? "\r" : "")
                    + "copied \(progress.copiedEvents) of \(progress.totalEvents) events (\(percent)%), "
                    + "\(progress.storedEvents) new, \(progress.duplicateEvents) already there, "
                    + String(format: "%.0f events/s", Double(progress.copiedEvents) / seconds),
                terminator: terminal ? "" : "\n")
            fflush(nil)
        }
        if !quiet, terminal { print() }
        let resumed = result.startedAfter > 0 ? " (resumed after event \(result.startedAfter))" : ""
        print(
            "Migrated \(sourcePath) to \(targetName)\(resumed): \(result.copiedEvents) events copied, "
                + "\(result.storedEvents) new, \(result.duplicateEvents) already there, "
                + "\(result.refusedEvents) refused (deleted people), \(result.identityLinks) identity links, "
                + "\(result.lostEventReports) lost-event reports, "
                + String(format: "in %.1f s", Date().timeIntervalSince(started)))
    }
}
