import Testing

@testable import Footprint

struct SessionStateTests {
    let start = Timestamp(millisecondsSince1970: 1_795_981_800_000)
    let timeout: Int64 = 30 * 60 * 1000

    func at(_ milliseconds: Int64) -> Timestamp { start.adding(milliseconds: milliseconds) }

    @Test func firstEventStartsASession() {
        var session = SessionState(timeoutMilliseconds: timeout)
        #expect(session.sessionId(forEventAt: start) { "s1" } == "s1")
        #expect(session.id == "s1")
    }

    @Test func eventsWithinTheTimeoutKeepTheSession() {
        var session = SessionState(timeoutMilliseconds: timeout)
        var ids: [String] = []
        var counter = 0
        for minute in stride(from: Int64(0), through: 120, by: 29) {
            ids.append(
                session.sessionId(forEventAt: at(minute * 60_000)) {
                    counter += 1; return "s\(counter)"
                })
        }
        #expect(Set(ids) == ["s1"])
    }

    @Test func inactivityLongerThanTheTimeoutStartsANewSession() {
        var session = SessionState(timeoutMilliseconds: timeout)
        _ = session.sessionId(forEventAt: start) { "s1" }
        #expect(session.sessionId(forEventAt: at(timeout)) { "s2" } == "s1")
        #expect(session.sessionId(forEventAt: at(2 * timeout + 1)) { "s2" } == "s2")
    }

    @Test func aLongBackgroundStayEndsTheSession() {
        var session = SessionState(timeoutMilliseconds: timeout)
        _ = session.sessionId(forEventAt: start) { "s1" }
        session.enteredBackground(at: at(1000))
        // Events captured in the background (a push handler) keep the session alive...
        _ = session.sessionId(forEventAt: at(timeout)) { "x" }
        // ...but the stay itself was longer than the timeout.
        let ended = session.enteredForeground(at: at(timeout + 2000))
        #expect(ended)
        #expect(session.sessionId(forEventAt: at(timeout + 2001)) { "s2" } == "s2")
    }

    @Test func aShortBackgroundStayKeepsTheSession() {
        var session = SessionState(timeoutMilliseconds: timeout)
        _ = session.sessionId(forEventAt: start) { "s1" }
        session.enteredBackground(at: at(1000))
        let ended = session.enteredForeground(at: at(timeout - 1))
        #expect(!ended)
        #expect(session.sessionId(forEventAt: at(timeout)) { "s2" } == "s1")
    }

    @Test func foregroundWithoutBackgroundChangesNothing() {
        var session = SessionState(timeoutMilliseconds: timeout)
        _ = session.sessionId(forEventAt: start) { "s1" }
        let ended = session.enteredForeground(at: at(10 * timeout))
        #expect(!ended)
    }

    @Test func aStoredSessionResumesWithinTheTimeout() {
        var resumed = SessionState(timeoutMilliseconds: timeout, resuming: "old", lastActivity: start)
        #expect(resumed.sessionId(forEventAt: at(60_000)) { "new" } == "old")
        var expired = SessionState(timeoutMilliseconds: timeout, resuming: "old", lastActivity: start)
        #expect(expired.sessionId(forEventAt: at(timeout + 1)) { "new" } == "new")
    }

    @Test func aClockStepBackwardsKeepsTheSession() {
        var session = SessionState(timeoutMilliseconds: timeout)
        _ = session.sessionId(forEventAt: at(60_000)) { "s1" }
        #expect(session.sessionId(forEventAt: start) { "s2" } == "s1")
        #expect(session.lastActivity == at(60_000))
    }

    /// Property: over random event gaps, a new session starts exactly when a gap exceeds the
    /// timeout.
    @Test(arguments: 0..<20) func newSessionExactlyWhenAGapExceedsTheTimeout(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed))
        var session = SessionState(timeoutMilliseconds: timeout)
        var time = start
        var counter = 0
        var previous = session.sessionId(forEventAt: time) {
            counter += 1; return "s\(counter)"
        }
        for _ in 0..<200 {
            let gap = Int64.random(in: 0...(2 * timeout), using: &random)
            time = time.adding(milliseconds: gap)
            let id = session.sessionId(forEventAt: time) {
                counter += 1; return "s\(counter)"
            }
            #expect((id != previous) == (gap > timeout))
            previous = id
        }
    }
}
