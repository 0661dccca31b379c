import FootprintWire

/// A token bucket per key: ``Rate/requestsPerSecond`` refill, ``Rate/burst`` capacity.
/// A pure state machine; the caller passes the time.
///
/// ``admit(key:now:)`` takes a token only when there is one (ingest: each request pays
/// before it is served). ``check(key:now:)`` and ``charge(key:now:)`` split that in two for
/// failures (sign-ins: only a wrong token pays, after the fact, and may run the bucket into
/// debt so that a burst of concurrent failures is paid for in full).
public struct RateLimiter: Sendable {
    /// The allowed rate.
    public struct Rate: Sendable, Hashable {
        /// Sustained requests per second per key.
        public var requestsPerSecond: Double
        /// Requests a key may make at once after being idle.
        public var burst: Double

        /// Creates a rate.
        public init(requestsPerSecond: Double, burst: Double) {
            self.requestsPerSecond = requestsPerSecond
            self.burst = burst
        }
    }

    /// What to do with a request.
    public enum Decision: Sendable, Hashable {
        /// Serve it.
        case allow
        /// Refuse it; the client may retry after this many whole seconds.
        case deny(retryAfterSeconds: Int)
    }

    private struct Bucket {
        var tokens: Double
        var updated: Timestamp
    }

    /// The rate applied to every key.
    public let rate: Rate
    private var buckets: [String: Bucket] = [:]

    /// Creates a limiter.
    public init(rate: Rate) {
        self.rate = rate
    }

    /// The keys whose bucket is not known to be full (at most one per key ever used).
    public var keyCount: Int { buckets.count }

    /// Takes one token from `key`'s bucket, if it has one.
    public mutating func admit(key: String, now: Timestamp) -> Decision {
        var bucket = refilled(key, now: now)
        defer { buckets[key] = bucket }
        let decision = decide(bucket)
        if decision == .allow { bucket.tokens -= 1 }
        return decision
    }

    /// Whether `key`'s bucket holds a token now, without taking it.
    public func check(key: String, now: Timestamp) -> Decision {
        decide(refilled(key, now: now))
    }

    /// Takes one token from `key`'s bucket even when it has none: the bucket goes into debt
    /// and refuses until the refill has paid it back.
    public mutating func charge(key: String, now: Timestamp) {
        var bucket = refilled(key, now: now)
        bucket.tokens -= 1
        buckets[key] = bucket
    }

    /// Forgets every bucket that has refilled to ``Rate/burst`` by `now`: a full bucket and a
    /// key never seen behave the same, so nothing changes but the memory held.
    public mutating func forgetFullBuckets(now: Timestamp) {
        buckets = buckets.filter { key, _ in refilled(key, now: now).tokens < rate.burst }
    }

    private func refilled(_ key: String, now: Timestamp) -> Bucket {
        var bucket = buckets[key] ?? Bucket(tokens: rate.burst, updated: now)
        let elapsed = Double(max(0, now.millisecondsSince1970 - bucket.updated.millisecondsSince1970)) / 1000
        bucket.tokens = min(rate.burst, bucket.tokens + elapsed * rate.requestsPerSecond)
        bucket.updated = max(now, bucket.updated)
        return bucket
    }

    private func decide(_ bucket: Bucket) -> Decision {
        if bucket.tokens >= 1 { return .allow }
        let wait = (1 - bucket.tokens) / max(rate.requestsPerSecond, 1e-9)
        return .deny(retryAfterSeconds: max(1, Int(wait.rounded(.up))))
    }
}
