import FootprintWire
import Testing

@testable import FootprintServer

/// The pure sign-in limiter, on an injected time.
struct SignInLimiterTests {
    let start = Timestamp(iso8601: "2026-11-29T08:00:00.000Z")!
    /// 3 failures per address at once, then one a minute; 5 overall, then one every 10 s.
    let limiter = SignInLimiter(
        perAddress: RateLimiter.Rate(requestsPerSecond: 1.0 / 60, burst: 3),
        overall: RateLimiter.Rate(requestsPerSecond: 0.1, burst: 5))

    func at(_ seconds: Int64) -> Timestamp { start.adding(milliseconds: seconds * 1000) }

    @Test func anAddressIsRefusedAfterItsFailuresUntilTheAllowanceRefills() {
        var limiter = self.limiter
        for _ in 0..<3 {
            #expect(limiter.check(address: "10.0.0.1", now: at(0)) == .allow)
            limiter.failed(address: "10.0.0.1", now: at(0))
        }
        #expect(limiter.check(address: "10.0.0.1", now: at(0)) == .tooManyFromAddress(retryAfterSeconds: 60))
        #expect(limiter.check(address: "10.0.0.1", now: at(45)) == .tooManyFromAddress(retryAfterSeconds: 15))
        #expect(limiter.check(address: "10.0.0.1", now: at(60)) == .allow)
        limiter.failed(address: "10.0.0.1", now: at(60))
        #expect(limiter.check(address: "10.0.0.1", now: at(60)) == .tooManyFromAddress(retryAfterSeconds: 60))
    }

    @Test func anotherAddressIsNotBlockedBelowTheOverallCap() {
        var limiter = self.limiter
        for _ in 0..<4 { limiter.failed(address: "10.0.0.1", now: at(0)) }
        #expect(limiter.check(address: "10.0.0.1", now: at(0)) != .allow)
        #expect(limiter.check(address: "10.0.0.2", now: at(0)) == .allow)
        #expect(limiter.check(address: nil, now: at(0)) == .allow)
    }

    @Test func rightTokensCostNothing() {
        var limiter = self.limiter
        // Checks alone (every sign-in whose token then matched) never use the allowance up.
        for second in 0..<100 {
            #expect(limiter.check(address: "10.0.0.1", now: at(Int64(second))) == .allow)
        }
        #expect(limiter.trackedAddresses == 0)
        limiter.failed(address: "10.0.0.1", now: at(100))
        #expect(limiter.check(address: "10.0.0.1", now: at(100)) == .allow)
    }

    @Test func theOverallCapStopsEveryAddressOnceReached() {
        var limiter = self.limiter
        for index in 0..<5 { limiter.failed(address: "10.0.1.\(index)", now: at(0)) }
        #expect(limiter.check(address: "10.0.9.9", now: at(0)) == .tooManyOverall(retryAfterSeconds: 10))
        #expect(limiter.check(address: "10.0.9.9", now: at(10)) == .allow)
    }

    @Test func aBurstOfConcurrentFailuresIsPaidInFull() {
        var limiter = self.limiter
        // 10 guesses checked together before any failed: each is still charged.
        for _ in 0..<10 { #expect(limiter.check(address: "10.0.0.1", now: at(0)) == .allow) }
        for _ in 0..<10 { limiter.failed(address: "10.0.0.1", now: at(0)) }
        // 3 - 10 = -7: 8 minutes until the next attempt.
        #expect(limiter.check(address: "10.0.0.1", now: at(0)) == .tooManyFromAddress(retryAfterSeconds: 480))
    }

    @Test func withoutLimitsEverythingIsAllowed() {
        var limiter = SignInLimiter(perAddress: nil, overall: nil)
        for _ in 0..<1000 { limiter.failed(address: "10.0.0.1", now: at(0)) }
        #expect(limiter.check(address: "10.0.0.1", now: at(0)) == .allow)
    }

    @Test func addressesWithAWholeAllowanceAgainAreForgotten() {
        var limiter = SignInLimiter(
            perAddress: RateLimiter.Rate(requestsPerSecond: 1.0 / 60, burst: 3), overall: nil)
        for index in 0...SignInLimiter.pruneThreshold {
            limiter.failed(address: "10.1.\(index / 256).\(index % 256)", now: at(0))
        }
        #expect(limiter.trackedAddresses == SignInLimiter.pruneThreshold + 1)
        limiter.failed(address: "10.9.9.9", now: at(3600))
        #expect(limiter.trackedAddresses == 1, "an hour later only the newest failure is remembered")
    }

    @Test(arguments: [
        ("192.0.2.7", "192.0.2.7"), ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:bbbb:cccc:dddd:eeee", "2001:db8:1:2::/64"), ("::1", "0:0:0:0::/64"),
    ])
    func ipv6AddressesShareTheAllowanceOfTheirNetwork(_ address: String, _ key: String) {
        #expect(SignInLimiter.key(forAddress: address) == key)
    }
}
