import FootprintWire
import Testing

@testable import FootprintServer

struct IngestDecoderTests {
    let receivedAt = Timestamp(iso8601: "2026-11-29T12:00:00.000Z")!

    func decode(_ text: String, as type: MessageType? = nil) throws -> IngestDecoder.Decoded {
        try IngestDecoder.decode(try JSONParser().parse(text), impliedType: type, receivedAt: receivedAt)
    }

    // The Segment HTTP tracking API's documented examples, unchanged.
    @Test func segmentTrackExampleIsAccepted() throws {
        let decoded = try decode(
            """
            {
              "userId": "019mr8mf4r",
              "event": "Item Purchased",
              "properties": {
                "name": "Leap to Conclusions Mat",
                "revenue": 14.99
              },
              "context": {
                "ip": "24.5.68.47"
              },
              "timestamp": "2012-12-02T00:30:12.984Z"
            }
            """, as: .track)
        #expect(decoded.rejections.isEmpty)
        let event = try #require(decoded.events.first)
        #expect(event.type == .track)
        #expect(event.name == "Item Purchased")
        #expect(event.userId == "019mr8mf4r")
        // No sentAt: the client timestamp stands (it is not in the future).
        #expect(event.time == Timestamp(iso8601: "2012-12-02T00:30:12.984Z"))
        #expect(!event.messageId.isEmpty)
    }

    @Test func segmentIdentifyPageScreenAliasGroupExamplesAreAccepted() throws {
        let examples: [(MessageType, String)] = [
            (
                .identify,
                """
                {"userId": "019mr8mf4r", "traits": {"email": "pgibbons@example.com", "name": "Peter Gibbons",
                 "industry": "Technology"}, "context": {"ip": "24.5.68.47"}, "timestamp": "2012-12-02T00:30:08.276Z"}
                """
            ),
            (
                .page,
                """
                {"userId": "019mr8mf4r", "name": "Tracking HTTP API", "timestamp": "2012-12-02T00:31:29.738Z"}
                """
            ),
            (
                .screen,
                """
                {"userId": "019mr8mf4r", "name": "Tracking HTTP API", "timestamp": "2012-12-02T00:31:29.738Z"}
                """
            ),
            (
                .alias,
                """
                {"previousId": "39239-239239-239239-23923", "userId": "019mr8mf4r",
                 "timestamp": "2012-12-02T00:30:08.276Z"}
                """
            ),
            (
                .group,
                """
                {"userId": "019mr8mf4r", "groupId": "8e9df332ac", "traits": {"name": "Initech",
                 "industry": "Technology", "employees": 329, "plan": "enterprise", "total billed": 830},
                 "timestamp": "2012-12-02T00:30:08.276Z"}
                """
            ),
        ]
        for (type, text) in examples {
            let decoded = try decode(text, as: type)
            #expect(decoded.rejections.isEmpty, "\(type): \(decoded.rejections)")
            #expect(decoded.events.first?.type == type)
        }
    }

    @Test func segmentBatchExampleIsAcceptedWithSharedContext() throws {
        let decoded = try decode(
            """
            {
              "batch": [
                {"type": "identify", "userId": "019mr8mf4r",
                 "traits": {"email": "jake@yahoo.com", "name": "Jake Peterson", "age": 26},
                 "timestamp": "2012-12-02T00:30:08.276Z"},
                {"type": "track", "userId": "019mr8mf4r", "event": "Song Played",
                 "properties": {"name": "Fallin for You", "artist": "Dierks Bentley"},
                 "timestamp": "2012-12-02T00:30:12.984Z"},
                {"type": "identify", "userId": "971mj8mk7p",
                 "traits": {"email": "cindy@example.com", "name": "Cindy Gonzalez", "age": 23},
                 "timestamp": "2012-12-02T00:30:08.276Z"},
                {"type": "track", "userId": "971mj8mk7p", "event": "Song Played",
                 "properties": {"name": "Get Right", "artist": "Jennifer Lopez"},
                 "timestamp": "2012-12-02T00:30:12.984Z"}
              ],
              "context": {"device": {"type": "phone", "name": "Apple iPhone 6"}}
            }
            """)
        #expect(decoded.rejections.isEmpty)
        #expect(decoded.events.count == 4)
        #expect(decoded.events.allSatisfy { $0.payload.contains("Apple iPhone 6") })
    }

