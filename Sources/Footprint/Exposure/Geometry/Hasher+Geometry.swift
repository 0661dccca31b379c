import Foundation

/// Hashing of CoreGraphics geometry by its components, for hand-written `Hashable`
/// conformances: `CGRect` and `CGSize` are `Hashable` on Apple systems only from iOS 18.
extension Hasher {
    /// Feeds `rect`'s origin and size.
    mutating func combineGeometry(_ rect: CGRect) {
        combine(rect.origin.x)
        combine(rect.origin.y)
        combineGeometry(rect.size)
    }

    /// Feeds `size`'s width and height.
    mutating func combineGeometry(_ size: CGSize) {
        combine(size.width)
        combine(size.height)
    }
}
