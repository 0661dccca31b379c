import Footprint
import Foundation

/// The demo's time: it moves only when the demo moves it. One instance is shared by every
/// virtual user's tracker and by the server, so that the simulated days are the days of the
/// report.
public final class SimulatedClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Timestamp

    /// Creates a clock showing `start`.
    public init(start: Timestamp) {
        current = start
    }

    public func now() -> Timestamp {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// Moves the time forward by `milliseconds` (a negative amount is ignored).
    public func advance(milliseconds: Int64) {
        lock.lock()
        current = current.adding(milliseconds: max(0, milliseconds))
        lock.unlock()
    }

    /// Moves the time to `time` when it is later; the clock never goes back.
    public func advance(to time: Timestamp) {
        lock.lock()
        if time > current { current = time }
        lock.unlock()
    }
}
