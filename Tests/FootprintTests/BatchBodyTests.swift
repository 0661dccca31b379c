import Testing

@testable import Footprint

struct BatchBodyTests {
    let sentAt = Timestamp(millisecondsSince1970: 1_795_981_800_000)

    func message(_ index: Int, _ properties: JSONObject) -> Message {
        Message(
            type: .track, messageId: "m\(index)", anonymousId: "a", event: "e\(index)",
            timestamp: sentAt.adding(milliseconds: -Int64(index)), context: ["sessionId": "s"],
            properties: properties)
    }

    @Test func stampsSentAtOnTheBatchAndEveryEventAndReportsEvictions() throws {
        let messages = (0..<3).map { message($0, ["i": .int(Int64($0))]) }
        let batch = StoredBatch(
            rowIds: [1, 2, 3], messageIds: messages.map(\.messageId), bodies: messages.map(\.jsonBytes),
            unreportedEvictions: 4)
        let json = try JSONParser().parse(BatchBody.encode(batch, sentAt: sentAt))
        #expect(json["sentAt"] == .string(sentAt.iso8601))
        #expect(json["context"] == ["footprint": ["evicted": 4]])
        let events = try #require(json["batch"]?.arrayValue)
        for (event, original) in zip(events, messages) {
            var stamped = original
            stamped.sentAt = sentAt
            #expect(event == stamped.json)
        }
    }

    @Test func anEmptyBatchIsStillValidJSON() throws {
        let json = try JSONParser().parse(BatchBody.encode(StoredBatch(), sentAt: sentAt))
        #expect(json["batch"] == [])
        #expect(json["context"] == nil)
    }

    /// Property: for random events, the body parses back to exactly the events, stamped.
    @Test(arguments: 0..<25) func randomEventsRoundTrip(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed))
        let messages = (0..<Int.random(in: 1...30, using: &random)).map { index in
            var properties: JSONObject = [:]
            for key in 0..<Int.random(in: 0...6, using: &random) {
                let value: JSONValue
                switch Int.random(in: 0..<5, using: &random) {
                case 0: value = .int(Int64.random(in: -1_000_000...1_000_000, using: &random))
                case 1: value = .double(Double.random(in: -1e6...1e6, using: &random))
                case 2:
                    value = .string(
                        String(repeating: "\"\\é\n", count: Int.random(in: 0...5, using: &random)))
                case 3: value = .bool(Bool.random(using: &random))
                default: value = [.null, ["nested": "x"]]
                }
                properties["k\(key)"] = value
            }
            return message(index, properties)
        }
        let batch = StoredBatch(
            rowIds: messages.indices.map(Int64.init), messageIds: messages.map(\.messageId),
            bodies: messages.map(\.jsonBytes))
        let json = try JSONParser().parse(BatchBody.encode(batch, sentAt: sentAt))
        let expected = messages.map { original -> JSONValue in
            var stamped = original
            stamped.sentAt = sentAt
            return stamped.json
        }
        #expect(json["batch"]?.arrayValue == expected)
    }
}
