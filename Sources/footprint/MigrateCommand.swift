import FootprintServer
import Foundation

/// `footprint migrate`: copies a SQLite database's events, identity links and lost-event
/// reports into another store, in chunks, with a progress line; resumable and idempotent
/// (``StoreMigration``).
enum MigrateCommand {
    static let usage = """
        footprint migrate --from sqlite:PATH --to STORE [--chunk N] [--quiet]
          --from   the SQLite database to copy (it stays the metadata file: projects, keys, configs,
                   definitions, tokens; serve the target with --store STORE --db PATH)
          --to     the store to copy into: clickhouse://[USER[:PASSWORD]@]HOST:PORT/DATABASE[?cluster=NAME&shards=…]
          --chunk  events per chunk (default 10000); the copy resumes after the last whole chunk
          --quiet  no progress line, only the summary
        Running it again copies only what is new; nothing is stored twice.
        """

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(arguments, options: ["from", "to", "chunk"], flags: ["quiet"])
        guard parsed.positional.isEmpty, let from = parsed.options["from"], let to = parsed.options["to"]
        else {
            throw CommandLineArguments.UsageError(description: "--from and --to are required\n\n\(usage)")
        }
        guard from.hasPrefix("sqlite:"), from.count > "sqlite:".count else {
            throw CommandLineArguments.UsageError(description: "--from must be sqlite:PATH")
        }
        let sourcePath = String(from.dropFirst("sqlite:".count))
        let source = try StoreAccess.open(sourcePath, existing: true)
        defer { source.close() }
        let (target, targetName) = try openTarget(to, sourcePath: sourcePath)
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

    /// The target store and the name the source's cursor keeps for it.
    static func openTarget(_ text: String, sourcePath: String) throws -> (any EventStore, String) {
        guard ClickHouseLocation.isURL(text) else {
            throw CommandLineArguments.UsageError(
                description: "--to must be clickhouse://HOST:PORT/DATABASE, not \(text)")
        }
        let location: ClickHouseLocation
        do {
            location = try ClickHouseLocation(url: text, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw CommandLineArguments.UsageError(description: "--to: \(error.message)")
        }
        // The source stays the metadata file: the store's projects are the source's.
        return (try ClickHouseEventStore(location: location, metadataPath: sourcePath), location.description)
    }
}
