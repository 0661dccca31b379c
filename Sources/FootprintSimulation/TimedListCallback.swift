import Footprint
import FootprintWire

/// A ``ListCallback`` with the time it happens: what ``ScrollSimulator`` produces.
public struct TimedListCallback: Sendable, Equatable {
    /// When it happens.
    public var time: Timestamp
    /// What happens.
    public var callback: ListCallback

    /// Creates a timed callback.
    public init(time: Timestamp, callback: ListCallback) {
        self.time = time
        self.callback = callback
    }
}
