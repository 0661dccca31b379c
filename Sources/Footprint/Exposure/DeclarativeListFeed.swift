import Foundation

/// Turns what a declarative UI (SwiftUI) can observe of one scroll view into the
/// ``ListCallback``s that ``ListExposureRecorder`` decides exposures and skips from, as the UIKit
/// adapter does with a table's delegate callbacks. Pure: no clock, no UI; the SwiftUI modifiers
/// only describe what they see and forward it here.
///
/// **Items** report their frames in the scroll view's own coordinate space (the visible area
/// starts at 0,0), when they appear and whenever their frame changes, and say when they
/// disappear. A lazy container drops the rows that scroll away: their content-coordinate frames
/// stay in the layout (up to ``maximumItems``), so a later fling's swept region still holds every
/// item the user scrolled past. At rest the container holds every row that overlaps the visible
/// area, so an item of the layout that overlaps it and is not on screen was removed from the
/// content: it leaves the layout then.
///
/// **Offset.** With scroll geometry (iOS 18) the offset is reported and item frames are converted
/// with it; while the list moves, geometry and item frames arrive a frame apart, so only new
/// items are added then and the whole layout is converted again when it comes to rest. Without it
/// (iOS 15–17) the offset is estimated from one anchor item whose content position is known:
/// when the anchor's frame moves by `d`, the list scrolled by `-d`, and the rows already reported
/// are converted again. The rows are assumed to keep their place in the content meanwhile.
///
/// **Scroll phases** (iOS 18) become the drag and deceleration callbacks, so flings and their
/// skips are detected. Without them every movement is one the list makes on its own: the tracker
/// treats it as a programmatic scroll and judges exposure once the list has been still for
/// ``ExposureConfiguration/settleMilliseconds``; no skips are reported.
public struct DeclarativeListFeed: Sendable {
    /// What the scroll view is doing: SwiftUI's `ScrollPhase`.
    public enum Activity: Sendable, Hashable {
        /// At rest.
        case idle
        /// A finger is down but has not moved the list yet.
        case tracking
        /// The finger moves the list.
        case interacting
        /// The list flies by inertia after the finger lifted.
        case decelerating
        /// The list moves by itself (an animated scroll to a position).
        case animating
    }

    /// One item's report: its frame in the scroll view's coordinate space (content frame minus
    /// content offset) and what to put on its events.
    public struct ItemFrame: Sendable, Equatable {
        /// The business id of what the item shows (`$item_id`).
        public var id: String
        /// Its place in the list.
        public var position: ListIndexPath
        /// Its frame in the scroll view's coordinate space.
        public var frame: CGRect
        /// Business properties for its events.
        public var properties: JSONObject

        /// Creates a report.
        /// - Parameters:
        ///   - id: the business id of what the item shows.
        ///   - position: its place in the list.
        ///   - frame: its frame in the scroll view's coordinate space.
        ///   - properties: business properties for its events; default none.
        public init(id: String, position: ListIndexPath, frame: CGRect, properties: JSONObject = [:]) {
            self.id = id
            self.position = position
            self.frame = frame
            self.properties = properties
        }
    }

    /// What the tracker was last told about movement.
    private enum Movement: Sendable {
        case none, dragging, decelerating, animating
    }

    /// The axis the list scrolls along.
    public let axis: ListAxis
    /// The most items kept in the layout; past it, the items farthest from the visible area
    /// leave (a tenth of it more than needed). Clamped to at least 1. Default 10,000.
    public var maximumItems: Int
    /// Whether the scroll view reports its offset (scroll geometry); otherwise it is estimated.
    public private(set) var reportsOffset = false
    /// The viewport, once known.
    public private(set) var viewport: ListViewport?
    /// The content offset, reported or estimated.
    public private(set) var offset: CGPoint = .zero
    /// Whether the list is on screen.
    public private(set) var isOnScreen = false
    /// Whether the tracker was told the list appeared (needs the viewport).
    private var announced = false
    private var movement = Movement.none
    /// Every item seen since the list appeared, in content coordinates, by id.
    private var known: [String: ListItem] = [:]
    /// The items on screen now (appeared, not disappeared) with their last reported frame.
    private var present: [String: ItemFrame] = [:]
    /// The item whose content position gives the offset when it is not reported.
    private var anchor: String?
    /// Frames corrected since the tracker last received the layout.
    private var layoutIsStale = false

