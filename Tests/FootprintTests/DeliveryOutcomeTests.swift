import Testing

@testable import Footprint

struct DeliveryOutcomeTests {
    let now = Timestamp(millisecondsSince1970: 1_795_981_800_000)

    func outcome(_ status: Int, headers: [String: String] = [:], body: String = "") -> DeliveryOutcome {
        DeliveryOutcome(
            response: HTTPResponse(status: status, headers: headers, body: Array(body.utf8)),
            rowsByMessageId: ["m1": 1, "m2": 2], now: now)
    }

    @Test(arguments: [200, 201, 202, 204]) func successStatuses(status: Int) {
        #expect(outcome(status) == .accepted(rejected: [:]))
    }

    @Test func rejectedEventsInASuccessBodyAreNamed() {
        let body =
            #"{"accepted":1,"rejected":[{"messageId":"m2","code":"invalid_number","reason":"price is NaN"},{"messageId":"unknown"}]}"#
        #expect(outcome(200, body: body) == .accepted(rejected: [2: "price is NaN"]))
        let errors = #"{"errors":[{"messageId":"m1","code":"string_too_long"}]}"#
        #expect(outcome(207, body: errors) == .accepted(rejected: [1: "string_too_long"]))
        #expect(outcome(200, body: "not json") == .accepted(rejected: [:]))
    }

    @Test func classifiesEachFailure() {
        #expect(outcome(400, body: "bad") == .badRequest(status: 400, reason: "bad"))
        #expect(outcome(422) == .badRequest(status: 422, reason: "bad request"))
        #expect(outcome(413) == .payloadTooLarge)
        #expect(outcome(401) == .unauthorized(status: 401))
        #expect(outcome(403) == .unauthorized(status: 403))
        for status in [408, 429, 500, 503, 404, 301] {
            #expect(outcome(status) == .retryable(status: status, retryAfterMilliseconds: nil))
        }
        #expect(
            DeliveryOutcome(response: nil, rowsByMessageId: [:], now: now)
                == .retryable(status: nil, retryAfterMilliseconds: nil))
    }

    @Test func readsRetryAfterInSecondsAndAsADate() {
        #expect(
            outcome(429, headers: ["Retry-After": "120"])
                == .retryable(status: 429, retryAfterMilliseconds: 120_000))
        let date = "Sun, 29 Nov 2026 20:00:10 GMT"  // now + 10 s
        #expect(
            DeliveryOutcome.retryAfter(date, now: Timestamp(iso8601: "2026-11-29T20:00:00Z")!) == 10_000)
        #expect(
            outcome(503, headers: ["retry-after": "soon"])
                == .retryable(status: 503, retryAfterMilliseconds: nil))
        #expect(
            DeliveryOutcome.retryAfter(
                "Sunday, 29-Nov-26 20:01:00 GMT", now: Timestamp(iso8601: "2026-11-29T20:00:00Z")!)
                == 60_000)
        #expect(
            DeliveryOutcome.retryAfter(
                "Sun, 29 Nov 2026 19:00:00 GMT", now: Timestamp(iso8601: "2026-11-29T20:00:00Z")!) == 0)
    }

    /// Regression: a delay in seconds too large for milliseconds overflowed (a trap, the app
    /// gone) when multiplied by 1,000. It is now held at the largest value; the policy caps it.
    @Test func aHugeRetryAfterDoesNotOverflow() {
        #expect(
            DeliveryOutcome.retryAfter("9223372036854775807", now: Timestamp(millisecondsSince1970: 0))
                == Int64.max / 1000 * 1000)
        #expect(DeliveryOutcome.retryAfter("-1", now: Timestamp(millisecondsSince1970: 0)) == nil)
    }
}
