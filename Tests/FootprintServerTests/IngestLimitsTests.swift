import FootprintWire
import Testing

@testable import FootprintServer

/// Every number and id a client sends is checked where it enters: an event past a limit is
/// refused alone, with a code and a reason, and its neighbours are kept.
struct IngestLimitsTests {
    let receivedAt = Timestamp(iso8601: "2026-11-29T12:00:00.000Z")!

    func decode(_ text: String) throws -> IngestDecoder.Decoded {
        try IngestDecoder.decode(try JSONParser().parse(text), impliedType: nil, receivedAt: receivedAt)
    }

    /// A batch of a valid screen view, the event under test, and another valid screen view.
    func decodeBetweenNeighbours(_ event: String) throws -> IngestDecoder.Decoded {
        let neighbour = { (id: String) in
            #"{"type":"screen","messageId":"\#(id)","anonymousId":"a","name":"Home","timestamp":"2026-11-29T11:00:00Z"}"#
        }
        return try decode(#"{"batch":[\#(neighbour("before")),\#(event),\#(neighbour("after"))]}"#)
    }

    static func leave(duration: String) -> String {
        #"{"type":"track","messageId":"leave","anonymousId":"a","event":"$screen_leave","timestamp":"2026-11-29T11:00:01Z","properties":{"$page_name":"Home","duration_ms":\#(duration)}}"#
    }

    @Test(arguments: [
        "9223372036854775807", "-9223372036854775808", "-1", "1e308", "-1e308", "31622400001",
        "9223372036854775808", "1.5e19",
    ])
    func durationsOutsideTheirRangeRefuseOnlyThatEvent(_ duration: String) throws {
        let decoded = try decodeBetweenNeighbours(Self.leave(duration: duration))
        #expect(decoded.events.map(\.messageId) == ["before", "after"])
        let rejection = try #require(decoded.rejections.first)
        #expect(decoded.rejections.count == 1)
        #expect(rejection.index == 1)
        #expect(rejection.messageId == "leave")
        #expect(rejection.code == "number_out_of_range")
        #expect(rejection.reason.contains("properties.duration_ms"))
        #expect(rejection.reason.contains("31622400000"))
    }

    @Test(arguments: [
        ("0", Int64(0)), ("-0", 0), ("-0.0", 0), ("31622400000", 31_622_400_000), ("1500", 1500),
        ("2.5", nil),
    ])
    func durationsInsideTheirRangeAreKept(_ duration: String, _ stored: Int64?) throws {
        let decoded = try decodeBetweenNeighbours(Self.leave(duration: duration))
        #expect(decoded.rejections.isEmpty)
        #expect(decoded.events.count == 3)
        #expect(decoded.events[1].durationMilliseconds == stored)
    }

    @Test func aDurationThatIsNotANumberIsStoredButNotMeasured() throws {
        let decoded = try decodeBetweenNeighbours(Self.leave(duration: #""9223372036854775807""#))
        #expect(decoded.rejections.isEmpty)
        #expect(decoded.events[1].durationMilliseconds == nil)
    }

    @Test(arguments: ["messageId", "anonymousId", "userId", "event", "name", "previousId", "groupId"])
    func aNULInAnIdOrANameRefusesTheEvent(_ field: String) throws {
        var fields: [String: String] = [
            "messageId": "m-1", "anonymousId": "a", "userId": "u", "event": "Tapped", "name": "Home",
            "previousId": "p", "groupId": "g",
        ]
        fields[field] = "x\u{0}junk"
        let type = field == "previousId" ? "alias" : field == "groupId" ? "group" : "track"
        var object: JSONObject = fields.mapValues { JSONValue.string($0) }
        object["type"] = .string(type)
        object["timestamp"] = .string("2026-11-29T11:00:00Z")
        let event = JSONWriter.string(.object(object))
        let decoded = try decodeBetweenNeighbours(event)
        #expect(decoded.events.map(\.messageId) == ["before", "after"])
        let rejection = try #require(decoded.rejections.first)
        #expect(rejection.code == "invalid_character")
        #expect(rejection.reason == "\(field) holds a NUL character")
    }

    @Test func aNULInsidePropertiesTraitsAndContextIsKept() throws {
        let decoded = try decodeBetweenNeighbours(
            #"{"type":"track","messageId":"t","anonymousId":"a","event":"Tapped","timestamp":"2026-11-29T11:00:00Z","properties":{"note":"a\u0000b","k\u0000ey":1},"context":{"sessionId":"s\u00001"}}"#
        )
        #expect(decoded.rejections.isEmpty)
        let event = try #require(decoded.events.first { $0.messageId == "t" })
        #expect(event.sessionId == "s\u{0}1")
        let payload = try JSONParser().parse(event.payload)
        #expect(payload["properties"]?["note"] == .string("a\u{0}b"))
        #expect(payload["properties"]?["k\u{0}ey"] == .int(1))
    }

    @Test func anEventTimeBeforeTheEpochIsRefused() throws {
        // No sentAt: the client's timestamp stands, and 1969 is before the earliest time.
        let early = try decodeBetweenNeighbours(
            #"{"type":"track","messageId":"old","anonymousId":"a","event":"Tapped","timestamp":"1969-12-31T23:59:59.999Z"}"#
        )
        #expect(early.events.map(\.messageId) == ["before", "after"])
        #expect(early.rejections.first?.code == "timestamp_out_of_range")
        // A sentAt 9,000 years after the timestamp would correct it to long before 1970.
        let skewed = try decodeBetweenNeighbours(
            #"{"type":"track","messageId":"skewed","anonymousId":"a","event":"Tapped","timestamp":"0001-01-01T00:00:00Z","sentAt":"9999-12-31T23:59:59Z"}"#
        )
        #expect(skewed.rejections.first?.code == "timestamp_out_of_range")
        // A device clock set to 1970 with a matching sentAt is corrected and kept.
        let reset = try decodeBetweenNeighbours(
            #"{"type":"track","messageId":"reset","anonymousId":"a","event":"Tapped","timestamp":"1970-01-01T00:00:00Z","sentAt":"1970-01-01T00:00:05Z"}"#
        )
        #expect(reset.rejections.isEmpty)
        #expect(reset.events[1].time == receivedAt.adding(milliseconds: -5000))
    }

    @Test(arguments: [
        ("9223372036854775807", 2_147_483_647), ("1e308", 2_147_483_647), ("-5", 0), ("-1e308", 0),
        ("12", 12),
        ("\"12\"", 0),
    ])
    func theEvictedCountIsHeldInItsRange(_ evicted: String, _ expected: Int) throws {
        let decoded = try decode(#"{"batch":[],"context":{"footprint":{"evicted":\#(evicted)}}}"#)
        #expect(decoded.evictedCount == expected)
    }

    @Test func clockCorrectionIsDefinedForExtremeTimestamps() {
        let extremes: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max]
        for timestamp in extremes {
            for sentAt in extremes {
                for received in extremes {
                    let time = ClockCorrection.eventTime(
                        timestamp: Timestamp(millisecondsSince1970: timestamp),
                        sentAt: Timestamp(millisecondsSince1970: sentAt),
                        receivedAt: Timestamp(millisecondsSince1970: received))
                    if sentAt >= timestamp, !sentAt.subtractingReportingOverflow(timestamp).overflow,
                        !received.subtractingReportingOverflow(sentAt - timestamp).overflow
                    {
                        #expect(time.millisecondsSince1970 == received - (sentAt - timestamp))
                    }
                }
            }
        }
    }
}
