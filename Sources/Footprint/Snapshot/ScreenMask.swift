import Foundation

/// Where a private view (a secure text field, an ignored view) is painted over in a screenshot.
///
/// The screenshot shows the last frame the screen committed, animations in flight included,
/// while a view's frame is where the animation ends: a secure field moving with the keyboard is
/// somewhere between the two. The mask covers both, and a margin around them.
enum ScreenMask {
    /// The margin around a mask, in points: 4.
    static let margin: CGFloat = 4

    /// The rect to paint over for a view whose frame is `model` and whose frame on screen now
    /// (its presentation layer's) is `presentation`, both in window coordinates.
    static func rect(model: CGRect, presentation: CGRect?) -> CGRect {
        var covered = model.standardized
        if let presentation, !presentation.isNull, presentation.width.isFinite, presentation.height.isFinite {
            covered = covered.union(presentation.standardized)
        }
        return covered.insetBy(dx: -margin, dy: -margin)
    }
}
