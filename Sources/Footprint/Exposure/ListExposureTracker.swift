import Foundation

/// The exposure and skip state machine of one list: fed with ``ListCallback``s and the time they
/// happened, it returns the exposures and skips they decide. Pure: no clock, no I/O, no UIKit.
///
/// **Exposure.** An item is exposed when at least ``ExposureConfiguration/minVisibleRatio`` of
/// its area is inside the visible rect (bounds minus insets) for at least
/// ``ExposureConfiguration/minDwellMilliseconds`` of foreground time. With no dwell, visibility
/// is judged only at rest points (appearance, reload, a drag released without deceleration, the
/// end of a fling or of a scroll animation), as in the list-exposure article; with a dwell it is
/// judged on every scroll too, and a timer per item pauses in the background.
///
/// **Skips.** A fling is the deceleration after the finger lifts, until the next rest point
/// (catching and re-flinging continues it). Its swept region is the union of the visible rects
/// at the smallest and largest offsets seen while decelerating, so bounces, reversals and
/// section crossings are covered. The items in that region that were on screen neither at the
/// previous rest point nor at this one, were not at or above the visible ratio when a finger
/// lifted (the user saw them, even if the fling then carried them away), and were not exposed by
/// dwell meanwhile, are skipped. The direction is the net offset change since the previous rest
/// point; the fling's start is when the drag that flung it began (`willBeginDragging`, where the
/// article records it). Items passed under the finger before release are not skipped (the user
/// was moving them by hand, as in the article's slow drag) unless the deceleration sweeps past
/// them too.
///
/// **Cost.** A `didScroll` with no dwell threshold is O(1); with one it visits only the visible
/// items (binary search in ``ListLayout``) and reuses its buffers, so it does not allocate.
public struct ListExposureTracker: Sendable {
    /// What the list is doing.
    public enum Phase: Sendable, Hashable {
        /// At rest.
        case idle
        /// The finger moves it.
        case dragging
        /// It flies by inertia after a fling.
        case decelerating
        /// It moves without a finger and without a fling: an animation or a programmatic offset.
        case animating
    }

    /// The rules.
    public var configuration: ExposureConfiguration
    /// The items laid out.
    public private(set) var layout: ListLayout
    /// The scroll view's size and insets.
    public private(set) var viewport: ListViewport
    /// The current content offset.
    public private(set) var offset: CGPoint
    /// What the list is doing.
    public private(set) var phase: Phase = .idle
    /// Whether the list is on screen (between `appeared` and `disappeared`).
    public private(set) var isOnScreen = false
    /// When the app went to the background, while it is there.
    public private(set) var backgroundSince: Timestamp?

    /// Identities already counted in the current scope (page view, session, or visit).
    private var counted: Set<ListItem.Identity> = []
    /// The items at or above the visible ratio at the last visibility check, in layout order.
    private var watched: [Watched] = []
    /// The next `watched`, built in place and swapped (reused to avoid allocating).
    private var nextWatched: [Watched] = []
    /// The smallest and largest offsets since the last visibility check.
    private var movedMin: CGPoint
    private var movedMax: CGPoint
    /// The identities on screen at the last rest point.
    private var restIdentities: Set<ListItem.Identity> = []
    /// The offset at the last rest point (where the net direction is measured from).
    private var restOffset: CGPoint
    /// The fling in progress.
    private var fling: Fling?
    /// When a programmatic move counts as settled.
    private var settleDeadline: Timestamp?
    /// When the current drag began (the start of a fling it turns into).
    private var dragStart: Timestamp?

    /// Creates the model of one list, off screen until ``ListCallback/appeared(viewport:offset:)``.
    /// - Parameters:
    ///   - axis: the scroll axis; default vertical.
    ///   - configuration: the rules; default ``ExposureConfiguration``'s documented defaults.
    public init(axis: ListAxis = .vertical, configuration: ExposureConfiguration = ExposureConfiguration()) {
        self.configuration = configuration
        self.layout = .empty(axis)
        self.viewport = ListViewport(size: .zero)
        self.offset = .zero
        self.movedMin = .zero
        self.movedMax = .zero
        self.restOffset = .zero
    }

