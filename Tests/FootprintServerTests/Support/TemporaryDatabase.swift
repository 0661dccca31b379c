import FootprintServer
import FootprintWire
import Foundation

/// Runs `body` with the path of a new SQLite file in the temporary directory, then removes the
/// file and its WAL companions.
/// - Parameter prefix: the start of the file name, to tell tests' files apart.
func withTemporaryDatabase<T>(_ prefix: String, _ body: (String) throws -> T) rethrows -> T {
    let path =
        NSTemporaryDirectory() + "\(prefix)-\(UUIDv7.make(at: Timestamp(millisecondsSince1970: 0))).sqlite"
    defer {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    return try body(path)
}

/// Runs `body` with a new store (synchronous `NORMAL`) in a temporary file and its project
/// `shop`, then closes the store and removes the file.
/// - Parameter configure: changes to the store's configuration.
func withTemporaryStore<T>(
    _ prefix: String, configure: (inout SQLiteEventStore.Configuration) -> Void = { _ in },
    _ body: (SQLiteEventStore, Project) throws -> T
) throws -> T {
    try withTemporaryDatabase(prefix) { path in
        var configuration = SQLiteEventStore.Configuration()
        configuration.synchronous = "NORMAL"
        configure(&configuration)
        let store = try SQLiteEventStore(path: path, configuration: configuration)
        defer { store.close() }
        return try body(store, try store.createProject(named: "shop"))
    }
}
