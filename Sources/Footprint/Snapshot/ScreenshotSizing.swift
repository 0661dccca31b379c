/// How big a snapshot's screenshot is: JPEG at ``quality``, rendered at the screen's scale,
/// then at smaller scales (×``downscaleFactor`` each time) until it fits ``maximumBytes``; below
/// ``minimumScale`` there is no screenshot (the dashboard draws a wireframe).
public struct ScreenshotSizing: Sendable, Hashable {
    /// The JPEG quality, 0…1. Default 0.6.
    public var quality: Double = 0.6
    /// The largest encoded image, in bytes. Default ``ScreenSnapshot/Limits/maximumImageBytes``
    /// (1 MiB).
    public var maximumBytes: Int = ScreenSnapshot.Limits().maximumImageBytes
    /// What each retry multiplies the scale by. Default 0.75.
    public var downscaleFactor: Double = 0.75
    /// The smallest scale tried, in pixels per point. Default 0.5.
    public var minimumScale: Double = 0.5

    /// Creates the default sizing.
    public init() {}

    /// The scale to render at first: the screen's own.
    public func firstScale(screenScale: Double) -> Double {
        guard screenScale.isFinite else { return 1 }
        return min(max(screenScale, minimumScale), 4)
    }

    /// After an image rendered at `scale` encoded to `encodedBytes`: `nil` when it fits (keep
    /// it), else the next scale to try, or ``Next/giveUp`` when none is left.
    public func next(afterScale scale: Double, encodedBytes: Int) -> Next? {
        guard encodedBytes > maximumBytes else { return nil }
        let smaller = scale * min(max(downscaleFactor, 0.1), 0.95)
        return smaller >= minimumScale ? .retry(scale: smaller) : .giveUp
    }

    /// What to do with an image too large to keep.
    public enum Next: Sendable, Hashable {
        /// Render again at this scale.
        case retry(scale: Double)
        /// Send no screenshot.
        case giveUp
    }
}
