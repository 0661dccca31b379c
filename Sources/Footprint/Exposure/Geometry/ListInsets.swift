import Foundation

/// The parts of a scroll view covered by bars or other chrome, in points: UIKit's
/// `adjustedContentInset` (`UIEdgeInsets` does not exist outside UIKit).
public struct ListInsets: Sendable, Hashable {
    /// Covered at the top (a navigation bar). Default 0.
    public var top: CGFloat
    /// Covered on the left. Default 0.
    public var left: CGFloat
    /// Covered at the bottom (a tab bar, the keyboard). Default 0.
    public var bottom: CGFloat
    /// Covered on the right. Default 0.
    public var right: CGFloat

    /// Creates insets; every edge defaults to 0.
    public init(top: CGFloat = 0, left: CGFloat = 0, bottom: CGFloat = 0, right: CGFloat = 0) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// No insets.
    public static let zero = ListInsets()
}