    /// Creates the feed of one list.
    /// - Parameters:
    ///   - axis: the scroll axis; default vertical.
    ///   - maximumItems: the most items kept in the layout; default 10,000.
    public init(axis: ListAxis = .vertical, maximumItems: Int = 10_000) {
        self.axis = axis
        self.maximumItems = maximumItems
    }

    /// The items in the layout, in content coordinates.
    public var layoutItems: [ListItem] { Array(known.values) }

    // MARK: The list

    /// The list came on screen.
    public mutating func appeared() -> [ListCallback] {
        isOnScreen = true
        announced = false
        movement = .none
        // What is not on screen now belongs to an earlier visit.
        known = known.filter { present[$0.key] != nil }
        return announce()
    }

    /// The list left the screen.
    public mutating func disappeared() -> [ListCallback] {
        isOnScreen = false
        movement = .none
        guard announced else { return [] }
        announced = false
        return [.disappeared]
    }

    /// Scroll geometry (iOS 18): the viewport and the content offset.
    public mutating func geometryChanged(viewport newViewport: ListViewport, offset newOffset: CGPoint)
        -> [ListCallback]
    {
        let oldViewport = viewport
        let oldOffset = offset
        let wasEstimating = !reportsOffset
        viewport = newViewport
        offset = newOffset
        if wasEstimating {
            // Frames converted with an estimate until now: convert them with the real offset.
            reportsOffset = true
            known = [:]
            for report in present.values { known[report.id] = item(from: report) }
        }
        guard announced else { return announce() }
        var callbacks: [ListCallback] = []
        if wasEstimating {
            // The list was announced with its size alone: it moves to the real coordinates and
            // is judged once it settles there (a move first, so that nothing is judged halfway).
            callbacks.append(.didScroll(offset: newOffset))
            if oldViewport != newViewport { callbacks.append(.viewportChanged(newViewport)) }
            layoutIsStale = false
            callbacks.append(.layoutChanged(items: layoutItems))
            return callbacks
        }
        if oldViewport != newViewport { callbacks.append(.viewportChanged(newViewport)) }
        if oldOffset != newOffset {
            // Moved with no gesture (a jump): the frames may have arrived before the offset.
            if movement == .none { for report in present.values { correct(report) } }
            callbacks.append(.didScroll(offset: newOffset))
        }
        return callbacks
    }

    /// The scroll view's size, when its geometry is not reported (iOS 15–17).
    public mutating func sizeChanged(_ size: CGSize) -> [ListCallback] {
        guard !reportsOffset else { return [] }
        let newViewport = ListViewport(size: size)
        guard newViewport != viewport else { return [] }
        viewport = newViewport
        guard announced else { return announce() }
        return [.viewportChanged(newViewport)]
    }

    /// The scroll phase changed (iOS 18).
    public mutating func activityChanged(to activity: Activity) -> [ListCallback] {
        var callbacks: [ListCallback] = []
        switch activity {
        case .interacting:
            if movement != .dragging { callbacks.append(.willBeginDragging) }
            movement = .dragging
        case .decelerating:
            if movement == .dragging {
                callbacks += [.didEndDragging(willDecelerate: true), .willBeginDecelerating]
            } else if movement != .decelerating {
                callbacks.append(.willBeginDecelerating)
            }
            movement = .decelerating
        case .animating:
            if movement == .none { movement = .animating }
        case .tracking:
            break
        case .idle:
            let ending: ListCallback? =
                switch movement {
                case .dragging: .didEndDragging(willDecelerate: false)
                case .decelerating: .didEndDecelerating
                case .animating: .didEndScrollingAnimation
                case .none: nil
                }
            movement = .none
            // At rest geometry and frames agree: the layout is read again before the rest point.
            for report in present.values { correct(report) }
            prune()
            callbacks += pendingLayout()
            if let ending { callbacks.append(ending) }
        }
        return announced ? callbacks : []
    }

    /// The corrected layout, if frames were corrected since the tracker last received one. The
    /// driver asks before each ``ListCallback/tick``, so that a list settling after a move
    /// without scroll phases is judged on the frames it settled with.
    public mutating func pendingLayout() -> [ListCallback] {
        if !reportsOffset || movement == .none { prune() }
        guard layoutIsStale, announced else { return [] }
        layoutIsStale = false
        return [.layoutChanged(items: layoutItems)]
    }

    // MARK: Items

