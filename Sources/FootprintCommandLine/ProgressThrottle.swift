/// When a long step shows its progress: not in its first seconds (a quick run stays quiet), then
/// at most once an interval, so a progress line on standard error never floods it.
///
/// A pure state machine: the caller passes the time (seconds on any monotonic clock) of each
/// update and prints only when told.
public struct ProgressThrottle: Sendable, Hashable {
    /// How long the step runs before its first progress line, in seconds. Default 2.
    public var delay: Double
    /// The least time between two lines, in seconds. Default 1.
    public var interval: Double
    /// When the step started.
    public let start: Double
    /// When a line was last shown, `nil` before the first.
    public private(set) var lastShown: Double?

    /// Creates a throttle for a step that started at `start`.
    /// - Parameters:
    ///   - start: the step's start, in seconds.
    ///   - delay: default 2 s.
    ///   - interval: default 1 s.
    public init(start: Double, delay: Double = 2, interval: Double = 1) {
        self.start = start
        self.delay = delay
        self.interval = interval
    }

    /// Whether the update at `now` is shown; counts it as shown when it is.
    public mutating func shouldShow(at now: Double) -> Bool {
        guard now - start >= delay else { return false }
        if let lastShown, now - lastShown < interval { return false }
        lastShown = now
        return true
    }

    /// Whether any line was shown (then a last one should say the step is done).
    public var hasShown: Bool { lastShown != nil }
}