    /// When the driver must send ``ListCallback/tick`` if nothing else happens first: a dwell
    /// timer expires or a programmatic move settles. `nil` when nothing is pending.
    public var nextDeadline: Timestamp? {
        var deadline = settleDeadline
        if isOnScreen, backgroundSince == nil, configuration.minDwellMilliseconds > 0 {
            for entry in watched where !entry.isCounted {
                let due = entry.since.adding(milliseconds: configuration.minDwellMilliseconds)
                deadline = min(deadline ?? due, due)
            }
        }
        return deadline
    }

    /// The content rect decisions look at after `callback`: the visible rect (at the offset and
    /// viewport the callback brings) and, while a fling flies, the region it swept.
    public func judgedRegion(after callback: ListCallback) -> CGRect {
        var visible: CGRect
        switch callback {
        case .appeared(let newViewport, let newOffset): visible = newViewport.visibleRect(at: newOffset)
        case .viewportChanged(let newViewport): visible = newViewport.visibleRect(at: offset)
        case .didScroll(let newOffset): visible = viewport.visibleRect(at: newOffset)
        default: visible = viewport.visibleRect(at: offset)
        }
        if let fling {
            visible = visible.union(viewport.visibleRect(at: fling.lowest))
                .union(viewport.visibleRect(at: fling.highest))
        }
        return visible
    }

    /// Whether `callback` can decide exposures or skips (every callback but a frame of scrolling
    /// without a dwell threshold and the ones that only note something).
    public func mayDecide(_ callback: ListCallback) -> Bool {
        switch callback {
        case .didScroll: return isDwellMode
        case .willBeginDragging, .appDidEnterBackground, .sessionStarted: return false
        default: return true
        }
    }

    /// Gives the laid-out items inside `rect` the identity `identify` reads for them now: data
    /// that changed without a reload (a diffable data source's `apply`, batch updates, moves)
    /// is judged under the ids it shows, not those read at the last reload.
    public mutating func reidentify(in rect: CGRect, _ identify: (ListIndexPath) -> ListItemIdentity?) {
        _ = layout.reidentify(overlapping: rect, identify)
    }

    /// Applies one callback that happened at `now` and returns what it decided, in order.
    public mutating func handle(_ callback: ListCallback, now: Timestamp) -> [ListExposureEvent] {
        switch callback {
        case .didScroll(let newOffset):
            return didScroll(to: newOffset, now: now)
        case .appeared(let newViewport, let newOffset):
            return appear(viewport: newViewport, offset: newOffset, now: now)
        case .disappeared:
            return disappear(now: now)
        case .dataReloaded(let items):
            return replaceLayout(items, isNewData: true, now: now)
        case .layoutChanged(let items):
            return replaceLayout(items, isNewData: false, now: now)
        case .itemAppeared(let item):
            layout.insert(item)
            return judgeLayoutChange(now: now)
        case .viewportChanged(let newViewport):
            viewport = newViewport
            return phase == .idle ? rest(now: now, trigger: .rest) : []
        case .willBeginDragging:
            if phase == .idle { restOffset = offset }
            // Catching a fling continues it, from its own start.
            if fling == nil { dragStart = now }
            phase = .dragging
            settleDeadline = nil
            return []
        case .didEndDragging(let willDecelerate):
            if willDecelerate {
                beginFling(now: now)
                return []
            }
            return rest(now: now, trigger: .rest)
        case .willBeginDecelerating:
            beginFling(now: now)
            return []
        case .didEndDecelerating, .didEndScrollingAnimation, .didScrollToTop:
            return rest(now: now, trigger: .rest)
        case .appDidEnterBackground:
            if backgroundSince == nil { backgroundSince = now }
            return []
        case .appWillEnterForeground:
            return resumeFromBackground(now: now)
        case .sessionStarted:
            if configuration.repeatPolicy == .oncePerSession { forgetCounted() }
            return []
        case .tick:
            if let deadline = settleDeadline, deadline <= now { return rest(now: now, trigger: .rest) }
            return isDwellMode ? checkVisibility(now: now, trigger: .dwell) : []
        }
    }
}

