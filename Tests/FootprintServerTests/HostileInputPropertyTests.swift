import FootprintServer
import FootprintWire
import Foundation
import Testing

/// Batches of random, extreme and malformed events (Int64.min and max, -0, 1e308, strings up to
/// and past the limits, NULs, nesting up to and past the parser's depth, times from year 1 to
/// 9999) through ingest, the store's rollups and every report, seeded so that a failure can be
/// replayed: each issue names its seed, and `FOOTPRINT_PROPERTY_SEED=N` runs that seed alone.
struct HostileInputPropertyTests {
    static let seeds: [UInt64] =
        ProcessInfo.processInfo.environment["FOOTPRINT_PROPERTY_SEED"].flatMap(UInt64.init).map { [$0] }
        ?? Array(1...6)
    static let receivedAt = Timestamp(iso8601: "2026-11-29T12:00:00.000Z")!
    static let codes: Set<String> = [
        "missing_field", "invalid_field", "invalid_timestamp", "invalid_number", "string_too_long",
        "event_too_large", "invalid_character", "number_out_of_range", "timestamp_out_of_range",
    ]

    @Test(arguments: seeds)
    func extremeInputNeverCrashesAndEveryReportStaysSane(_ seed: UInt64) throws {
        let note = "seed \(seed): rerun with FOOTPRINT_PROPERTY_SEED=\(seed)"
        var input = HostileInput(seed: seed)
        try withTemporaryStore("hostile-\(seed)") { store, project in
            var stored = 0
            var codesSeen: Set<String> = []
            for _ in 0..<10 {
                let (text, items) = input.batch()
                guard let body = try? JSONParser().parse(text) else { continue }
                let decoded = try IngestDecoder.decode(body, impliedType: nil, receivedAt: Self.receivedAt)
                #expect(decoded.events.count + decoded.rejections.count == items, "\(note)")
                #expect((0...Int(Int32.max)).contains(decoded.evictedCount), "\(note)")
                for rejection in decoded.rejections {
                    codesSeen.insert(rejection.code)
                    #expect(Self.codes.contains(rejection.code), "\(note): \(rejection)")
                }
                for event in decoded.events {
                    #expect(event.time >= IngestLimits.earliestEventTime, "\(note)")
                    #expect(
                        event.time
                            <= Self.receivedAt.adding(milliseconds: ClockCorrection.maximumFutureMilliseconds),
                        "\(note)")
                    #expect(
                        (0...IngestLimits.maximumDurationMilliseconds).contains(
                            event.durationMilliseconds ?? 0),
                        "\(note)")
                    for text in [event.messageId, event.anonymousId, event.userId, event.name] {
                        #expect(!(text ?? "").utf8.contains(0), "\(note)")
                    }
                }
                let outcome = try store.write(
                    IngestBatch(
                        projectId: project.id, events: decoded.events, identityLinks: decoded.identityLinks,
                        evictedCount: decoded.evictedCount, batchKey: decoded.batchKey,
                        receivedAt: Self.receivedAt))
                #expect(outcome.stored + outcome.duplicates == decoded.events.count, "\(note)")
                stored += outcome.stored
            }
            #expect(try store.eventCount(projectId: project.id) == stored, "\(note)")
            #expect(stored > 0, "\(note)")
            #expect(
                codesSeen.isSuperset(of: [
                    "number_out_of_range", "invalid_character", "timestamp_out_of_range",
                ]),
                "\(note): \(codesSeen)")
            try Self.runEveryReport(store, project, "\(note)")

            // Records that reach the store without the decoder's limits: the sums saturate.
            let raw = (0..<40).map { input.rawRecord($0) }
            _ = try store.write(IngestBatch(projectId: project.id, events: raw, receivedAt: Self.receivedAt))
            try Self.runEveryReport(store, project, "\(note)")
        }
    }

    /// Every report over the last 30 days from the rollups, the same range from the events
    /// (it starts 1 ms into its first day), and the last ten years.
    static func runEveryReport(_ store: SQLiteEventStore, _ project: Project, _ note: String) throws {
        let service = ReportService(stores: Stores(store))
        let recent = try ReportParameters(query: ["to": "2026-11-30"], now: receivedAt)
        var fromEvents = recent
        fromEvents.filter.from = fromEvents.filter.from?.adding(milliseconds: 1)
        let decade = try ReportParameters(query: ["from": "2016-12-03", "to": "2026-11-30"], now: receivedAt)
        for parameters in [recent, fromEvents, decade] {
            let answers = try EveryReport.run(
                service, project: project, parameters: parameters, pages: HostileInput.pages,
                events: ["$element_click", "Tapped"])
            #expect(answers.count > 10, "\(note)")
        }
    }
}

