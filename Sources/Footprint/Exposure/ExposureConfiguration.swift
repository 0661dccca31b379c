/// How list exposure and skipped items are decided. Every field has a default that follows the
/// list-exposure article: an item is exposed when it is fully visible at a rest point, once per
/// page view, and fast flings report the items they swept past.
public struct ExposureConfiguration: Sendable, Hashable {
    /// The fraction (0...1] of an item's area that must be inside the visible rect for it to
    /// count as seen. Default 1.0: fully visible.
    public var minVisibleRatio: Double
    /// How long, in milliseconds, an item must stay at least ``minVisibleRatio`` visible while
    /// the app is in the foreground. Default 0: exposure is decided at rest points (first load or
    /// reload, end of a drag without deceleration, end of deceleration, end of a scroll
    /// animation). Above 0 the item is watched while the list moves too, and the timer pauses
    /// while the app is in the background (display-ad viewability is 0.5 for 1000 ms).
    public var minDwellMilliseconds: Int64
    /// When an item already exposed counts again. Default ``ExposureRepeatPolicy/oncePerPageView``.
    public var repeatPolicy: ExposureRepeatPolicy
    /// Whether items swept past by a fling are reported as skipped. Default true.
    public var tracksSkips: Bool
    /// The most items one fling reports as skipped; the events still carry the full count in
    /// `$fling_skipped_count`. Default 200.
    public var maximumSkipsPerFling: Int
    /// After the list moves with no gesture and no animation callback (a programmatic
    /// `setContentOffset` without animation), how long in milliseconds it must stay still to
    /// count as a rest point. Default 150.
    public var settleMilliseconds: Int64

    /// Creates a configuration; every argument defaults to the documented value.
    public init(
        minVisibleRatio: Double = 1.0, minDwellMilliseconds: Int64 = 0,
        repeatPolicy: ExposureRepeatPolicy = .oncePerPageView, tracksSkips: Bool = true,
        maximumSkipsPerFling: Int = 200, settleMilliseconds: Int64 = 150
    ) {
        self.minVisibleRatio = minVisibleRatio
        self.minDwellMilliseconds = minDwellMilliseconds
        self.repeatPolicy = repeatPolicy
        self.tracksSkips = tracksSkips
        self.maximumSkipsPerFling = maximumSkipsPerFling
        self.settleMilliseconds = settleMilliseconds
    }

    /// The visible ratio actually used: ``minVisibleRatio`` kept inside (0, 1], so that a
    /// mistaken 0 or 2 neither counts items that are off screen nor never counts anything.
    var effectiveVisibleRatio: Double {
        guard minVisibleRatio.isFinite else { return 1 }
        return min(1, max(0.01, minVisibleRatio))
    }
}

/// When an item that was already exposed is counted again.
public enum ExposureRepeatPolicy: String, Sendable, Hashable {
    /// Once per item per page view: until the list disappears and appears again.
    case oncePerPageView
    /// Every time the item comes back into view after dropping below the visible ratio.
    case everyReentry
    /// Once per item per session: until ``ListCallback/sessionStarted`` is received.
    case oncePerSession
}
