import FootprintSQLite
import Foundation

/// `footprint backup`: a consistent copy of a live database, made with SQLite's online backup
/// while a server keeps writing to it, then checked.
public enum DatabaseBackup {
    /// What a finished backup holds.
    public struct Summary: Sendable, Hashable {
        /// The copy's size in bytes.
        public var bytes: Int64
        /// Its pages.
        public var pages: Int
        /// The events it holds, every project together.
        public var events: Int
    }

    /// Copies the database at `databasePath` to the new file `path`.
    ///
    /// The copy is written beside `path` as `path.partial`, checked with SQLite's `quick_check`,
    /// and only then renamed to `path`, so `path` never names a half-written copy.
    /// - Parameters:
    ///   - databasePath: the database; a server may be writing it.
    ///   - path: where the copy goes; must not exist.
    ///   - pagesPerStep: pages copied per step (default 1,024).
    ///   - progress: called after each step with the pages still to copy and the total.
    /// - Throws: ``ServerError`` with code `storage` naming what failed.
    public static func copy(
        databasePath: String, to path: String, pagesPerStep: Int32 = 1024,
        progress: (SQLiteDatabase.BackupProgress) -> Void = { _ in }
    ) throws(ServerError) -> Summary {
        let files = FileManager.default
        guard files.fileExists(atPath: databasePath) else {
            throw ServerError(code: .storage, message: "no database at \(databasePath)")
        }
        guard !files.fileExists(atPath: path) else {
            throw ServerError(code: .storage, message: "\(path) exists; back up to a new file")
        }
        let partial = path + ".partial"
        try? files.removeItem(atPath: partial)
        do {
            var options = SQLiteDatabase.Options()
            options.readOnly = true
            try SQLiteDatabase(path: databasePath, options: options).backup(
                to: partial, pagesPerStep: pagesPerStep, progress: progress)
            let (pages, events) = try check(partial)
            let size = try? files.attributesOfItem(atPath: partial)[.size] as? NSNumber
            try files.moveItem(atPath: partial, toPath: path)
            return Summary(bytes: size?.int64Value ?? 0, pages: pages, events: events)
        } catch {
            try? files.removeItem(atPath: partial)
            if let error = error as? ServerError { throw error }
            throw ServerError(code: .storage, message: "cannot back up \(databasePath) to \(path): \(error)")
        }
    }

    /// Checks the copy at `path` (`quick_check`) and counts its pages and events; the
    /// connection is closed on return.
    private static func check(_ path: String) throws -> (pages: Int, events: Int) {
        let copy = try SQLiteDatabase(path: path)
        let check = try copy.prepare("PRAGMA quick_check").rows([]) { $0.text(at: 0) ?? "" }
        guard check == ["ok"] else {
            throw ServerError(
                code: .storage,
                message: "the copy failed its check: \(check.prefix(5).joined(separator: "; "))")
        }
        let pages = try copy.prepare("PRAGMA page_count").rows([]) { Int($0.int64(at: 0)) }.first ?? 0
        let events =
            try copy.prepare("SELECT count(*) FROM events").rows([]) { Int($0.int64(at: 0)) }.first ?? 0
        return (pages, events)
    }
}
