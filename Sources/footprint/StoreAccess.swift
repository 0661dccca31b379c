import FootprintServer
import Foundation

/// How commands open the database and pick the project they work on.
enum StoreAccess {
    /// The database file used when `--db` is not given.
    static let defaultPath = "footprint.sqlite"

    /// Opens the store at `path` (default ``defaultPath``).
    /// - Parameters:
    ///   - existing: fail when the file does not exist, instead of creating it.
    ///   - readOnly: open without a writer (safe beside a running server).
    static func open(_ path: String?, existing: Bool, readOnly: Bool = false) throws -> SQLiteEventStore {
        let path = path ?? defaultPath
        if existing, !FileManager.default.fileExists(atPath: path) {
            throw CommandLineArguments.UsageError(
                description: "no database at \(path); start one with footprint serve --db \(path)")
        }
        var configuration = SQLiteEventStore.Configuration()
        configuration.readOnly = readOnly
        return try SQLiteEventStore(path: path, configuration: configuration)
    }

    /// The project called `name`, or the first project when `name` is `nil`.
    static func project(named name: String?, in store: any EventStore) throws -> Project {
        if let name {
            guard let project = try store.project(named: name) else {
                throw CommandLineArguments.UsageError(description: "no project named \(name)")
            }
            return project
        }
        guard let first = try store.projects().first else {
            throw CommandLineArguments.UsageError(
                description: "the database has no project; run footprint serve or footprint projects create")
        }
        return first
    }
}