/// Makes the hostile batches from a seed.
struct HostileInput {
    static let pages = ["Home", "Detail", "Ca\u{0}rt"]
    var random: SeededRandom

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int.random(in: 0..<choices.count, using: &random)]
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    /// A number at or near an edge, or an ordinary one.
    mutating func number() -> JSONValue {
        pick([
            .int(.max), .int(.min), .int(.max - 1), .int(0), .int(-1), .double(-0.0), .double(1e308),
            .double(-1e308),
            .double(5e-324), .double(9.3e18), .double(0.5), .int(IngestLimits.maximumDurationMilliseconds),
            .int(IngestLimits.maximumDurationMilliseconds + 1),
            .int(Int64.random(in: 0...100_000, using: &random)),
            .int(Int64.random(in: 0...100_000, using: &random)), .string("12"), .null, .bool(true),
        ])
    }

    /// Text at or past a limit, with NULs, or ordinary.
    mutating func text() -> String {
        pick([
            "", "Home", "Detail", "a\u{0}b", "\u{0}", "ünï cödé 🙂", "#buy:#UIButton#Detail",
            String(repeating: "x", count: MessageLimits.maximumStringBytes),
            String(repeating: "y", count: MessageLimits.maximumStringBytes + 1),
            String(repeating: "z", count: MessageLimits.maximumIdBytes),
            String(repeating: "w", count: MessageLimits.maximumIdBytes + 1),
            String(repeating: "é", count: Int.random(in: 0...200, using: &random)),
        ])
    }

    /// Nested arrays and objects `depth` deep (past 64 in all, the body is refused whole).
    mutating func nested(_ depth: Int) -> JSONValue {
        var value: JSONValue = number()
        for level in 0..<depth { value = level % 2 == 0 ? .array([value]) : .object(["k": value]) }
        return value
    }

    mutating func time() -> JSONValue? {
        let choices: [String?] = [
            nil, "0001-01-01T00:00:00Z", "1969-12-31T23:59:59.999Z", "1970-01-01T00:00:00Z",
            "2026-11-29T11:59:00.000Z", "2026-11-28T10:00:00+14:00", "2026-11-30T11:00:00Z",
            "9999-12-31T23:59:59.999Z", "not a time", "2026-02-30T00:00:00Z",
            "2026-11-\(10 + Int.random(in: 0...19, using: &random))T10:00:00Z",
        ]
        return pick(choices).map(JSONValue.string)
    }

    /// One event: a valid one of a random type, with fields drawn from small pools (so that ids
    /// repeat and sessions share events), then up to three hostile changes.
    mutating func event() -> JSONValue {
        let type = pick(["track", "track", "track", "screen", "screen", "page", "identify", "alias", "group"])
        let page = pick(["Home", "Detail", "Cart"])
        var object: JSONObject = [
            "type": .string(type), "messageId": .string("m-\(Int.random(in: 0..<60, using: &random))"),
            "anonymousId": .string(pick(["a1", "a2", "a3", "a4", "a1", "a2", "a3", "a\u{0}4"])),
            "userId": .string(pick(["u1", "u2"])),
            "previousId": .string(pick(["a1", "a2"])), "groupId": "g",
            "event": .string(
                pick(["$screen_leave", "$element_click", "$item_exposure", "$item_skip", "Tapped"])),
            "name": .string(page),
            "timestamp": .string("2026-11-\(10 + Int.random(in: 0...19, using: &random))T10:00:00.000Z"),
        ]
        if chance(0.5) { object["userId"] = nil }
        if chance(0.5) { object["sentAt"] = "2026-11-29T11:59:00.000Z" }
        var properties: JSONObject = [
            "$page_name": .string(page), "duration_ms": .int(Int64.random(in: 0...60_000, using: &random)),
            "$element_path": .string(pick(["#buy:#UIButton#Detail", "#back:#UIButton#Cart"])),
            "$element_similar_path": "#buy:#UIButton#Detail",
            "$item_id": .string(pick(["sku-1", "sku-2", "sku\u{0}3"])),
            "$event_name": "Buy", "state": .int(Int64.random(in: 0...1, using: &random)),
        ]
        var context: JSONObject = [
            "sessionId": .string(pick(["s1", "s2", "s\u{0}3"])),
            "app": ["version": .string(pick(["1.0", "2.0"]))],
            "os": ["name": "iOS", "version": .string(pick(["17.2", "\u{0}"]))],
        ]
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            switch Int.random(in: 0..<13, using: &random) {
            case 0, 1: properties["duration_ms"] = number()
            case 2:
                object["timestamp"] = time()
                if chance(0.5) { object["sentAt"] = nil }
            case 3: object["sentAt"] = time()
            case 4:
                object[pick(["messageId", "anonymousId", "userId", "event", "name", "previousId"])] = .string(
                    text())
            case 5: object[pick(["messageId", "type", "anonymousId", "event"])] = nil
            case 6: object["type"] = pick([.string("bogus"), number()])
            case 7: properties["deep"] = nested(pick([1, 10, 55]))
            case 8: properties["big"] = .string(String(repeating: "b", count: pick([8_000, 30_000, 40_000])))
            case 9: properties[pick(["$page_name", "$element_path", "$item_id", "note"])] = .string(text())
            case 10: context["sessionId"] = .string(text())
            case 11:
                // A clock 8,000 years off between the event and the send: corrected to before 1970.
                object["timestamp"] = "0001-01-01T00:00:00Z"
                object["sentAt"] = "8001-01-01T00:00:00Z"
            default: object["anonymousId"] = number()
            }
        }
        object["properties"] = .object(properties)
        object["traits"] = .object(["n": number()])
        object["context"] = .object(context)
        return .object(object)
    }

    /// A batch's JSON text and its number of events.
    mutating func batch() -> (String, Int) {
        var events = (0..<Int.random(in: 0...40, using: &random)).map { _ in event() }
        // Now and then nesting past the parser's depth: the body is refused whole.
        if chance(0.1) { events.append(["properties": ["deep": nested(70)]]) }
        var envelope: JSONObject = ["batch": .array(events)]
        if chance(0.5), let sentAt = time() { envelope["sentAt"] = sentAt }
        if chance(0.5) { envelope["context"] = .object(["footprint": .object(["evicted": number()])]) }
        return (JSONWriter.string(.object(envelope)), events.count)
    }

    /// A record with an extreme time or duration, as no decoder would pass.
    mutating func rawRecord(_ index: Int) -> EventRecord {
        let time = Timestamp(
            millisecondsSince1970: pick([.min, .max, 0, -1, Self.now, Self.now - 86_400_000, Self.now + 1]))
        let type: MessageType = pick([.screen, .track, .track, .identify])
        let page = pick(Self.pages)
        var record = EventRecord(
            message: Message(
                type: type, messageId: "raw-\(index)", anonymousId: pick(["a1", "a2"]),
                event: type == .track ? pick(["$screen_leave", "$element_click", "$item_exposure"]) : nil,
                name: type == .screen ? page : nil, timestamp: time,
                context: ["sessionId": .string(pick(["s1", "raw"]))],
                properties: [
                    "$page_name": .string(page), "$element_path": "#buy:#UIButton#Detail",
                    "$item_id": "sku-1",
                ]),
            time: time, receivedAt: time)
        record.durationMilliseconds = pick([.max, .min, .max - 1, 0, -1, nil])
        return record
    }

    static let now = Timestamp(iso8601: "2026-11-29T11:00:00.000Z")!.millisecondsSince1970
}
