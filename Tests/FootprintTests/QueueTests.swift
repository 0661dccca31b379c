import FootprintSQLite
import Foundation
import Testing

@testable import Footprint

struct QueueTests {
    let directory = ScratchFolder()
    var path: String { directory.path + "/queue.sqlite" }

    func openQueue(
        maximumEvents: Int = 1000, maximumBytes: Int = 1 << 20, maximumDeadLetters: Int = 10,
        replaced: (String, String) -> Void = { _, _ in }
    ) throws -> EventQueue {
        try EventQueue(
            path: path,
            limits: .init(
                maximumEvents: maximumEvents, maximumBytes: maximumBytes,
                maximumDeadLetters: maximumDeadLetters),
            replaced: replaced)
    }

    func body(_ index: Int, padding: Int = 0) -> [UInt8] {
        Array(#"{"event":"e\#(index)","pad":"\#(String(repeating: "x", count: padding))"}"#.utf8)
    }

    func append(_ queue: EventQueue, _ range: Range<Int>, padding: Int = 0) throws {
        try queue.write {
            try queue.append(range.map { ("m\($0)", body($0, padding: padding)) })
            try queue.evictOverflow()
        }
    }

    @Test func keepsEventsAcrossReopening() throws {
        do {
            let queue = try openQueue()
            try append(queue, 0..<5)
        }
        let reopened = try openQueue()
        #expect(reopened.count == 5)
        let batch = try reopened.read(.oldest(limit: 10), maximumBytes: 1 << 20)
        #expect(batch.messageIds == ["m0", "m1", "m2", "m3", "m4"])
        #expect(batch.bodies[2] == body(2))
    }

    @Test(arguments: [1, 31, 32, 33, 64, 100])
    func keepsTheOrderAndBodiesOfAnyNumberAppendedAtOnce(count: Int) throws {
        let queue = try openQueue()
        try append(queue, 0..<count, padding: 7)
        #expect(queue.count == count)
        #expect(queue.bytes == (0..<count).reduce(0) { $0 + body($1, padding: 7).count })
        let batch = try queue.read(.oldest(limit: 1000), maximumBytes: 1 << 20)
        #expect(batch.messageIds == (0..<count).map { "m\($0)" })
        #expect(batch.bodies == (0..<count).map { body($0, padding: 7) })
    }

    @Test func evictsTheOldestPastTheCountBoundAndReportsHowMany() throws {
        let queue = try openQueue(maximumEvents: 10)
        try append(queue, 0..<25)
        #expect(queue.count == 10)
        let batch = try queue.read(.oldest(limit: 100), maximumBytes: 1 << 20)
        #expect(batch.messageIds == (15..<25).map { "m\($0)" })
        #expect(batch.unreportedEvictions == 15)
        // Once a batch carrying the report is delivered, the count goes back to zero.
        try queue.write {
            try queue.addUnreportedEvictions(-batch.unreportedEvictions)
            _ = try queue.apply([.delete(batch.rowIds)], now: Timestamp(millisecondsSince1970: 0))
        }
        #expect(try queue.unreportedEvictions == 0)
        #expect(queue.count == 0 && queue.bytes == 0)
    }

    @Test func evictsPastTheByteBound() throws {
        let queue = try openQueue(maximumBytes: 10_000)
        try append(queue, 0..<100, padding: 980)
        #expect(queue.bytes <= 10_000)
        #expect(queue.count == 9)
        #expect(try queue.unreportedEvictions == 91)
    }

    @Test func neverEvictsEventsInFlight() throws {
        let queue = try openQueue(maximumEvents: 10)
        try append(queue, 0..<10)
        let inFlight = try queue.read(.oldest(limit: 3), maximumBytes: 1 << 20)
        try append(queue, 10..<12)
        let after = try queue.read(.oldest(limit: 100), maximumBytes: 1 << 20)
        #expect(Array(after.messageIds.prefix(3)) == inFlight.messageIds)
        #expect(after.messageIds.dropFirst(3) == ["m5", "m6", "m7", "m8", "m9", "m10", "m11"])
    }

    @Test func batchesStopAtTheByteLimitButHoldAtLeastOneEvent() throws {
        let queue = try openQueue()
        try append(queue, 0..<10, padding: 1000)
        let size = body(0, padding: 1000).count
        #expect(try queue.read(.oldest(limit: 100), maximumBytes: 3 * size + 10).rowIds.count == 3)
        #expect(try queue.read(.oldest(limit: 100), maximumBytes: 10).rowIds.count == 1)
    }

    @Test func readsExactRows() throws {
        let queue = try openQueue()
        try append(queue, 0..<10)
        let all = try queue.read(.oldest(limit: 10), maximumBytes: 1 << 20)
        let some = try queue.read(.rows([all.rowIds[3], all.rowIds[4]]), maximumBytes: 1 << 20)
        #expect(some.messageIds == ["m3", "m4"])
    }

    @Test func deadLettersAreKeptForInspectionAndBounded() throws {
        let queue = try openQueue(maximumDeadLetters: 3)
        try append(queue, 0..<6)
        let rows = try queue.read(.oldest(limit: 10), maximumBytes: 1 << 20).rowIds
        let moved = try queue.write {
            try queue.apply(
                rows.map { .deadLetter(row: $0, reason: "bad \($0)") },
                now: Timestamp(millisecondsSince1970: 0))
        }
        #expect(moved.map(\.messageId) == (0..<6).map { "m\($0)" })
        let kept = try queue.deadLetters()
        #expect(kept.map(\.messageId) == ["m3", "m4", "m5"])
        #expect(kept[0].body == body(3))
        #expect(queue.count == 0)
    }

    @Test func aFileThatIsNotADatabaseIsMovedAsideAndReplaced() throws {
        let garbage = Array(repeating: UInt8(0x5A), count: 4096)
        _ = FileManager.default.createFile(atPath: path, contents: Data(garbage))
        var movedTo: String?
        let queue = try openQueue(replaced: { target, _ in movedTo = target })
        let target = try #require(movedTo)
        #expect(FileManager.default.contents(atPath: target) == Data(garbage))
        try append(queue, 0..<3)
        #expect(try queue.read(.oldest(limit: 10), maximumBytes: 1 << 20).rowIds.count == 3)
    }

    @Test func aDatabaseDamagedInsideIsMovedAsideAndReplaced() throws {
        do {
            let queue = try openQueue()
            try append(queue, 0..<2000, padding: 100)
            try queue.database.checkpoint()
        }
        // Overwrite pages in the middle of the file (past the header).
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seek(toFileOffset: 8192)
        handle.write(Data(repeating: 0xA5, count: 64 * 1024))
        handle.closeFile()
        var replaced = false
        let queue = try openQueue(replaced: { _, _ in replaced = true })
        #expect(replaced)
        try append(queue, 0..<3)
        #expect(queue.count == 3)
    }

    @Test func replacingADatabaseDamagedWhileRunningReportsItsEventsAsEvicted() throws {
        let queue = try openQueue()
        try append(queue, 0..<5)
        var movedTo: String?
        try queue.replaceDamaged(reason: "test", replaced: { target, _ in movedTo = target })
        #expect(FileManager.default.fileExists(atPath: try #require(movedTo)))
        #expect(queue.count == 0)
        #expect(try queue.unreportedEvictions == 5)
        try append(queue, 0..<2)
        #expect(try queue.read(.oldest(limit: 10), maximumBytes: 1 << 20).messageIds == ["m0", "m1"])
    }

    @Test func stateValuesPersist() throws {
        do {
            let queue = try openQueue()
            try queue.setState("anonymous_id", "a-1")
            try queue.setState("user_id", "u-1")
            try queue.setState("user_id", nil)
        }
        let queue = try openQueue()
        #expect(try queue.state("anonymous_id") == "a-1")
        #expect(try queue.state("user_id") == nil)
    }
}
