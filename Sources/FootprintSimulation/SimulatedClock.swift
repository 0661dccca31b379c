import Footprint
import FootprintWire
import Foundation

/// A clock that moves only when its owner moves it: for simulations (the demo shares one
/// between every virtual user's tracker and the server, so simulated days are the report's days)
/// and for tests. Never goes back.
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
