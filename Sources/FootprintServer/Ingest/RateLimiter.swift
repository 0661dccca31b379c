import FootprintWire

/// A token bucket per write key: ``Rate/requestsPerSecond`` refill, ``Rate/burst`` capacity.
/// A pure state machine; the caller passes the time.
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

    /// Takes one token from `key`'s bucket, if it has one.
    public mutating func admit(key: String, now: Timestamp) -> Decision {
        var bucket = buckets[key] ?? Bucket(tokens: rate.burst, updated: now)
        let elapsed = Double(max(0, now.millisecondsSince1970 - bucket.updated.millisecondsSince1970)) / 1000
        bucket.tokens = min(rate.burst, bucket.tokens + elapsed * rate.requestsPerSecond)
        bucket.updated = now
        defer { buckets[key] = bucket }
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            return .allow
        }
        let wait = (1 - bucket.tokens) / max(rate.requestsPerSecond, 1e-9)
        return .deny(retryAfterSeconds: max(1, Int(wait.rounded(.up))))
    }
}
