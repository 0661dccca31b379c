import FootprintWire
import Testing

@testable import FootprintServer

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

struct RateLimiterFailureTests {
    @Test func checkTakesNothingAndChargeRunsIntoDebt() {
        var limiter = RateLimiter(rate: RateLimiter.Rate(requestsPerSecond: 1, burst: 2))
        let start = Timestamp(millisecondsSince1970: 1_000_000)
        for _ in 0..<10 { #expect(limiter.check(key: "k", now: start) == .allow) }
        #expect(limiter.keyCount == 0, "a check stores nothing")
        for _ in 0..<5 { limiter.charge(key: "k", now: start) }
        // 2 - 5 = -3 tokens: 4 seconds until one is whole again.
        #expect(limiter.check(key: "k", now: start) == .deny(retryAfterSeconds: 4))
        #expect(
            limiter.check(key: "k", now: start.adding(milliseconds: 3_999)) == .deny(retryAfterSeconds: 1))
        #expect(limiter.check(key: "k", now: start.adding(milliseconds: 4_000)) == .allow)
    }

    @Test func fullBucketsAreForgottenAndBehaveAsNew() {
        var limiter = RateLimiter(rate: RateLimiter.Rate(requestsPerSecond: 1, burst: 2))
        let start = Timestamp(millisecondsSince1970: 1_000_000)
        limiter.charge(key: "a", now: start)
        limiter.charge(key: "b", now: start)
        limiter.charge(key: "b", now: start)
        limiter.forgetFullBuckets(now: start.adding(milliseconds: 1_000))
        #expect(limiter.keyCount == 1, "a is full again after 1 s; b is not")
        #expect(limiter.check(key: "b", now: start.adding(milliseconds: 1_000)) == .allow)
        limiter.forgetFullBuckets(now: start.adding(milliseconds: 2_000))
        #expect(limiter.keyCount == 0)
    }
}
