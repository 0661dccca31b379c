import Foundation
import Testing

@testable import FootprintServer

/// The spool's format and state, without ClickHouse: frames whose length or checksum does not
/// check end a segment wherever a crash cut it, the state machine's sealing, bound and
/// shipping, and the files of a spool opened again after a crash.
@Suite struct SpoolTests {
    /// A generator of the same bytes on every run.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func payloads(seed: UInt64, count: Int) -> [[UInt8]] {
        var random = Seeded(state: seed)
        return (0..<count).map { _ in
            (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random)
            }
        }
    }

    @Test func crc32HasTheCheckValueOfISOHDLC() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func framedRecordsReadBackAsWritten(seed: UInt64) {
        let payloads = Self.payloads(seed: seed, count: 40)
        var bytes: [UInt8] = []
        for payload in payloads { SpoolFrame.append(payload, to: &bytes) }
        let read = SpoolFrame.records(in: bytes)
        #expect(read.payloads == payloads)
        #expect(read.validBytes == bytes.count)
    }

    /// A segment cut at every byte of its last record (a write a crash cut short) reads as the
    /// records before it, and so does one whose last record has any byte changed.
    @Test(arguments: [UInt64(5), 6])
    func aTornOrDamagedLastRecordIsDropped(seed: UInt64) {
        let payloads = Self.payloads(seed: seed, count: 6) + [Array("the last one".utf8)]
        var whole: [UInt8] = []
        var before = 0
        for payload in payloads {
            before = whole.count
            SpoolFrame.append(payload, to: &whole)
        }
        for cut in before..<whole.count {
            let read = SpoolFrame.records(in: Array(whole[..<cut]))
            #expect(read.payloads == Array(payloads.dropLast()), "cut at \(cut)")
            #expect(read.validBytes == before)
        }
        for index in before..<whole.count {
            var damaged = whole
            damaged[index] ^= 0x5A
            let read = SpoolFrame.records(in: damaged)
            #expect(read.payloads == Array(payloads.dropLast()), "byte \(index) changed")
        }
        // A tail of zeros (space the file system allocated, never written) is not a record.
        #expect(SpoolFrame.records(in: whole + [UInt8](repeating: 0, count: 3)).payloads == payloads)
    }

    @Test func aRecordReadsBackAsWritten() throws {
        var record = SpoolRecord()
        record.appendEvent(
            project: 3, receivedAt: 1_796_083_200_000, userId: "u1",
            copy: .init(device: "device-1", messageId: "m1", sequence: 17)
        ) { $0.append("row one") }
        record.appendEvent(
            project: 3, receivedAt: 1_796_083_200_000, userId: nil,
            copy: .init(device: "", messageId: "m2", sequence: 33)
        ) { $0.append(Int64(-5)) }
        record.appendLink(project: 3, receivedAt: 5, anonymousId: "device-1", userId: "u1") {
            $0.append("link")
        }
        record.lostRows.append("lost")
        record.lostCount = 1
        let decoded = try SpoolRecord(decoding: record.encoded)
        #expect(decoded == record)
        #expect(decoded.rows == 4)
        #expect(decoded.eventsWithRows.map(\.row) == [0..<8, 8..<16])
        #expect(throws: ServerError.self) { try SpoolRecord(decoding: record.encoded.dropLast(1) + [0, 0]) }
    }

    @Test func theOpenSegmentIsSealedAtItsRowsOrAge() {
        var state = SpoolState(maximumBytes: 1_000, sealRows: 10, sealInterval: 1)
        #expect(state.append(bytes: 10, rows: 4, now: 100) == .write(segment: 1, opensSegment: true))
        #expect(state.append(bytes: 10, rows: 4, now: 100.5) == .write(segment: 1, opensSegment: false))
        #expect(state.seal(now: 100.9) == nil)
        #expect(state.sealDeadline == 101)
        #expect(state.seal(now: 101)?.id == 1)
        #expect(state.nextToShip?.rows == 8)
        #expect(state.append(bytes: 10, rows: 10, now: 101) == .write(segment: 2, opensSegment: true))
        #expect(state.seal(now: 101)?.id == 2, "10 rows seal at once")
        #expect(state.append(bytes: 10, rows: 1, now: 101) == .write(segment: 3, opensSegment: true))
        #expect(state.seal(now: 101, force: true)?.id == 3)
        #expect(state.sealed.map(\.id) == [1, 2, 3])
        #expect(state.sealed.allSatisfy { !$0.mayBeStored })
    }

    @Test func theBoundRefusesAndAShippedSegmentFreesItsBytes() {
        var state = SpoolState(maximumBytes: 100, sealRows: 1_000, sealInterval: 1)
        #expect(state.append(bytes: 60, rows: 1, now: 0) == .write(segment: 1, opensSegment: true))
        #expect(state.append(bytes: 41, rows: 1, now: 0) == .refuse)
        #expect(state.append(bytes: 40, rows: 1, now: 0) == .write(segment: 1, opensSegment: false))
        #expect(state.heldBytes == 100)
        state.appendFailed(bytes: 40, rows: 1)
        #expect(state.heldBytes == 60)
        #expect(state.open?.rows == 1)
        state.seal(now: 5)
        state.shippingFailed(1)
        #expect(state.nextToShip?.mayBeStored == true)
        state.shipped(1)
        #expect(state.heldBytes == 0)
        #expect(state.isEmpty)
        #expect(state.append(bytes: 100, rows: 1, now: 6) == .write(segment: 2, opensSegment: true))
    }

    @Test func recoveredSegmentsShipFirstAndMayBeStored() {
        let recovered = [
            SpoolState.Segment(id: 7, bytes: 30, rows: 2, opened: 0, mayBeStored: false),
            SpoolState.Segment(id: 4, bytes: 20, rows: 1, opened: 0, mayBeStored: false),
        ]
        var state = SpoolState(maximumBytes: 100, sealRows: 10, sealInterval: 1, recovered: recovered)
        #expect(state.sealed.map(\.id) == [4, 7])
        #expect(state.sealed.allSatisfy { $0.mayBeStored })
        #expect(state.heldBytes == 50)
        #expect(state.append(bytes: 51, rows: 1, now: 0) == .refuse)
        #expect(state.append(bytes: 50, rows: 1, now: 0) == .write(segment: 8, opensSegment: true))
    }

    // MARK: Files

    static func withDirectory<T>(_ body: (String) throws -> T) throws -> T {
        let parent = NSTemporaryDirectory() + "footprint-spool-\(UInt64.random(in: 0..<UInt64.max))"
        defer { try? FileManager.default.removeItem(atPath: parent) }
        // A directory whose parent is missing too: the spool creates both.
        return try body(parent + "/spool")
    }

    static func spool(_ directory: String, maximumBytes: Int = 1 << 20) throws -> ClickHouseSpool {
        var configuration = ClickHouseSpool.Configuration(directory: directory)
        configuration.maximumBytes = maximumBytes
        configuration.sealInterval = 3_600
        return try ClickHouseSpool(configuration: configuration)
    }

    /// Records appended, the collector gone (a torn write at the end of its segment), the spool
    /// opened again: the whole records are there, sealed and possibly stored; a shipped mark
    /// deletes its segment; one collector at a time.
    @Test func aSpoolOpenedAgainHoldsItsWholeRecordsAndForgetsShippedOnes() throws {
        try Self.withDirectory { directory in
            let payloads = Self.payloads(seed: 9, count: 5)
            do {
                let spool = try Self.spool(directory)
                for payload in payloads { try spool.append(payload, rows: 1) }
                #expect(throws: ServerError.self) { try Self.spool(directory) }
                spool.close()
            }
            // A write cut short by the crash.
            let segment = directory + "/" + ClickHouseSpool.fileName(of: 1)
            let handle = try #require(FileHandle(forWritingAtPath: segment))
            handle.seekToEndOfFile()
            handle.write(Data(SpoolFrame.frame(Array("torn".utf8)).dropLast(2)))
            handle.closeFile()

            let reopened = try Self.spool(directory)
            let held = try #require(reopened.nextSegment(waiting: 0))
            #expect(held.id == 1)
            #expect(held.mayBeStored)
            #expect(try reopened.payloads(of: 1) == payloads)
            try reopened.append(Array("after".utf8), rows: 1)
            let next = try #require(reopened.nextSegment(waiting: 0, force: true))
            #expect(next.id == 1, "the oldest ships first")
            try reopened.markShipped(1)
            #expect(!FileManager.default.fileExists(atPath: segment))
            #expect(try reopened.nextSegment(waiting: 0, force: true)?.id == 2)
            reopened.close()

            // Shipped, but the segment left behind (the collector died before deleting it).
            try Data(SpoolFrame.frame([1, 2, 3])).write(to: URL(fileURLWithPath: segment))
            try Data("1\n".utf8).write(to: URL(fileURLWithPath: directory + "/shipped"))
            let again = try Self.spool(directory)
            #expect(!FileManager.default.fileExists(atPath: segment))
            #expect(again.nextSegment(waiting: 0)?.id == 2)
            #expect(try again.payloads(of: 2) == [Array("after".utf8)])
            again.close()
        }
    }

    @Test func aFullSpoolRefusesAsUnavailableUntilASegmentShips() throws {
        try Self.withDirectory { directory in
            let spool = try Self.spool(directory, maximumBytes: 1_000)
            defer { spool.close() }
            let payload = [UInt8](repeating: 7, count: 292)
            for _ in 0..<3 { try spool.append(payload, rows: 1) }
            do {
                try spool.append(payload, rows: 1)
                Issue.record("a full spool took a record")
            } catch let error as ServerError {
                #expect(error.code == .unavailable, "\(error)")
            }
            #expect(spool.heldBytes == 900)
            let segment = try #require(spool.nextSegment(waiting: 0, force: true))
            try spool.markShipped(segment.id)
            #expect(spool.heldBytes == 0)
            try spool.append(payload, rows: 1)
        }
    }
}
