import Foundation

/// Drives one ``ListExposureTracker`` for a UI adapter or the demo: reads the clock, applies each
/// callback, and hands the resulting events to the ``CaptureSink``.
///
/// Not thread-safe by design: it belongs to one list and is called on the thread that delivers
/// that list's callbacks (the main thread in an app). The driver also sends
/// ``ListCallback/tick`` at ``nextDeadline`` (a timer) so dwell timers fire while nothing moves.
public final class ListExposureRecorder {
    /// The state machine.
    public private(set) var tracker: ListExposureTracker
    /// The page the list is on, put on every event as `$page_name`.
    public var pageName: String?
    /// Which list of the page, put on every event as `$list_id`; default none.
    public var listId: String?
    /// Reads the business identity of the item at an index path now; default none (items keep
    /// the ids they were laid out with). When set, the ids of the items a decision looks at are
    /// read at that moment, so data changed without a reload (a diffable data source's `apply`,
    /// batch updates, moves) is reported under the ids it shows, and layouts need carry no ids.
    public var identify: ((ListIndexPath) -> ListItemIdentity?)?
    private let clock: any Clock
    private let sink: any CaptureSink

    /// Creates the recorder of one list.
    /// - Parameters:
    ///   - pageName: the page the list is on.
    ///   - listId: which list of the page, when a page has several; default none.
    ///   - axis: the list's scroll axis; default vertical.
    ///   - configuration: the exposure rules; default ``ExposureConfiguration``'s defaults.
    ///   - clock: where the time comes from; default the system clock.
    ///   - sink: receives the events (the SDK tracker).
    public init(
        pageName: String?, listId: String? = nil, axis: ListAxis = .vertical,
        configuration: ExposureConfiguration = ExposureConfiguration(), clock: any Clock = SystemClock(),
        sink: any CaptureSink
    ) {
        self.tracker = ListExposureTracker(axis: axis, configuration: configuration)
        self.pageName = pageName
        self.listId = listId
        self.clock = clock
        self.sink = sink
    }

    /// When to send ``ListCallback/tick`` if nothing else happens first; `nil` when nothing waits.
    public var nextDeadline: Timestamp? { tracker.nextDeadline }

    /// Applies one callback that happens now.
    public func handle(_ callback: ListCallback) {
        let now = clock.now()
        var callback = callback
        if let identify, tracker.mayDecide(callback) {
            let region = tracker.judgedRegion(after: callback)
            switch callback {
            case .dataReloaded(let items):
                callback = .dataReloaded(items: Self.identified(items, in: region, identify))
            case .layoutChanged(let items):
                callback = .layoutChanged(items: Self.identified(items, in: region, identify))
            case .itemAppeared(let item):
                callback = .itemAppeared(Self.identified([item], in: region, identify)[0])
                tracker.reidentify(in: region, identify)
            default: tracker.reidentify(in: region, identify)
            }
        }
        let decisions = tracker.handle(callback, now: now)
        for decision in decisions {
            let flingStart: Timestamp
            if case .skip(let skip) = decision { flingStart = skip.start } else { flingStart = now }
            for event in decision.capturedEvents(
                pageName: pageName, listId: listId, flingId: UUIDv7.make(at: flingStart))
            {
                sink.record(event)
            }
        }
    }

    /// `items` with the ids `identify` reads now for those overlapping `region`.
    private static func identified(
        _ items: [ListItem], in region: CGRect, _ identify: (ListIndexPath) -> ListItemIdentity?
    ) -> [ListItem] {
        var items = items
        for index in items.indices where items[index].frame.intersects(region) {
            guard let identity = identify(items[index].indexPath) else { continue }
            items[index].take(identity)
        }
        return items
    }
}
