import Foundation

/// What the exposure model decided: an item was exposed, or a fling skipped items.
public enum ListExposureEvent: Sendable, Hashable {
    /// An item was seen.
    case exposure(ItemExposure)
    /// A fling swept past items that were not seen at rest.
    case skip(FlingSkip)
}

/// One item seen by the user.
public struct ItemExposure: Sendable, Hashable {
    /// The item, as laid out when it was exposed.
    public var item: ListItem
    /// When the exposure was decided.
    public var time: Timestamp
    /// The fraction of its area visible when it was decided.
    public var visibleRatio: Double
    /// How long it had been visible (background time excluded), in milliseconds: 0 at a rest
    /// point with no dwell threshold.
    public var dwellMilliseconds: Int64
    /// What decided it.
    public var trigger: ExposureTrigger
}

/// What decided an exposure.
public enum ExposureTrigger: String, Sendable, Hashable {
    /// The list appeared or its data was (re)loaded while at rest.
    case load
    /// The list came to rest: a drag ended without deceleration, a fling or animation stopped.
    case rest
    /// The item stayed visible for the configured dwell time.
    case dwell
}

/// The direction a list moved in, taken from the net offset change.
public enum ScrollDirection: String, Sendable, Hashable {
    /// Towards the end of the list: the offset grew (on a vertical list the finger swiped up).
    case forward
    /// Towards the start of the list: the offset shrank (the finger swiped down).
    case backward
    /// The list came back to where it started.
    case none
}

/// The items one fling swept past without the user seeing them at rest.
public struct FlingSkip: Sendable, Hashable {
    /// The skipped items, in list order; at most ``ExposureConfiguration/maximumSkipsPerFling``.
    public var items: [ListItem]
    /// How many items were skipped in all (more than `items.count` when capped).
    public var skippedCount: Int
    /// The net direction, from the offset at the previous rest point to the offset now.
    public var direction: ScrollDirection
    /// The axis the list scrolls along.
    public var axis: ListAxis
    /// When the drag that flung the list began (`willBeginDragging`, as the list-exposure article
    /// records it); after a reload in mid-flight, the time of the reload.
    public var start: Timestamp
    /// When the fling ended (at rest, at a reload, or when the list disappeared).
    public var end: Timestamp
}