extension ListExposureTracker {
    /// An item at or above the visible ratio, with the time its dwell timer started (moved
    /// forward by the time spent in the background).
    struct Watched: Sendable {
        var identity: ListItem.Identity
        var since: Timestamp
        var isCounted: Bool
        /// Set on the old entry while a check carries it over.
        var stayed = false
    }

    /// A fling in progress: when it began and the offsets it reached.
    struct Fling: Sendable {
        var start: Timestamp
        var lowest: CGPoint
        var highest: CGPoint
        /// Items exposed by dwell while it flew: seen, so not skipped.
        var exposedMeanwhile: [ListItem.Identity] = []
        /// Items at or above the visible ratio when a finger lifted: seen, so not skipped.
        var seenAtRelease: Set<ListItem.Identity> = []

        mutating func include(_ offset: CGPoint) {
            lowest = CGPoint(x: min(lowest.x, offset.x), y: min(lowest.y, offset.y))
            highest = CGPoint(x: max(highest.x, offset.x), y: max(highest.y, offset.y))
        }
    }

    private var isDwellMode: Bool { configuration.minDwellMilliseconds > 0 }

    private var isWatching: Bool { isOnScreen && backgroundSince == nil }

    // MARK: Callbacks

    /// The hot path: runs at the display's refresh rate while the list moves.
    private mutating func didScroll(to newOffset: CGPoint, now: Timestamp) -> [ListExposureEvent] {
        offset = newOffset
        movedMin = CGPoint(x: min(movedMin.x, newOffset.x), y: min(movedMin.y, newOffset.y))
        movedMax = CGPoint(x: max(movedMax.x, newOffset.x), y: max(movedMax.y, newOffset.y))
        switch phase {
        case .decelerating:
            fling?.include(newOffset)
        case .idle:
            phase = .animating
            settleDeadline = now.adding(milliseconds: configuration.settleMilliseconds)
        case .animating:
            settleDeadline = now.adding(milliseconds: configuration.settleMilliseconds)
        case .dragging:
            break
        }
        return isDwellMode ? checkVisibility(now: now, trigger: .dwell) : []
    }

    private mutating func appear(
        viewport newViewport: ListViewport, offset newOffset: CGPoint, now: Timestamp
    )
        -> [ListExposureEvent]
    {
        viewport = newViewport
        offset = newOffset
        movedMin = newOffset
        movedMax = newOffset
        isOnScreen = true
        phase = .idle
        settleDeadline = nil
        fling = nil
        dragStart = nil
        watched.removeAll(keepingCapacity: true)
        if configuration.repeatPolicy != .oncePerSession { forgetCounted() }
        return rest(now: now, trigger: .load)
    }

    private mutating func disappear(now: Timestamp) -> [ListExposureEvent] {
        var events: [ListExposureEvent] = []
        if fling != nil, let skip = finishFling(now: now, onScreen: identitiesOnScreen()) {
            events.append(.skip(skip))
        }
        isOnScreen = false
        phase = .idle
        settleDeadline = nil
        if configuration.repeatPolicy == .everyReentry { forgetCounted() }
        watched.removeAll(keepingCapacity: true)
        return events
    }

    private mutating func replaceLayout(_ items: [ListItem], isNewData: Bool, now: Timestamp)
        -> [ListExposureEvent]
    {
        var events: [ListExposureEvent] = []
        // The fling's offsets so far describe the old content: settle them against it.
        if isNewData, fling != nil, let skip = finishFling(now: now, onScreen: identitiesOnScreen()) {
            events.append(.skip(skip))
            fling = Fling(start: now, lowest: offset, highest: offset)
            restOffset = offset
            restIdentities.removeAll()
            dragStart = nil
        }
        layout = ListLayout(axis: layout.axis, items: items)
        return events + judgeLayoutChange(now: now)
    }

