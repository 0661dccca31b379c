import FootprintSQLite
import FootprintSynthetic
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

extension StoredPayload {
    /// The message of a stored row's `payload` column, parsed.
    static func message(_ row: SQLiteStatement, at index: Int32) throws -> JSONValue {
        try JSONParser().parse(Array(json(row, at: index).utf8))
    }
}

/// The compressed `events.payload` (``StoredPayload``): every message comes back byte for byte,
/// hostile stored bytes are an error and never a crash nor an unbounded buffer, a file of the
/// previous schema upgrades in place with its rows readable beside new ones, and the file's
/// bytes per event stay under the bound measured when the compression went in.
struct StoredPayloadTests {
    static let seeds: [UInt64] =
        ProcessInfo.processInfo.environment["FOOTPRINT_PROPERTY_SEED"].flatMap(UInt64.init).map { [$0] }
        ?? Array(1...8)

    /// A random string: ASCII, escapes, NULs, multi-byte scalars, the dictionary's own words.
    static func string(_ random: inout SeededRandom, maximumLength: Int) -> String {
        let pieces = [
            "a", "Z", "0", " ", "\"", "\\", "\u{0}", "\n", "é", "日本", "🙂", "\u{FFFF}", "$page_name", "\":{",
            "UIButton", "messageId", "2026-01-01T00:00:00.000Z",
        ]
        let length = Int.random(in: 0...maximumLength, using: &random)
        return (0..<length).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &random)] }.joined()
    }

    /// A random JSON value, nested up to `depth`.
    static func value(_ random: inout SeededRandom, depth: Int) -> JSONValue {
        switch Int.random(in: 0..<(depth > 0 ? 8 : 6), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .int(Int64.random(in: .min ... .max, using: &random))
        case 3: return .double(Double.random(in: -1e300...1e300, using: &random))
        case 4, 5: return .string(string(&random, maximumLength: 40))
        case 6:
            return .array(
                (0..<Int.random(in: 0...5, using: &random)).map { _ in value(&random, depth: depth - 1) })
        default:
            var object: JSONObject = [:]
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                object[string(&random, maximumLength: 12)] = value(&random, depth: depth - 1)
            }
            return .object(object)
        }
    }

    /// `json` stored and read back.
    static func roundTrip(_ json: String) throws -> String {
        switch StoredPayload.value(json) {
        case .text(let text): return text
        case .blob(let bytes): return try StoredPayload.json(stored: bytes)
        default: throw GzipError(code: .corrupt, message: "neither text nor blob")
        }
    }

    @Test(arguments: seeds)
    func everyMessageComesBackByteForByte(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        for _ in 0..<200 {
            let json = JSONWriter.string(Self.value(&random, depth: 4))
            #expect(try Self.roundTrip(json) == json, "seed \(seed)")
        }
        // Not JSON at all, empty, one long run, and a message of the largest size accepted.
        for json in [
            "", "{", "\u{0}", String(repeating: "x", count: 100_000),
            Self.string(&random, maximumLength: MessageLimits.maximumEventBytes / 4),
        ] {
            #expect(try Self.roundTrip(json) == json, "seed \(seed): \(json.utf8.count) bytes")
        }
    }

    /// Bytes stored in format 1 read back the same forever: the dictionary is part of the format.
    @Test func formatOneBytesStillReadBack() throws {
        #expect(StoredPayload.dictionary.count == 1330)
        let hex = [
            "0143cf78666e86ce468ea6e6ba064ee6aeba26ce862eba968ea686ba462ea66ec6ae164e96ce86f8",
            "339e891122190567e417a0245f233d4350fac39fc42d208a905374b1ae2172bac52888905371aeae",
            "21e1e49b545a6985330d3b036b09cc54871cab2015200761c4822130a48c430c0cad0ccdac4c4cf4",
            "2c2c3063a11600",
        ].joined()
        var stored: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            stored.append(try #require(UInt8(hex[index..<next], radix: 16)))
            index = next
        }
        let message = [
            ##"{"anonymousId":"6F1C2A57-0B7E-4C1D-9A51-2D5F3E8B9C10","context":{"app":{"build":"42","##,
            ##""name":"Shop","version":"2.1"},"os":{"name":"iOS","version":"18.1"},"sessionId":"s-1""##,
            ##"},"event":"$element_click","messageId":"m-1","properties":{"$element_path":"#buy:#UIB"##,
            ##"utton#UIStackView[0]#CartViewController","$page_name":"Cart"},"timestamp":"2026-11-23"##,
            ##"T01:16:44.880Z","type":"track"}"##,
        ].joined()
        #expect(try StoredPayload.json(stored: stored) == message)
    }

    @Test func aTypicalMessageCompressesToLessThanHalf() throws {
        var traffic = SyntheticTraffic(configuration: RollupTests.synthetic(seed: 3))
        let payloads = traffic.session().events.map(\.payload)
        let stored = payloads.map { StoredPayload.value($0) }
        let text = payloads.map(\.utf8.count).reduce(0, +)
        let compressed = stored.map { value -> Int in
            if case .blob(let bytes) = value { bytes.count } else { Int.max / 1000 }
        }.reduce(0, +)
        #expect(compressed * 2 < text, "\(compressed) bytes for \(text)")
    }

    @Test(arguments: seeds)
    func hostileStoredBytesAreAnErrorNotACrash(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let json = JSONWriter.string(Self.value(&random, depth: 3))
        guard case .blob(let good) = StoredPayload.value(json + String(repeating: json, count: 3)) else {
            Issue.record("seed \(seed): not compressed")
            return
        }
        var candidates: [[UInt8]] = [
            [], [StoredPayload.format], [0], [2] + good.dropFirst(), good + [0], Array(good.dropLast()),
            Array(good.prefix(good.count / 2)),
        ]
        for _ in 0..<200 {
            var bytes = good
            for _ in 0...Int.random(in: 0...3, using: &random) {
                let index = Int.random(in: 1..<bytes.count, using: &random)
                bytes[index] ^= UInt8.random(in: 1...255, using: &random)
            }
            candidates.append(bytes)
            candidates.append(
                [StoredPayload.format]
                    + (0..<Int.random(in: 0...300, using: &random)).map { _ in
                        UInt8.random(in: 0...255, using: &random)
                    })
        }
        for bytes in candidates {
            // Either an error or some bounded text: never a trap, never past the cap.
            if let text = try? StoredPayload.json(stored: bytes) {
                #expect(text.utf8.count <= StoredPayload.maximumBytes * 3)
            }
        }
        #expect(throws: GzipError.self) { try StoredPayload.json(stored: [2] + good.dropFirst()) }
        #expect(throws: GzipError.self) { try StoredPayload.json(stored: Array(good.dropLast())) }
        #expect(throws: GzipError.self) { try StoredPayload.json(stored: good + [0]) }
    }

    @Test func aDecompressionBombStopsAtTheCap() throws {
        let codec = DictionaryDeflate(dictionary: StoredPayload.dictionary)
        let bomb = try #require(codec.compress([UInt8](repeating: UInt8(ascii: "a"), count: 4 << 20)))
        #expect(bomb.count < 10_000)
        #expect(throws: GzipError.self) { try StoredPayload.json(stored: [StoredPayload.format] + bomb) }
    }

    /// A corrupt payload in the file: the people export fails with a storage error, the live
    /// events show `{}` and the reports leave out that event's properties; nothing traps.
    @Test func aCorruptStoredPayloadIsAnError() throws {
        try withTemporaryStore("payload-corrupt") { store, project in
            var traffic = SyntheticTraffic(configuration: RollupTests.synthetic(seed: 5))
            let events = traffic.session().events
            _ = try store.write(
                IngestBatch(projectId: project.id, events: events, receivedAt: events[0].receivedAt))
            try SQLiteDatabase(path: store.path).execute(
                "UPDATE events SET payload = X'01FFFF00' WHERE id = 1")
            let recent = try store.recentEvents(projectId: project.id, limit: 1000, after: nil)
            #expect(recent.first { $0.sequence == 1 }?.payload == "{}")
            let person = try #require(events[0].userId ?? events[0].anonymousId)
            #expect(throws: ServerError.self) { try store.exportPerson(id: person, projectId: project.id) }
            let all = try store.analyticsEvents(
                projectId: project.id, filter: ReportFilter(), properties: .included)
            #expect(all.count == events.count)
        }
    }

    /// A file of the previous schema (payloads as text) opens, is migrated in place, its
    /// payloads compressed, and every payload, old and new, reads back as written.
    @Test func aFileOfThePreviousSchemaUpgradesInPlace() throws {
        try withTemporaryDatabase("payload-upgrade") { path in
            var traffic = SyntheticTraffic(configuration: RollupTests.synthetic(seed: 11))
            let old = traffic.session().events
            let new = traffic.session().events
            do {
                let database = try SQLiteDatabase(path: path)
                try database.migrate(Array(SQLiteSchema.migrations.dropLast()))
                try database.execute("INSERT INTO projects(id, name, created_at) VALUES (1, 'old', 0)")
                let insert = try database.prepare(SQLiteSchema.insertEvent)
                for event in old {
                    // As stored before version 9: the payload as text.
                    try insert.run(
                        GroupCommitWriter.insertValues(
                            event, project: .integer(1), payload: .text(event.payload)))
                }
            }
            let store = try SQLiteEventStore(path: path)
            defer { store.close() }
            let project = try #require(try store.project(named: "old"))
            _ = try store.write(
                IngestBatch(projectId: project.id, events: new, receivedAt: new[0].receivedAt))
            try store.read { database in
                #expect(try database.userVersion == SQLiteSchema.migrations.count)
                let types = try database.prepare("SELECT typeof(payload) FROM events ORDER BY id").rows {
                    $0.text(at: 0) ?? ""
                }
                #expect(types == Array(repeating: "blob", count: old.count + new.count))
                let pending = try database.prepare("SELECT count(*) FROM store_state WHERE key = ?1").rows([
                    .text(SQLiteSchema.payloadsKey)
                ]) { $0.int64(at: 0) }
                #expect(pending == [0])
            }
            let stored = try store.storedEvents(after: 0, limit: 10_000)
            #expect(stored.map(\.event.payload) == (old + new).map(\.payload))
            let recent = try store.recentEvents(projectId: project.id, limit: 10_000, after: nil)
            #expect(Set(recent.map(\.payload)) == Set((old + new).map(\.payload)))
            let properties = try store.analyticsEvents(
                projectId: project.id, filter: ReportFilter(), properties: .included
            ).map { JSONWriter.string(.object($0.properties)) }
            let written = try (old + new).map { event in
                JSONWriter.string(
                    try JSONParser().parse(Array(event.payload.utf8))["properties"] ?? .object([:]))
            }
            #expect(properties.sorted() == written.sorted())
        }
    }

    /// The whole file, checkpointed, per stored event, for 20,000 synthetic events (2,000
    /// people, 10 days): 681 bytes when measured (935 before the payloads were compressed).
    @Test func theFileStaysUnderItsBytesPerEvent() throws {
        try withTemporaryStore("payload-size") { store, project in
            var configuration = SyntheticTraffic.Configuration()
            configuration.people = 2_000
            configuration.days = 10
            var traffic = SyntheticTraffic(configuration: configuration)
            let written = try traffic.write(count: 20_000, into: store, projectId: project.id)
            // The file's size once the WAL is checkpointed: its pages, free ones included.
            let database = try SQLiteDatabase(path: store.path)
            let pages = try database.prepare("PRAGMA page_count").rows { $0.int64(at: 0) }[0]
            let pageSize = try database.prepare("PRAGMA page_size").rows { $0.int64(at: 0) }[0]
            let perEvent = Double(pages * pageSize) / Double(written)
            #expect(perEvent < 720, "\(perEvent) bytes per event")
        }
    }
}
