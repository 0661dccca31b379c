import FootprintWire
import Foundation

/// A clock that moves a fixed step each time it is read, from `start`: time passes per request
/// served rather than with the machine's speed, so a test of rate limits or timeouts gets the
/// same answers on a busy machine.
final class SteppingClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Timestamp
    private let step: Int64

    /// - Parameters:
    ///   - start: the first reading.
    ///   - stepMilliseconds: how far each reading moves the next.
    init(start: Timestamp, stepMilliseconds: Int64) {
        current = start
        step = stepMilliseconds
    }

    func now() -> Timestamp {
        lock.withLock {
            defer { current = current.adding(milliseconds: step) }
            return current
        }
    }
}