    /// An item appeared or its frame changed.
    public mutating func itemReported(_ report: ItemFrame) -> [ListCallback] {
        present[report.id] = report
        if anchor == nil || present[anchor ?? ""] == nil { anchor = report.id }
        guard known[report.id] != nil else {
            // One new row: the tracker inserts it (O(log n) search), rather than sorting the
            // whole layout again per row. Only an eviction sends the whole layout.
            let new = item(from: report)
            known[report.id] = new
            let evicted = evictIfFull()
            guard announced else { return [] }
            guard evicted else { return [.itemAppeared(new)] }
            layoutIsStale = false
            return [.layoutChanged(items: layoutItems)]
        }
        if !reportsOffset, anchor == report.id, let anchored = known[report.id] {
            // The anchor keeps its content position: its move is the list's scroll.
            let estimate = CGPoint(
                x: anchored.frame.minX - report.frame.minX, y: anchored.frame.minY - report.frame.minY)
            if estimate != offset {
                offset = estimate
                // The rows reported before the anchor in this frame were converted with the old
                // estimate.
                for other in present.values where other.id != report.id { correct(other) }
                return announced ? [.didScroll(offset: estimate)] : []
            }
        }
        // Geometry and frames arrive a frame apart while the list moves: read at the rest point.
        guard !reportsOffset || movement == .none, correct(report), announced else { return [] }
        // A frame that changed at rest may be half of a jump whose offset has not arrived yet:
        // the list settles first, and the corrected layout goes with the tick that ends it.
        return [.didScroll(offset: offset)]
    }

    /// An item disappeared: scrolled away (its frame stays in the layout) or removed (decided
    /// at rest).
    public mutating func itemDisappeared(id: String) -> [ListCallback] {
        guard present.removeValue(forKey: id) != nil else { return [] }
        if anchor == id { anchor = present.keys.first }
        guard reportsOffset, movement == .none else { return [] }
        return pendingLayout()
    }

    // MARK: Helpers

    /// Tells the tracker the list appeared, once it is on screen and its viewport is known.
    private mutating func announce() -> [ListCallback] {
        guard isOnScreen, !announced, let viewport else { return [] }
        announced = true
        layoutIsStale = false
        return [.appeared(viewport: viewport, offset: offset), .dataReloaded(items: layoutItems)]
    }

    /// The item `report` describes, in content coordinates at the current offset.
    private func item(from report: ItemFrame) -> ListItem {
        ListItem(
            indexPath: report.position, frame: report.frame.offsetBy(dx: offset.x, dy: offset.y),
            itemId: report.id, properties: report.properties)
    }

    /// Converts `report` again at the current offset; true when its content frame moved.
    @discardableResult
    private mutating func correct(_ report: ItemFrame) -> Bool {
        let new = item(from: report)
        guard let old = known[report.id],
            Self.moved(old.frame, new.frame) || old.indexPath != new.indexPath
                || old.properties != new.properties
        else { return false }
        known[report.id] = new
        layoutIsStale = true
        return true
    }

    /// At rest: drops the items that overlap the visible area but are not on screen (removed).
    private mutating func prune() {
        guard let viewport, isOnScreen else { return }
        let visible = viewport.visibleRect(at: offset)
        let before = known.count
        known = known.filter { present[$0.key] != nil || $0.value.visibleRatio(in: visible) == 0 }
        if known.count != before { layoutIsStale = true }
    }

    /// Past ``maximumItems``, drops the items farthest from the visible area (never one on
    /// screen), a tenth of the maximum more than needed, so that the sort and the whole layout
    /// sent after it come once per that many new rows, not per row. Returns whether any left.
    private mutating func evictIfFull() -> Bool {
        let limit = max(1, maximumItems)
        // Items on screen never leave: with no other, there is nothing to sort.
        guard known.count > limit, known.count > present.count, let viewport else { return false }
        let visible = viewport.visibleRect(at: offset)
        let center = (axis.start(of: visible) + axis.end(of: visible)) / 2
        // Distances computed once and sorted with their keys (not the items themselves).
        let farthest = known.compactMap { id, item in
            present[id] == nil
                ? (
                    id: id,
                    distance: abs((axis.start(of: item.frame) + axis.end(of: item.frame)) / 2 - center)
                ) : nil
        }
        .sorted { $0.distance > $1.distance }
        for entry in farthest.prefix(known.count - limit + limit / 10) { known.removeValue(forKey: entry.id) }
        return !farthest.isEmpty
    }

    private static func moved(_ old: CGRect, _ new: CGRect) -> Bool {
        abs(old.minX - new.minX) > 1 || abs(old.minY - new.minY) > 1 || abs(old.width - new.width) > 1
            || abs(old.height - new.height) > 1
    }
}
