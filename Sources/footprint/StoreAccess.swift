import FootprintCommandLine
import FootprintServer
import Foundation

/// How commands name and open stores, and pick the project they work on. Every store a
/// command takes is read by ``StoreLocation``: `--db PATH` or `--db sqlite:PATH` for the
/// SQLite file, `--store clickhouse://…` (or `sqlite:PATH`, the `--db` file itself) for where
/// the events are.
enum StoreAccess {
    /// The database file used when `--db` is not given.
    static let defaultPath = "footprint.sqlite"

    /// The store `text` names, or a usage error naming `option`.
    static func location(_ text: String, option: String) throws(UsageError) -> StoreLocation {
        do {
            return try StoreLocation(text, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw UsageError(description: "--\(option): \(error.message)")
        }
    }

    /// The SQLite file an option names (`PATH` or `sqlite:PATH`), `nil` when it is not given.
    static func sqlitePath(_ parsed: CommandLineArguments, option: String) throws(UsageError) -> String? {
        guard let text = parsed.options[option] else { return nil }
        let location = try location(text, option: option)
        guard let path = location.sqlitePath else {
            throw UsageError(
                description: "--\(option) names the SQLite file (PATH or sqlite:PATH), not \(location); "
                    + (option == "db" ? "give ClickHouse with --store" : "this command copies SQLite files"))
        }
        return path
    }

    /// The SQLite file of `--db` (default ``defaultPath``).
    static func databasePath(_ parsed: CommandLineArguments) throws(UsageError) -> String {
        try sqlitePath(parsed, option: "db") ?? defaultPath
    }

    /// The SQLite file of `--db` and, with `--store clickhouse://…`, where the events are.
    /// `--store sqlite:PATH` names the `--db` file itself (it may stand for it).
    static func stores(_ parsed: CommandLineArguments) throws(UsageError) -> (
        databasePath: String, clickHouse: ClickHouseLocation?
    ) {
        let database = try sqlitePath(parsed, option: "db")
        guard let text = parsed.options["store"] else { return (database ?? defaultPath, nil) }
        switch try location(text, option: "store") {
        case .clickHouse(let location):
            return (database ?? defaultPath, location)
        case .postgres(let location):
            throw UsageError(
                description:
                    "--store \(location): PostgreSQL keeps only metadata; give the events as clickhouse://…")
        case .sqlite(let path):
            if let database, database != path {
                throw UsageError(
                    description: "--store sqlite:\(path) and --db \(database) differ: a SQLite store keeps "
                        + "its events with its projects, in one file")
            }
            return (path, nil)
        }
    }

    /// The PostgreSQL database of `--meta`, `nil` when it is not given.
    /// - Throws: ``UsageError`` when it is not `postgres://…`, or given with `--db` or without
    ///   `--store clickhouse://…` (a SQLite store keeps its metadata in its file).
    static func metadataLocation(_ parsed: CommandLineArguments, clickHouse: ClickHouseLocation?)
        throws(UsageError) -> PostgresLocation?
    {
        guard let location = try postgresLocation(parsed) else { return nil }
        guard clickHouse != nil else {
            throw UsageError(
                description:
                    "--meta \(location) needs --store clickhouse://… (a SQLite store keeps its metadata "
                    + "in its --db file)")
        }
        guard parsed.options["db"] == nil else {
            throw UsageError(description: "--meta and --db both name the metadata: give one")
        }
        return location
    }

    /// Opens the store at `path` (default ``defaultPath``) for its projects, keys, tokens and
    /// configs: a ClickHouse store's metadata file too.
    /// - Parameters:
    ///   - existing: fail when the file does not exist, instead of creating it.
    ///   - readOnly: open without a writer (safe beside a running server).
    static func open(_ path: String?, existing: Bool, readOnly: Bool = false) throws -> SQLiteEventStore {
        let path = path ?? defaultPath
        if existing { try requireExisting(path) }
        return try SQLiteEventStore(path: path, configuration: configuration(readOnly: readOnly))
    }

    /// Opens the metadata `--meta` names (PostgreSQL), else the existing SQLite file of `--db`
    /// (default ``defaultPath``), for the commands that manage only metadata.
    /// - Throws: ``UsageError`` when both are given, or `--meta` is not `postgres://…`.
    /// - Parameter readOnly: open a SQLite file without a writer (safe beside a running server).
    static func openMetadata(_ parsed: CommandLineArguments, readOnly: Bool = false) throws
        -> any MetadataStore
    {
        guard let location = try postgresLocation(parsed) else {
            return try open(databasePath(parsed), existing: true, readOnly: readOnly)
        }
        guard parsed.options["db"] == nil else {
            throw UsageError(description: "--meta and --db both name the metadata: give one")
        }
        return try PostgresMetadataStore(location: location)
    }

    /// The PostgreSQL database `--meta` names, `nil` when it is not given.
    /// - Throws: ``UsageError`` when it is not `postgres://…`.
    static func postgresLocation(_ parsed: CommandLineArguments) throws(UsageError) -> PostgresLocation? {
        guard let text = parsed.options["meta"] else { return nil }
        guard let location = try location(text, option: "meta").postgres else {
            throw UsageError(description: "--meta names PostgreSQL: postgres://USER@HOST:PORT/DATABASE")
        }
        return location
    }

    /// Opens the stores of `--db` (or `--meta`) and `--store` (``Stores/open(metadata:events:options:)``):
    /// the events in ClickHouse with `--store`, else in the file, which must then exist and keep
    /// its own events (a ClickHouse store's metadata file is refused, naming the store to give
    /// with `--store`); the metadata in PostgreSQL with `--meta` (which needs `--store`).
    static func openStores(_ parsed: CommandLineArguments, readOnly: Bool = false) throws -> Stores {
        let (path, clickHouse) = try stores(parsed)
        var options = Stores.Options()
        options.sqlite = configuration(readOnly: readOnly)
        if let postgres = try metadataLocation(parsed, clickHouse: clickHouse), let clickHouse {
            return try Stores.open(
                metadata: .postgres(postgres), events: .clickHouse(clickHouse), options: options)
        }
        try requireExisting(path)
        return try Stores.open(
            metadata: .sqlite(path: path), events: clickHouse.map { .clickHouse($0) }, options: options)
    }

    /// Refuses a database file that does not exist, its folder missing or not (there is nothing
    /// to read either way); a folder at `path` is named by the store's own refusal.
    private static func requireExisting(_ path: String) throws(UsageError) {
        guard !FileManager.default.fileExists(atPath: path) else { return }
        throw UsageError(description: "no database at \(path); start one with footprint serve --db \(path)")
    }

    private static func configuration(readOnly: Bool) -> SQLiteEventStore.Configuration {
        var configuration = SQLiteEventStore.Configuration()
        configuration.readOnly = readOnly
        return configuration
    }

    /// The project called `name`, or the first project when `name` is `nil`.
    static func project(named name: String?, in store: any MetadataStore) throws -> Project {
        if let name {
            guard let project = try store.project(named: name) else {
                throw UsageError(description: "no project named \(name)")
            }
            return project
        }
        guard let first = try store.projects().first else {
            throw UsageError(
                description: "the database has no project; run footprint serve or footprint projects create")
        }
        return first
    }
}
