import FootprintWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Limits wrong admin and read tokens (dashboard sign-ins, report API bearer tokens): a token
/// bucket per client address and one for every address together, both over
/// ``RateLimiter``. A pure state machine; the caller passes the time.
///
/// Only failures pay: ``check(address:now:)`` before a token is compared, ``failed(address:now:)``
/// after a wrong one. A right token costs nothing, so one address's failures never block
/// another address's sign-in, until the failures of all addresses together reach the overall
/// cap (then every sign-in waits, or the cap would tell a right guess from a wrong one).
/// While refused, no token is compared, right or wrong.
public struct SignInLimiter: Sendable {
    /// Whether a sign-in may be tried now.
    public enum Decision: Sendable, Hashable {
        /// Compare the token.
        case allow
        /// This client address failed too often; it may try again after this many seconds.
        case tooManyFromAddress(retryAfterSeconds: Int)
        /// All addresses together failed too often; anyone may try again after this many
        /// seconds.
        case tooManyOverall(retryAfterSeconds: Int)
    }

    /// The key of the single bucket shared by every address.
    private static let overallKey = "*"
    /// Past this many addresses tracked, full buckets are forgotten.
    static let pruneThreshold = 1024

    private var perAddress: RateLimiter?
    private var overall: RateLimiter?

    /// Creates a limiter.
    /// - Parameters:
    ///   - perAddress: failures allowed per client address (`nil`: no limit per address).
    ///   - overall: failures allowed from all addresses together (`nil`: no overall cap).
    public init(perAddress: RateLimiter.Rate?, overall: RateLimiter.Rate?) {
        self.perAddress = perAddress.map(RateLimiter.init(rate:))
        self.overall = overall.map(RateLimiter.init(rate:))
    }

    /// Creates the limiter `access` asks for (``AccessConfiguration/failedSignInsPerAddress``,
    /// ``AccessConfiguration/failedSignInsOverall``).
    public init(access: AccessConfiguration) {
        self.init(perAddress: access.failedSignInsPerAddress, overall: access.failedSignInsOverall)
    }

    /// Whether a sign-in from `address` may be tried now. Changes nothing.
    /// - Parameter address: the client's IP address as text (see ``key(forAddress:)``);
    ///   `nil` when unknown (all unknown callers share one allowance).
    public func check(address: String?, now: Timestamp) -> Decision {
        if let perAddress,
            case .deny(let seconds) = perAddress.check(key: Self.key(forAddress: address), now: now)
        {
            return .tooManyFromAddress(retryAfterSeconds: seconds)
        }
        if let overall, case .deny(let seconds) = overall.check(key: Self.overallKey, now: now) {
            return .tooManyOverall(retryAfterSeconds: seconds)
        }
        return .allow
    }

    /// Counts a wrong token from `address` against its allowance and the overall one.
    public mutating func failed(address: String?, now: Timestamp) {
        overall?.charge(key: Self.overallKey, now: now)
        perAddress?.charge(key: Self.key(forAddress: address), now: now)
        if let count = perAddress?.keyCount, count > Self.pruneThreshold {
            perAddress?.forgetFullBuckets(now: now)
        }
    }

    /// The addresses tracked (for tests: forgotten once their allowance is whole again).
    var trackedAddresses: Int { perAddress?.keyCount ?? 0 }

    /// The allowance an address counts against: an IPv4 address itself; an IPv6 address by its
    /// /64 network, which one host or home usually holds whole (else every address of it would
    /// have an allowance of its own); `unknown` when `nil`.
    public static func key(forAddress address: String?) -> String {
        guard let address else { return "unknown" }
        guard address.contains(":") else { return address }
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }
}
