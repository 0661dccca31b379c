/// The rules of a connect session on the device, pure (no I/O, the time passed in): when a
/// snapshot is taken and uploaded, how often, and when the session is over.
///
/// A session starts from a connect link and takes a snapshot at once; then one at every page
/// appearance and on demand. One snapshot is in flight at a time; requests that arrive meanwhile,
/// or sooner than ``Configuration/minimumIntervalSeconds`` after the last, are merged into one
/// that runs when allowed (``Action/wake(at:)``). The session ends when the server answers 410
/// or 403 (ended, expired or unknown token), 401 (refused write key), after too many failures
/// in a row, after ``Configuration/maximumDurationSeconds``, or when stopped. Outside a session
/// nothing is ever captured.
public struct ConnectSession: Sendable {
    /// The session's limits.
    public struct Configuration: Sendable, Hashable {
        /// The shortest time between two snapshots, in seconds. Default 1.
        public var minimumIntervalSeconds: Double = 1
        /// How long a session lasts on the device at most, in seconds (the server's token ends
        /// sooner when it is shorter). Default 600 (10 minutes).
        public var maximumDurationSeconds: Double = 600
        /// Failed uploads in a row (network, 5xx) after which the session ends. Default 5.
        public var maximumConsecutiveFailures: Int = 5
        /// The longest wait after a failure or a 429, in seconds. Default 30.
        public var maximumRetryDelaySeconds: Double = 30

        /// Creates the default configuration.
        public init() {}
    }

    /// Why a session ended.
    public enum EndReason: Sendable, Hashable {
        /// It lasted ``Configuration/maximumDurationSeconds``.
        case expired
        /// The server ended it or does not know it (410, 403).
        case endedByServer(status: Int)
        /// The server refused the write key (401).
        case refusedWriteKey
        /// Too many uploads failed in a row.
        case tooManyFailures
        /// The app stopped it.
        case stopped
    }

    /// What came of one snapshot.
    public enum UploadOutcome: Sendable, Hashable {
        /// Stored (2xx).
        case stored
        /// There was nothing to capture (no screen), or nothing was sent.
        case skipped
        /// Refused for its content (400, 413, 422): dropped, the session goes on.
        case refused(status: Int)
        /// Too many requests (429): wait this many seconds (at least the minimum interval).
        case rateLimited(retryAfterSeconds: Double?)
        /// The session is over on the server (410, 403).
        case ended(status: Int)
        /// The write key was refused (401).
        case unauthorized
        /// No answer, or a 5xx: retried with backoff.
        case failed

        /// Reads a response (`nil`: no answer at all).
        public init(response: HTTPResponse?) {
            guard let response else {
                self = .failed
                return
            }
            switch response.status {
            case 200..<300: self = .stored
            case 401: self = .unauthorized
            case 403, 410: self = .ended(status: response.status)
            case 429:
                self = .rateLimited(
                    retryAfterSeconds: response.headers["retry-after"].flatMap { Double($0) }.flatMap {
                        $0.isFinite && $0 >= 0 ? $0 : nil
                    })
            case 400..<500: self = .refused(status: response.status)
            default: self = .failed
            }
        }
    }

    /// What the owner must do.
    public enum Action: Sendable, Hashable {
        /// Nothing.
        case none
        /// Take a snapshot now and upload it, then report ``uploadFinished(_:now:)``.
        case capture(ScreenSnapshot.Trigger)
        /// Call ``wake(now:)`` at this time: a request waits for it.
        case wake(at: Timestamp)
        /// The session just ended.
        case ended(EndReason)
    }

    private struct Active: Sendable {
        var link: ConnectLink
        var expiresAt: Timestamp
        var isInFlight = false
        var pending: ScreenSnapshot.Trigger?
        var notBefore: Timestamp
        var failures = 0
    }

    private enum Phase: Sendable {
        case idle
        case active(Active)
        case ended(EndReason)
    }

    /// The limits in force.
    public let configuration: Configuration
    private var phase = Phase.idle

    /// Creates an idle session.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The link of the open session, when one is open (and not yet past its expiry at `now`).
    public func link(at now: Timestamp) -> ConnectLink? {
        guard case .active(let active) = phase, now < active.expiresAt else { return nil }
        return active.link
    }

    /// Whether a session is open at `now`: the only time a snapshot may be sent.
    public func isActive(at now: Timestamp) -> Bool { link(at: now) != nil }

    /// Why the last session ended, when it did.
    public var endReason: EndReason? {
        if case .ended(let reason) = phase { return reason }
        return nil
    }

