import Foundation

/// The window a scroll view shows onto its content: its size and the insets covered by chrome.
///
/// The visible rect at a content offset is the scroll view's bounds (origin = offset) minus the
/// insets, in content coordinates, the same coordinates as the item frames.
public struct ListViewport: Sendable, Equatable {
    /// The scroll view's bounds size.
    public var size: CGSize
    /// UIKit's `adjustedContentInset`: the edges hidden under bars. Default none.
    public var insets: ListInsets

    /// Creates a viewport.
    /// - Parameters:
    ///   - size: the scroll view's bounds size.
    ///   - insets: the edges hidden under bars; default none.
    public init(size: CGSize, insets: ListInsets = .zero) {
        self.size = size
        self.insets = insets
    }

    /// The part of the content the user can see when the content offset is `offset`.
    @inline(__always)
    public func visibleRect(at offset: CGPoint) -> CGRect {
        CGRect(
            x: offset.x + insets.left, y: offset.y + insets.top,
            width: max(0, size.width - insets.left - insets.right),
            height: max(0, size.height - insets.top - insets.bottom))
    }
}

// `hash(into:)` written out: the synthesized one needs `CGSize: Hashable`, which Apple systems have
// only from iOS 18.
extension ListViewport: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combineGeometry(size)
        hasher.combine(insets)
    }
}
