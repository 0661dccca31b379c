import Footprint
import Foundation

/// Stands between automatic capture (pages, elements, list exposure) and a tracker: counts each
/// event it passes on, by name, and exposures and skips by item.
public final class CountingSink: CaptureSink, @unchecked Sendable {
    /// What passed through.
    public struct Counts: Sendable, Hashable {
        /// Events by name; page views as `$screen`.
        public var eventsByName: [String: Int] = [:]
        /// `$item_exposure` events per `$item_id`.
        public var exposures: [String: Int] = [:]
        /// `$item_skip` events per `$item_id`.
        public var skips: [String: Int] = [:]
    }

    private let next: any CaptureSink
    private let lock = NSLock()
    private var counted = Counts()

    /// Creates a sink that counts, then hands every event to `next`.
    public init(passingTo next: any CaptureSink) {
        self.next = next
    }

    /// What passed through so far.
    public var counts: Counts {
        lock.lock()
        defer { lock.unlock() }
        return counted
    }

    public func record(_ event: CapturedEvent) {
        lock.lock()
        switch event.kind {
        case .screen: counted.eventsByName[CapturedEventName.screen, default: 0] += 1
        case .track(let name):
            counted.eventsByName[name, default: 0] += 1
            if case .string(let itemId) = event.properties["$item_id"] {
                if name == ListExposureEvent.exposureEventName { counted.exposures[itemId, default: 0] += 1 }
                if name == ListExposureEvent.skipEventName { counted.skips[itemId, default: 0] += 1 }
            }
        }
        lock.unlock()
        next.record(event)
    }
}