    @Test func footprintContractColumnsAreExtracted() throws {
        let decoded = try decode(
            """
            {"batch": [
              {"type": "screen", "messageId": "m1", "anonymousId": "a1", "name": "Cart",
               "timestamp": "2026-11-29T11:59:50.000Z",
               "context": {"sessionId": "s1", "app": {"version": "2.1"}, "os": {"name": "iOS", "version": "18.1"}},
               "properties": {"$screen_class": "CartViewController"}},
              {"type": "track", "messageId": "m2", "anonymousId": "a1", "event": "$element_click",
               "timestamp": "2026-11-29T11:59:55.000Z",
               "properties": {"$page_name": "Cart", "$element_path": "UIButton[0]/CartView"}}
            ], "sentAt": "2026-11-29T12:00:10.000Z", "context": {"footprint": {"evicted": 7}}}
            """)
        #expect(decoded.rejections.isEmpty)
        #expect(decoded.evictedCount == 7)
        let screen = decoded.events[0]
        #expect(screen.page == "Cart")
        #expect(screen.sessionId == "s1")
        #expect(screen.appVersion == "2.1")
        #expect(screen.os == "iOS 18.1")
        // sentAt is 20 s after the event by the device clock, so the event was 20 s before receipt.
        #expect(screen.time == receivedAt.adding(milliseconds: -20_000))
        #expect(!screen.payload.contains("footprint"))
        let click = decoded.events[1]
        #expect(click.name == "$element_click")
        #expect(click.page == "Cart")
        #expect(click.elementPath == "UIButton[0]/CartView")
    }

    @Test func invalidEventsAreRejectedOneByOneWithReasons() throws {
        let hugeString = String(repeating: "x", count: 40_000)
        let decoded = try decode(
            """
            {"batch": [
              {"type": "track", "messageId": "ok-1", "anonymousId": "a", "event": "E"},
              {"type": "track", "messageId": "no-event", "anonymousId": "a"},
              {"type": "track", "messageId": "no-id", "event": "E"},
              {"type": "track", "messageId": "bad-time", "anonymousId": "a", "event": "E", "timestamp": "yesterday"},
              {"type": "track", "messageId": "bad-props", "anonymousId": "a", "event": "E", "properties": [1]},
              {"type": "launch", "messageId": "bad-type", "anonymousId": "a"},
              {"type": "track", "messageId": "huge", "anonymousId": "a", "event": "E",
               "properties": {"text": "\(hugeString)"}},
              42,
              {"type": "identify", "messageId": "ok-2", "anonymousId": "a", "userId": "u"}
            ]}
            """)
        #expect(decoded.events.map(\.messageId) == ["ok-1", "ok-2"])
        #expect(decoded.rejections.map(\.index) == [1, 2, 3, 4, 5, 6, 7])
        #expect(
            decoded.rejections.map(\.messageId) == [
                "no-event", "no-id", "bad-time", "bad-props", "bad-type", "huge", nil,
            ])
        #expect(
            decoded.rejections.map(\.code) == [
                "missing_field", "missing_field", "invalid_timestamp", "invalid_field", "invalid_field",
                "string_too_long", "invalid_field",
            ])
        #expect(decoded.identityLinks == [IdentityLink(anonymousId: "a", userId: "u")])
    }

    @Test(arguments: ["[]", "\"batch\"", "{\"batch\": {}}", "{\"events\": []}"])
    func wrongBatchShapeIsRefusedAsAWhole(_ body: String) throws {
        #expect(throws: IngestDecoder.ShapeError.self) { try decode(body) }
    }

    @Test func resentBatchHasTheSameKey() throws {
        let text = Payloads.batch([Payloads.track("m-1"), Payloads.track("m-2")])
        #expect(try decode(text).batchKey == decode(text).batchKey)
        #expect(try decode(text).batchKey != decode(Payloads.batch([Payloads.track("m-1")])).batchKey)
    }

    /// Random damage to a valid batch never crashes the decoder, and every event it reads is
    /// either accepted or rejected.
    @Test func fuzzedBatchesNeverCrashAndAccountForEveryEvent() throws {
        var generator = SeededRandom(seed: 42)
        let base = Array(
            Payloads.batch(
                (0..<5).map { Payloads.track("m-\($0)") },
                extra: ",\"context\":{\"footprint\":{\"evicted\":2}}"
            )
            .utf8)
        for _ in 0..<2000 {
            var bytes = base
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.remove(at: index)
                default: bytes.insert(UInt8.random(in: 32...126, using: &generator), at: index)
                }
            }
            guard let json = try? JSONParser().parse(bytes) else { continue }
            guard let decoded = try? IngestDecoder.decode(json, impliedType: nil, receivedAt: receivedAt)
            else {
                continue
            }
            let count = json["batch"]?.arrayValue?.count ?? 0
            #expect(decoded.events.count + decoded.rejections.count == count)
        }
    }
}
