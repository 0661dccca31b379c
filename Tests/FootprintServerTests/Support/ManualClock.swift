import FootprintWire
import Foundation

/// A clock that reads what the test last set: time passes only when a test moves it.
final class ManualClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Timestamp

    init(_ start: Timestamp) {
        current = start
    }

    func now() -> Timestamp { lock.withLock { current } }

    /// Moves the clock forward.
    func advance(seconds: Int64) {
        lock.withLock { current = current.adding(milliseconds: seconds * 1000) }
    }
}
