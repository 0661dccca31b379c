import FootprintWire
import Testing

/// Validating a batch reuses the encoding of a context identical to the previous event's; the
/// bytes and the refusals are the same as without the cache.
struct ContextCacheTests {
    let now = Timestamp(millisecondsSince1970: 1_795_981_800_000)

    func event(_ id: String, context: JSONValue) -> JSONValue {
        ["type": "track", "event": "Tap", "anonymousId": "a", "messageId": .string(id), "context": context]
    }

    /// Each event validated alone and through one shared cache, in order.
    func encodings(_ events: [JSONValue]) throws -> (alone: [[UInt8]], cached: [[UInt8]]) {
        var contexts = Message.ContextCache()
        var alone: [[UInt8]] = []
        var cached: [[UInt8]] = []
        for event in events {
            var bytes: [UInt8] = []
            _ = try Message(validating: event, receivedAt: now, makeMessageId: { "x" }, encoded: &bytes)
            alone.append(bytes)
            _ = try Message(
                validating: event, receivedAt: now, makeMessageId: { "x" }, encoded: &bytes,
                contexts: &contexts)
            cached.append(bytes)
        }
        return (alone, cached)
    }

    @Test func cachedEncodingsAreTheBytesOfEachEvent() throws {
        let shared: JSONValue = [
            "app": ["version": "2.4.1"], "os": ["name": "iOS", "version": "18.1"], "sessionId": "s1",
        ]
        // Canonically equivalent strings (`==` holds) with other bytes, -0.0 against 0.0, an
        // integer against a double, and a key spelled two ways must each be encoded afresh.
        let events = [
            event("m1", context: shared), event("m2", context: shared),
            event("m3", context: ["city": "Caf\u{E9}"]), event("m4", context: ["city": "Cafe\u{301}"]),
            event("m5", context: ["lat": .double(0.0)]), event("m6", context: ["lat": .double(-0.0)]),
            event("m7", context: ["n": .int(1)]), event("m8", context: ["n": .double(1)]),
            event("m9", context: ["\u{E9}": 1]), event("m10", context: ["e\u{301}": 1]),
            event("m11", context: [:]), event("m12", context: shared),
        ]
        let (alone, cached) = try encodings(events)
        #expect(cached == alone)
        let decomposed = Array("Cafe\u{301}".utf8)
        #expect(
            cached[3].indices.contains { cached[3][$0...].starts(with: decomposed) },
            "the decomposed spelling is stored as sent")
    }

    @Test func aContextThatDiffersIsCheckedAgain() throws {
        var contexts = Message.ContextCache()
        var bytes: [UInt8] = []
        _ = try Message(
            validating: event("m1", context: ["x": 1]), receivedAt: now, makeMessageId: { "x" },
            encoded: &bytes, contexts: &contexts)
        let huge = String(repeating: "y", count: MessageLimits.maximumStringBytes + 1)
        for bad: JSONValue in [["x": .double(.infinity)], ["x": .string(huge)]] {
            #expect(throws: MessageError.self) {
                try Message(
                    validating: event("m2", context: bad), receivedAt: now, makeMessageId: { "x" },
                    encoded: &bytes, contexts: &contexts)
            }
        }
    }

    @Test func identityComparesBytesNotCanonicalEquivalence() {
        #expect(JSONValue.string("Caf\u{E9}") == JSONValue.string("Cafe\u{301}"))
        #expect(!JSONValue.string("Caf\u{E9}").isIdentical(to: .string("Cafe\u{301}")))
        #expect(!JSONValue.double(0.0).isIdentical(to: .double(-0.0)))
        #expect(!JSONValue.int(1).isIdentical(to: .double(1)))
        #expect(JSONValue.array([1, "a", nil]).isIdentical(to: [1, "a", nil]))
        #expect(!JSONValue.array([1]).isIdentical(to: [1, 2]))
        #expect(JSONValue.isIdentical(["a": ["b": true]], ["a": ["b": true]]))
        #expect(!JSONValue.isIdentical(["a": ["b": true]], ["a": ["b": false]]))
    }
}
