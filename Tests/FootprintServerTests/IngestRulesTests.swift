import FootprintWire
import Testing

@testable import FootprintServer

struct ClockCorrectionTests {
    let received = Timestamp(iso8601: "2026-11-29T12:00:00.000Z")!

    @Test func sentAtCorrectsADeviceClockThatIsHoursOff() {
        // The device clock is 3 h behind; the event happened 10 s before the send.
        let timestamp = Timestamp(iso8601: "2026-11-29T08:59:50.000Z")!
        let sentAt = Timestamp(iso8601: "2026-11-29T09:00:00.000Z")!
        #expect(
            ClockCorrection.eventTime(timestamp: timestamp, sentAt: sentAt, receivedAt: received)
                == received.adding(milliseconds: -10_000))
    }

    @Test func withoutSentAtTheTimestampStandsUnlessOverADayAhead() {
        let past = Timestamp(iso8601: "2026-11-20T00:00:00.000Z")!
        #expect(ClockCorrection.eventTime(timestamp: past, sentAt: nil, receivedAt: received) == past)
        let slightlyAhead = received.adding(milliseconds: 3_600_000)
        #expect(
            ClockCorrection.eventTime(timestamp: slightlyAhead, sentAt: nil, receivedAt: received)
                == slightlyAhead)
        let farAhead = received.adding(milliseconds: 2 * 86_400_000)
        #expect(ClockCorrection.eventTime(timestamp: farAhead, sentAt: nil, receivedAt: received) == received)
    }

    @Test func sentAtBeforeTheEventIsNotSaneAndIsIgnored() {
        let timestamp = Timestamp(iso8601: "2026-11-29T11:00:00.000Z")!
        let sentAt = timestamp.adding(milliseconds: -5000)
        #expect(
            ClockCorrection.eventTime(timestamp: timestamp, sentAt: sentAt, receivedAt: received) == timestamp
        )
    }

    @Test func missingTimestampIsTheReceiptTime() {
        #expect(ClockCorrection.eventTime(timestamp: nil, sentAt: received, receivedAt: received) == received)
    }
}

struct RateLimiterTests {
    @Test func burstThenRefillAtTheRate() {
        var limiter = RateLimiter(rate: RateLimiter.Rate(requestsPerSecond: 2, burst: 3))
        let start = Timestamp(millisecondsSince1970: 1_000_000)
        for _ in 0..<3 { #expect(limiter.admit(key: "k", now: start) == .allow) }
        #expect(limiter.admit(key: "k", now: start) == .deny(retryAfterSeconds: 1))
        #expect(limiter.admit(key: "other", now: start) == .allow)
        #expect(limiter.admit(key: "k", now: start.adding(milliseconds: 500)) == .allow)
        #expect(limiter.admit(key: "k", now: start.adding(milliseconds: 500)) == .deny(retryAfterSeconds: 1))
    }

    @Test(arguments: [0.5, 1, 10, 100])
    func neverAdmitsMoreThanBurstPlusRate(_ rate: Double) {
        var limiter = RateLimiter(rate: RateLimiter.Rate(requestsPerSecond: rate, burst: 5))
        var admitted = 0
        for step in 0..<1000 {
            // 10 seconds, one attempt every 10 ms.
            if limiter.admit(key: "k", now: Timestamp(millisecondsSince1970: Int64(step) * 10)) == .allow {
                admitted += 1
            }
        }
        #expect(Double(admitted) <= 5 + rate * 10 + 1)
        #expect(admitted >= min(1000, Int(rate * 10)))
    }
}

struct WriteKeyCredentialsTests {
    @Test(arguments: [
        ("Basic Zm9vOg==", "foo"),  // foo:
        ("Basic Zm9v", "foo"),  // foo (no colon)
        ("basic Zm9vOmJhcg==", "foo"),  // foo:bar
        ("Bearer fp_123", "fp_123"),
    ])
    func readsTheKey(_ header: String, _ key: String) {
        #expect(WriteKeyCredentials.writeKey(authorization: header) == key)
    }

    @Test(arguments: ["", "Basic", "Basic !!!", "Basic Og==", "Digest abc"])
    func refusesWhatIsNotAKey(_ header: String) {
        #expect(WriteKeyCredentials.writeKey(authorization: header) == nil)
    }
}

struct RemoteConfigValidatorTests {
    @Test func acceptsAnObjectWithAnIntegerVersion() throws {
        let (_, version) = try RemoteConfigValidator.validate(Array(#"{"version": 3, "events": []}"#.utf8))
        #expect(version == 3)
    }

    @Test(arguments: [#"[]"#, #"{"version": "3"}"#, #"{"version": 1.5}"#, #"{}"#, #"{"version": 0}"#, "{"])
    func refusesAnythingElse(_ text: String) {
        #expect(throws: ServerError.self) { try RemoteConfigValidator.validate(Array(text.utf8)) }
    }
}
