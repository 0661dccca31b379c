/// How many purpose-method events each (class, selector) pair may raise: a burst, then a
/// steady rate. A plan can name a method the app calls far more often than a person acts (a
/// timer's, a loop's, one UIKit calls per frame that ``PurposeMethodRule`` does not know); each
/// call past the limit is dropped and counted, so that one plan edit cannot fill every user's
/// queue and push real events out.
///
/// A pure state machine (the generic cell rate algorithm: one "next free time" per pair); the
/// caller passes the time. ``AutoCapture`` drives it on the main thread.
struct PurposeMethodRateLimiter: Sendable {
    /// What to do with one call.
    enum Decision: Sendable, Hashable {
        /// Raise the plan's event.
        case record
        /// Drop it. `report` is true on the pair's 1st, 10th, 100th… dropped call: the plan's
        /// health is sent again then, with the counts (a few reports per pair, whatever the rate).
        case drop(report: Bool)
    }

    /// The limit.
    let limit: PurposeMethodLimit
    /// When each pair's next call fits the steady pace (its burst is spent while this lies
    /// more than `burst − 1` paces ahead).
    private var nextFree: [CaptureHooks.Method: Timestamp] = [:]
    /// The calls dropped per pair since the limiter was made.
    private(set) var dropped: [CaptureHooks.Method: Int] = [:]

    /// Creates a limiter.
    /// - Parameter limit: the limit per pair. Default: ``PurposeMethodLimit/init(burst:millisecondsPerCall:)``.
    init(limit: PurposeMethodLimit = PurposeMethodLimit()) {
        self.limit = limit
    }

    /// A call of `method` at `now`: recorded, or dropped (and counted) when the pair has spent
    /// its burst and runs faster than the steady pace.
    mutating func call(_ method: CaptureHooks.Method, at now: Timestamp) -> Decision {
        let pace = limit.millisecondsPerCall
        let time = now.millisecondsSince1970
        let start = max(nextFree[method]?.millisecondsSince1970 ?? time, time)
        guard start - time <= pace * Int64(limit.burst - 1) else {
            let count = dropped[method, default: 0] + 1
            dropped[method] = count
            return .drop(report: Self.isPowerOfTen(count))
        }
        nextFree[method] = Timestamp(millisecondsSince1970: start + pace)
        return .record
    }

    private static func isPowerOfTen(_ count: Int) -> Bool {
        var value = count
        while value >= 10, value % 10 == 0 { value /= 10 }
        return value == 1
    }
}

/// How many purpose-method events each (class, selector) pair may raise
/// (``AutoCaptureConfiguration/purposeMethodLimit``), applied by ``PurposeMethodRateLimiter``.
public struct PurposeMethodLimit: Sendable, Hashable {
    /// Calls a pair may make at once after being quiet. Default: 10.
    public var burst: Int
    /// The steady pace once the burst is spent: one call per this many milliseconds.
    /// Default: 1,000 (one a second).
    public var millisecondsPerCall: Int64

    /// Creates a limit.
    /// - Parameters:
    ///   - burst: calls at once after a quiet spell (1 to 1,000,000). Default: 10.
    ///   - millisecondsPerCall: the steady pace (1 ms to a day). Default: 1,000.
    public init(burst: Int = 10, millisecondsPerCall: Int64 = 1000) {
        self.burst = min(max(1, burst), 1_000_000)
        self.millisecondsPerCall = min(max(1, millisecondsPerCall), 86_400_000)
    }

    /// For people, as plan health's reason: `more than 10 calls at once or 1 a second`.
    var summary: String {
        let pace =
            millisecondsPerCall % 1000 == 0
            ? (millisecondsPerCall == 1000 ? "1 a second" : "1 every \(millisecondsPerCall / 1000) s")
            : "1 every \(millisecondsPerCall) ms"
        return "more than \(burst) calls at once or \(pace)"
    }
}