    /// A connect link was opened: a new session replaces any other and snapshots the screen.
    public mutating func start(_ link: ConnectLink, now: Timestamp) -> Action {
        let duration = Int64(min(max(configuration.maximumDurationSeconds, 0), 86_400) * 1000)
        var active = Active(link: link, expiresAt: now.adding(milliseconds: duration), notBefore: now)
        if case .active(let previous) = phase, previous.isInFlight {
            // The previous upload still runs; its result is read for this session's pacing.
            active.isInFlight = true
            active.pending = .pageAppear
            phase = .active(active)
            return .none
        }
        active.isInFlight = true
        phase = .active(active)
        return .capture(.pageAppear)
    }

    /// The app stopped the session.
    public mutating func stop() -> Action {
        guard case .active = phase else { return .none }
        phase = .ended(.stopped)
        return .ended(.stopped)
    }

    /// A page appeared (``ScreenSnapshot/Trigger/pageAppear``) or the app asked for a snapshot
    /// (``ScreenSnapshot/Trigger/onDemand``).
    public mutating func request(_ trigger: ScreenSnapshot.Trigger, now: Timestamp) -> Action {
        guard var active = activeSession(now: now) else { return expiryAction(now: now) }
        active.pending = Self.merged(active.pending, trigger)
        return next(active, now: now)
    }

    /// The time asked for by ``Action/wake(at:)`` has come.
    public mutating func wake(now: Timestamp) -> Action {
        guard let active = activeSession(now: now) else { return expiryAction(now: now) }
        return next(active, now: now)
    }

    /// The snapshot asked for by ``Action/capture(_:)`` was uploaded, refused or skipped.
    public mutating func uploadFinished(_ outcome: UploadOutcome, now: Timestamp) -> Action {
        guard var active = activeSession(now: now) else { return expiryAction(now: now) }
        active.isInFlight = false
        let interval = Self.milliseconds(configuration.minimumIntervalSeconds)
        let longest = Self.milliseconds(configuration.maximumRetryDelaySeconds)
        switch outcome {
        case .stored, .skipped, .refused:
            active.failures = 0
            active.notBefore = now.adding(milliseconds: interval)
        case .rateLimited(let seconds):
            let wait = min(max(Self.milliseconds(seconds ?? 0), interval), max(longest, interval))
            active.notBefore = now.adding(milliseconds: wait)
        case .failed:
            active.failures += 1
            guard active.failures < configuration.maximumConsecutiveFailures else {
                phase = .ended(.tooManyFailures)
                return .ended(.tooManyFailures)
            }
            // Doubling from the minimum interval; the screen is captured afresh when it is due.
            let doubled = interval.multipliedReportingOverflow(by: Int64(1) << min(active.failures, 20))
            active.notBefore = now.adding(
                milliseconds: min(doubled.overflow ? longest : doubled.partialValue, max(longest, interval)))
            active.pending = Self.merged(active.pending, .onDemand)
        case .ended(let status):
            phase = .ended(.endedByServer(status: status))
            return .ended(.endedByServer(status: status))
        case .unauthorized:
            phase = .ended(.refusedWriteKey)
            return .ended(.refusedWriteKey)
        }
        return next(active, now: now)
    }

    // MARK: Internals

    /// The open session at `now`; a session past its expiry ends here.
    private mutating func activeSession(now: Timestamp) -> Active? {
        guard case .active(let active) = phase else { return nil }
        guard now < active.expiresAt else {
            phase = .ended(.expired)
            justExpired = true
            return nil
        }
        return active
    }

    /// Set when the last call ended the session by expiry, so that it is announced once.
    private var justExpired = false

    private mutating func expiryAction(now: Timestamp) -> Action {
        guard justExpired else { return .none }
        justExpired = false
        return .ended(.expired)
    }

    private mutating func next(_ state: Active, now: Timestamp) -> Action {
        var active = state
        defer { phase = .active(active) }
        guard !active.isInFlight, let trigger = active.pending else { return .none }
        guard now >= active.notBefore else { return .wake(at: active.notBefore) }
        active.pending = nil
        active.isInFlight = true
        return .capture(trigger)
    }

    /// Two waiting requests are one snapshot; a page appearance names it.
    private static func merged(_ pending: ScreenSnapshot.Trigger?, _ new: ScreenSnapshot.Trigger)
        -> ScreenSnapshot.Trigger
    {
        pending == .pageAppear || new == .pageAppear ? .pageAppear : .onDemand
    }

    private static func milliseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int64(min(seconds, 86_400) * 1000)
    }
}
