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