    /// The layout changed: judged now at rest, by dwell while moving.
    private mutating func judgeLayoutChange(now: Timestamp) -> [ListExposureEvent] {
        if phase == .idle, isOnScreen { return rest(now: now, trigger: .load) }
        return isDwellMode ? checkVisibility(now: now, trigger: .dwell) : []
    }

    private mutating func resumeFromBackground(now: Timestamp) -> [ListExposureEvent] {
        guard let since = backgroundSince else { return [] }
        backgroundSince = nil
        let paused = max(0, now.millisecondsSince1970 - since.millisecondsSince1970)
        for index in watched.indices {
            watched[index].since = watched[index].since.adding(milliseconds: paused)
        }
        if isDwellMode { return checkVisibility(now: now, trigger: .dwell) }
        // Back on screen at rest: whatever arrived meanwhile (a reload) is judged now.
        return phase == .idle ? checkVisibility(now: now, trigger: .load) : []
    }

    /// The finger lifted with speed: the fling starts (or a caught one goes on) from here.
    private mutating func beginFling(now: Timestamp) {
        phase = .decelerating
        settleDeadline = nil
        guard isOnScreen, configuration.tracksSkips else { return }
        if fling == nil {
            fling = Fling(start: dragStart ?? now, lowest: offset, highest: offset)
        } else {
            fling?.include(offset)
        }
        dragStart = nil
        let visible = viewport.visibleRect(at: offset)
        let threshold = configuration.effectiveVisibleRatio
        layout.forEachIndex(overlapping: visible) { index in
            let item = layout.items[index]
            if item.visibleRatio(in: visible) >= threshold { fling?.seenAtRelease.insert(item.identity) }
        }
    }

    // MARK: Decisions

    /// The list stopped: settle the fling, then judge what is on screen.
    private mutating func rest(now: Timestamp, trigger: ExposureTrigger) -> [ListExposureEvent] {
        phase = .idle
        settleDeadline = nil
        guard isOnScreen else { return [] }
        var events: [ListExposureEvent] = []
        let onScreen = identitiesOnScreen()
        if fling != nil, let skip = finishFling(now: now, onScreen: onScreen) {
            events.append(.skip(skip))
        }
        restIdentities = onScreen
        restOffset = offset
        events += checkVisibility(now: now, trigger: isDwellMode ? .dwell : trigger)
        return events
    }

    /// Ends the fling and returns its skips, if any: items in its swept region that were on
    /// screen neither at the previous rest point nor now, and were not exposed meanwhile.
    private mutating func finishFling(now: Timestamp, onScreen: Set<ListItem.Identity>) -> FlingSkip? {
        guard let finished = fling else { return nil }
        fling = nil
        let swept = viewport.visibleRect(at: finished.lowest).union(
            viewport.visibleRect(at: finished.highest))
        var skipped: [ListItem] = []
        var skippedCount = 0
        let limit = max(0, configuration.maximumSkipsPerFling)
        layout.forEachIndex(overlapping: swept) { index in
            let item = layout.items[index]
            guard item.visibleRatio(in: swept) > 0 else { return }
            let identity = item.identity
            guard !restIdentities.contains(identity), !onScreen.contains(identity),
                !finished.seenAtRelease.contains(identity), !finished.exposedMeanwhile.contains(identity)
            else { return }
            skippedCount += 1
            if skipped.count < limit { skipped.append(item) }
        }
        guard skippedCount > 0 else { return nil }
        skipped.sort { $0.indexPath < $1.indexPath }
        let axis = layout.axis
        let change = axis.coordinate(of: offset) - axis.coordinate(of: restOffset)
        return FlingSkip(
            items: skipped, skippedCount: skippedCount,
            direction: change > 0 ? .forward : change < 0 ? .backward : ScrollDirection.none,
            axis: axis, start: finished.start, end: now)
    }

