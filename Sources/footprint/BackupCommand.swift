import FootprintCommandLine
import FootprintServer
import FootprintWire
import Foundation

/// `footprint backup`: copies a database, live or not, to a new file (SQLite's online backup),
/// checks the copy, and prints what it holds. Restoring is replacing the file while no server
/// runs (docs/OPERATIONS.md). PostgreSQL metadata and ClickHouse events are backed up with their
/// own tools: `--meta` and `--store` are refused, saying which.
enum BackupCommand: Command {
    static let name = "backup"
    static let summary = "copy a database, also while the server runs"
    static let usage = """
        footprint backup --to FILE [--db PATH] [--json]
          --to    the copy to write; must not exist (written as FILE.partial, renamed when checked)
          --db    the database to copy (PATH or sqlite:PATH; default footprint.sqlite); a running server
                  keeps ingesting
          --json  print the copy's size, pages and events as JSON
          --meta  refused: a ClickHouse deployment's PostgreSQL metadata is backed up with pg_dump
          --store refused: its ClickHouse events with ALTER TABLE … FREEZE (docs/OPERATIONS.md)
        """

    /// Why `--meta` and `--store` are refused: the command copies one SQLite file, and each store
    /// of a ClickHouse deployment has its own consistent copy.
    static let deploymentRefusal = """
        backup copies a SQLite file (--db); back up a ClickHouse deployment with its stores' own tools: \
        the PostgreSQL metadata with pg_dump (pg_dump --format=custom --file=FILE URL), the events \
        with ALTER TABLE … FREEZE on one replica of each shard (docs/OPERATIONS.md, Backup)
        """

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(
            arguments, options: ["db", "meta", "store", "to"], flags: ["json"])
        if let option = ["meta", "store"].first(where: { parsed.options[$0] != nil }) {
            throw UsageError(description: "--\(option): \(deploymentRefusal)")
        }
        guard let destination = try StoreAccess.sqlitePath(parsed, option: "to") else {
            throw UsageError(.missingValue, description: "--to FILE is required\n\n\(usage)")
        }
        let source = try StoreAccess.databasePath(parsed)
        let started = Date()
        // A copy that takes over 2 s tells how far it is on standard error, at most once a second.
        var throttle = ProgressThrottle(start: ProcessInfo.processInfo.systemUptime)
        let summary = try DatabaseBackup.copy(databasePath: source, to: destination) { progress in
            guard throttle.shouldShow(at: ProcessInfo.processInfo.systemUptime) else { return }
            let copied = progress.totalPages - progress.remainingPages
            Output.error("  copied \(copied.grouped) of \(progress.totalPages.grouped) pages")
        }
        if parsed.flags.contains("json") {
            try Output.json(
                Result(file: destination, bytes: summary.bytes, pages: summary.pages, events: summary.events))
        } else {
            print(
                "Backed up \(source) to \(destination): \(summary.events) events, \(summary.bytes) bytes, "
                    + String(format: "checked, in %.1f s", Date().timeIntervalSince(started)))
        }
    }

    private struct Result: Encodable {
        var file: String
        var bytes: Int64
        var pages: Int
        var events: Int
    }
}
