import FootprintSQLite
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The write-ahead log is copied into the file once it holds the pages a connection's
/// `checkpointPages` says, and the store's writer takes that from its configuration.
struct WriteAheadLogTests {
    /// `body` with a new database file whose connection has `pages`, its path, and a statement
    /// that commits a row of about 3 KB (at least one page) when run outside a transaction.
    private static func withLog<T>(
        checkpointPages pages: Int?, _ body: (SQLiteDatabase, String, () throws -> Void) throws -> T
    ) throws -> T {
        try withTemporaryDatabase("wal") { path in
            var options = SQLiteDatabase.Options()
            options.checkpointPages = pages
            let database = try SQLiteDatabase(path: path, options: options)
            try database.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, value BLOB NOT NULL)")
            let insert = try database.prepare("INSERT INTO t(value) VALUES (?1)")
            let row = SQLiteValue.blob(Array(repeating: 7, count: 3_000))
            return try body(database, path) { try insert.run([row]) }
        }
    }

    /// The frames the log holds after `commits` commits of one row each.
    private static func framesAfter(commits: Int, checkpointPages pages: Int?) throws -> Int64 {
        try withLog(checkpointPages: pages) { database, _, addRow in
            for _ in 0..<commits { try addRow() }
            // (busy, frames in the log, frames checkpointed): the log's size before this call.
            return try database.prepare("PRAGMA wal_checkpoint(PASSIVE)").rows { $0.int64(at: 1) }.first ?? -1
        }
    }

    @Test func theLogIsCopiedIntoTheFileOnceItHoldsTheConfiguredPages() throws {
        let small = try Self.framesAfter(commits: 300, checkpointPages: 40)
        #expect(small > 0)
        #expect(small <= 40 + 8, "copied once past 40 pages; one commit adds a few")
        let large = try Self.framesAfter(commits: 300, checkpointPages: 5_000)
        #expect(large >= 300, "each commit appends its pages until 5,000 are held")
        let sqlites = try Self.framesAfter(commits: 1_300, checkpointPages: nil)
        #expect(sqlites <= 1_000 + 8, "without the option, SQLite's own 1,000")
    }

    /// The log file's size after one commit of about 300 pages and then 60 small ones.
    private static func logBytesAfterALargeCommit(checkpointPages pages: Int?) throws -> Int {
        try withLog(checkpointPages: pages) { database, path, addRow in
            try database.transaction {
                for _ in 0..<300 { try addRow() }
            }
            for _ in 0..<60 { try addRow() }
            let attributes = try FileManager.default.attributesOfItem(atPath: path + "-wal")
            return (attributes[.size] as? NSNumber)?.intValue ?? -1
        }
    }

    @Test func theLogFileIsCutBackAfterACommitLargerThanTheCheckpointPages() throws {
        let frame = 4_096 + 24
        let cut = try Self.logBytesAfterALargeCommit(checkpointPages: 40)
        #expect(cut >= 0)
        #expect(cut <= 32 + 48 * frame, "back to about 40 pages once the log started over")
        let kept = try Self.logBytesAfterALargeCommit(checkpointPages: nil)
        #expect(kept >= 300 * frame, "SQLite's own keeps the largest size")
    }

    @Test func theStoresWriterTakesItsCheckpointPagesFromTheConfiguration() throws {
        for pages in [16_384, 123] {
            try withTemporaryDatabase("wal-store") { path in
                var configuration = SQLiteEventStore.Configuration()
                configuration.checkpointPages = pages
                let store = try SQLiteEventStore(path: path, configuration: configuration)
                defer { store.close() }
                let set = try store.requireWriter().perform { database in
                    try database.prepare("PRAGMA wal_autocheckpoint").rows { $0.int64(at: 0) }
                }
                #expect(set == [Int64(pages)])
            }
        }
        #expect(SQLiteEventStore.Configuration().checkpointPages == 16_384)
    }
}
