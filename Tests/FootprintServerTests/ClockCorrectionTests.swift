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
