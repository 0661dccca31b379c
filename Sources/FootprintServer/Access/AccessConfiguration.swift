/// Who may read reports and manage the project: tokens separate from write keys (a write key
/// only sends events and fetches the remote config; it reads nothing).
public struct AccessConfiguration: Sendable {
    /// Signs in to the dashboard and authorizes every API call, writes included (definitions,
    /// remote config). Default: a new random token at each start (`fpa_` + 32 hex digits).
    public var adminToken = AccessConfiguration.makeToken(prefix: "fpa_")
    /// Authorizes the read-only report API (`Authorization: Bearer …`) for every project.
    /// Default: a new random token at each start (`fpr_` + 32 hex digits). Read tokens of one
    /// project each are kept in the store (``AccessStore/createReadToken(projectId:at:)``).
    public var readToken = AccessConfiguration.makeToken(prefix: "fpr_")
    /// How long a dashboard sign-in lasts, in seconds. Default 12 hours.
    public var sessionLifetimeSeconds: Int64 = 12 * 3600
    /// Marks the session cookie `Secure` (serve the dashboard over HTTPS). Default `false`.
    public var secureCookies = false
    /// Wrong tokens one client address may send (dashboard sign-ins and report API bearer
    /// tokens together) before it must wait: default 5 at once, then one a minute. Past it,
    /// that address gets `429` with `Retry-After`, right token or not. `nil`: no limit.
    public var failedSignInsPerAddress: RateLimiter.Rate? = RateLimiter.Rate(
        requestsPerSecond: 1.0 / 60, burst: 5)
    /// Wrong tokens all client addresses together may send: default 30 at once, then one
    /// every 2 seconds. Past it, every sign-in and bearer token gets `429` until the
    /// allowance refills (else a right guess would stand out). `nil`: no cap.
    public var failedSignInsOverall: RateLimiter.Rate? = RateLimiter.Rate(requestsPerSecond: 0.5, burst: 30)

    /// Client addresses (IPv4 or IPv6, of the connection itself, never a forwarded one) that may
    /// read `GET /metrics` without a token, such as a Prometheus server's. Default: none (the
    /// read or admin token is needed).
    public var metricsAddresses: [String] = []

    /// Creates the default configuration (random tokens).
    public init() {}

    /// A new random token: `prefix` and 32 hexadecimal digits.
    public static func makeToken(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = (0..<2).map { _ -> String in
            let text = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return prefix + digits.joined()
    }

    /// Compares two secrets in time that does not depend on where they differ or on their
    /// lengths: their SHA-256 digests, with `CRYPTO_memcmp`.
    static func constantTimeEquals(_ given: String, _ expected: String) -> Bool {
        guard !expected.isEmpty else { return false }
        return SecretHash.constantTimeEquals(SecretHash(of: given), SecretHash(of: expected))
    }
}