    /// The identities of the items with any part inside the visible rect.
    private func identitiesOnScreen() -> Set<ListItem.Identity> {
        let visible = viewport.visibleRect(at: offset)
        var identities: Set<ListItem.Identity> = []
        layout.forEachIndex(overlapping: visible) { index in
            let item = layout.items[index]
            if item.visibleRatio(in: visible) > 0 { identities.insert(item.identity) }
        }
        return identities
    }

    /// Recomputes which items are at or above the visible ratio, keeps the dwell timers of those
    /// that stayed so since the last check, and exposes those whose dwell is complete.
    private mutating func checkVisibility(now: Timestamp, trigger: ExposureTrigger) -> [ListExposureEvent] {
        defer {
            movedMin = offset
            movedMax = offset
        }
        guard isWatching else { return [] }
        let threshold = configuration.effectiveVisibleRatio
        let visible = viewport.visibleRect(at: offset)
        let lowRect = viewport.visibleRect(at: movedMin)
        let highRect = viewport.visibleRect(at: movedMax)
        let moved = movedMin != offset || movedMax != offset
        nextWatched.removeAll(keepingCapacity: true)
        var cursor = 0
        layout.forEachIndex(overlapping: visible) { index in
            let item = layout.items[index]
            guard item.visibleRatio(in: visible) >= threshold else { return }
            let identity = item.identity
            if let previous = Self.find(identity, in: watched, cursor: &cursor),
                !moved
                    || (item.visibleRatio(in: lowRect) >= threshold
                        && item.visibleRatio(in: highRect) >= threshold)
            {
                watched[previous].stayed = true
                var entry = watched[previous]
                entry.stayed = false
                nextWatched.append(entry)
            } else {
                nextWatched.append(Watched(identity: identity, since: now, isCounted: false))
            }
        }
        if configuration.repeatPolicy == .everyReentry {
            // Whatever dropped below the ratio since the last check counts again when back.
            for entry in watched where entry.isCounted && !entry.stayed { counted.remove(entry.identity) }
        }
        swap(&watched, &nextWatched)
        return exposeDue(now: now, trigger: trigger)
    }

    /// Exposes the watched items whose dwell is complete and that were not counted yet.
    private mutating func exposeDue(now: Timestamp, trigger: ExposureTrigger) -> [ListExposureEvent] {
        var events: [ListExposureEvent] = []
        let dwell = configuration.minDwellMilliseconds
        let visible = viewport.visibleRect(at: offset)
        for index in watched.indices where !watched[index].isCounted {
            let watchedFor = now.millisecondsSince1970 - watched[index].since.millisecondsSince1970
            guard watchedFor >= dwell else { continue }
            watched[index].isCounted = true
            let identity = watched[index].identity
            guard counted.insert(identity).inserted, let item = item(with: identity, near: visible) else {
                continue
            }
            fling?.exposedMeanwhile.append(identity)
            events.append(
                .exposure(
                    ItemExposure(
                        item: item, time: now, visibleRatio: item.visibleRatio(in: visible),
                        dwellMilliseconds: watchedFor, trigger: trigger)))
        }
        return events
    }

    /// The laid-out item with `identity` inside `rect`.
    private func item(with identity: ListItem.Identity, near rect: CGRect) -> ListItem? {
        var found: ListItem?
        layout.forEachIndex(overlapping: rect) { index in
            if found == nil, layout.items[index].identity == identity { found = layout.items[index] }
        }
        return found
    }

    private mutating func forgetCounted() {
        counted.removeAll()
        for index in watched.indices { watched[index].isCounted = false }
    }

    /// The index of `identity` in `entries`, searching forward from `cursor` first: visible
    /// items come in layout order, so consecutive checks match in one pass.
    private static func find(_ identity: ListItem.Identity, in entries: [Watched], cursor: inout Int) -> Int?
    {
        var index = cursor
        while index < entries.count {
            if entries[index].identity == identity {
                cursor = index + 1
                return index
            }
            index += 1
        }
        index = 0
        while index < min(cursor, entries.count) {
            if entries[index].identity == identity { return index }
            index += 1
        }
        return nil
    }
}
