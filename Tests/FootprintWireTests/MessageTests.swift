import FootprintWire
import Testing

struct MessageTests {
    let now = Timestamp(millisecondsSince1970: 1_795_981_800_000)

    func validate(_ text: String, implied: MessageType? = nil) throws -> Message {
        try Message(
            validating: JSONParser().parse(text), impliedType: implied, receivedAt: now,
            makeMessageId: { "made" })
    }

    @Test func acceptsTheSegmentTrackExample() throws {
        let message = try validate(
            #"""
            {"type":"track","userId":"019mr8mf4r","event":"Item Purchased",
             "properties":{"name":"Leap to Conclusions Mat","revenue":14.99},
             "context":{"ip":"24.5.68.47"},"timestamp":"2012-12-02T00:30:12.984Z","messageId":"022bb90c-bbac-11e4-8dfc-aa07a5b093db"}
            """#)
        #expect(message.event == "Item Purchased")
        #expect(message.properties["revenue"] == 14.99)
        #expect(message.timestamp == Timestamp(iso8601: "2012-12-02T00:30:12.984Z"))
    }

    @Test func roundTripsThroughJSON() throws {
        let message = Message(
            type: .screen, messageId: "m1", anonymousId: "a", name: "Home", timestamp: now,
            context: ["library": ["name": "footprint"]], properties: ["x": 1])
        let back = try Message(validating: message.json, receivedAt: now, makeMessageId: { "other" })
        #expect(back == message)
    }

    @Test(arguments: [
        (#"{"type":"track","userId":"u"}"#, "missing_field"),
        (#"{"type":"track","event":"e"}"#, "missing_field"),
        (#"{"type":"alias","userId":"u"}"#, "missing_field"),
        (#"{"type":"group","userId":"u"}"#, "missing_field"),
        (#"{"type":"boom","userId":"u"}"#, "invalid_field"),
        (#"{"type":"track","userId":"u","event":"e","properties":[]}"#, "invalid_field"),
        (#"{"type":"track","userId":"u","event":"e","timestamp":"noon"}"#, "invalid_timestamp"),
        (#"{"type":"track","userId":5.5,"event":"e"}"#, "invalid_field"),
        (#"[1]"#, "invalid_field"),
    ])
    func rejectsWithACode(text: String, code: String) {
        do {
            _ = try validate(text)
            Issue.record("accepted \(text)")
        } catch let error as MessageError {
            #expect(error.code.name == code)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func takesTheTypeFromTheEndpointAndMakesMissingIds() throws {
        let message = try validate(#"{"userId":"u","event":"e"}"#, implied: .track)
        #expect(message.type == .track)
        #expect(message.messageId == "made")
        #expect(message.timestamp == now)
    }

    @Test func refusesHugeStringsNonFiniteNumbersAndHugeEvents() {
        let long = String(repeating: "x", count: MessageLimits.maximumStringBytes + 1)
        var message = Message(type: .track, messageId: "m", anonymousId: "a", event: "e", timestamp: now)
        message.properties = ["text": .string(long)]
        #expect(throws: MessageError.self) { try message.validatedBytes() }
        message.properties = ["nested": ["value": .double(.nan)]]
        do {
            _ = try message.validatedBytes()
        } catch {
            #expect(error.code == .invalidNumber)
            #expect(error.message.contains("properties.nested.value"))
        }
        let chunk = String(repeating: "y", count: 8000)
        message.properties = Dictionary(
            uniqueKeysWithValues: (0..<5).map { ("k\($0)", JSONValue.string(chunk)) })
        #expect(throws: MessageError.self) { try message.validatedBytes() }
    }

    @Test func gzipRoundTripsAndRefusesBombs() throws {
        let text = Array(String(repeating: "{\"event\":\"Tapped\"},", count: 1000).utf8)
        let packed = Gzip.compress(text)
        #expect(packed.count < text.count / 10)
        #expect(try Gzip.decompress(packed, limit: 1 << 20) == text)
        #expect(throws: GzipError.self) { try Gzip.decompress(packed, limit: 100) }
        let zeros = Gzip.compress([UInt8](repeating: 0, count: 4 << 20))
        #expect(throws: GzipError.self) { try Gzip.decompress(zeros, limit: 8 << 20) }
        #expect(throws: GzipError.self) { try Gzip.decompress(Array("not gzip".utf8), limit: 100) }
        #expect(throws: GzipError.self) { try Gzip.decompress(Array(packed.dropLast(4)), limit: 1 << 20) }
    }
}

struct MessageEncodingTests {
    /// `jsonBytes` is written directly for speed; it must equal the generic writer's output.
    @Test(arguments: MessageType.allCases) func directEncodingMatchesTheGenericWriter(type: MessageType) {
        let time = Timestamp(millisecondsSince1970: 1_795_981_800_123)
        let full = Message(
            type: type, messageId: "m\"1", anonymousId: "a\n", userId: "u", event: "E", name: "N",
            previousId: "p", groupId: "g", timestamp: time, sentAt: time.adding(milliseconds: 5),
            context: ["library": ["name": "footprint"], "sessionId": "s"],
            properties: ["x": 1, "y": [1.5, "z", nil, true]], traits: ["plan": "pro"])
        #expect(full.jsonBytes == JSONWriter.bytes(full.json))
        let bare = Message(type: type, messageId: "m", timestamp: time)
        #expect(bare.jsonBytes == JSONWriter.bytes(bare.json))
    }
}
