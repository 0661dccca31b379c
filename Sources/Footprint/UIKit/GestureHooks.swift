#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// Gestures: when a tap or long-press recognizer is added to a view
    /// (`UIView.addGestureRecognizer(_:)`), Footprint adds its own target to it with the public
    /// `addTarget(_:action:)`; the app's targets are never read (they are private to UIKit).
    ///
    /// Taps report when recognized, long presses when they begin. Recognizers UIKit uses inside
    /// its own views (types starting with `_`, or `UI` types other than the two public ones) are
    /// left alone. Recognizers that never pass through `addGestureRecognizer(_:)` (assigned with
    /// the `gestureRecognizers` setter) are not seen.
    @MainActor
    enum GestureHooks {
        static func install() {
            typealias AddRecognizer = @convention(c) (UIView, Selector, UIGestureRecognizer) -> Void
            _ = MethodHooks.hook(#selector(UIView.addGestureRecognizer(_:)), of: UIView.self) { original in
                let block: @MainActor @convention(block) (UIView, UIGestureRecognizer) -> Void = {
                    view, recognizer in
                    unsafeBitCast(original.implementation, to: AddRecognizer.self)(
                        view, original.selector, recognizer)
                    if isWatched(recognizer) {
                        // Adding the same target-action pair twice is ignored by UIKit.
                        recognizer.addTarget(
                            GestureTarget.shared, action: #selector(GestureTarget.recognized(_:)))
                    }
                }
                return block
            }
        }

        /// Whether `recognizer` is a tap or long press of the app (not one of UIKit's own).
        static func isWatched(_ recognizer: UIGestureRecognizer) -> Bool {
            guard recognizer is UITapGestureRecognizer || recognizer is UILongPressGestureRecognizer else {
                return false
            }
            let typeName = ResponderChainDescriber.typeName(of: recognizer)
            if typeName == "UITapGestureRecognizer" || typeName == "UILongPressGestureRecognizer" {
                return true
            }
            return !typeName.hasPrefix("_") && !typeName.hasPrefix("UI")
        }
    }

    /// The target Footprint adds to watched gesture recognizers; lives for the whole process.
    @MainActor
    final class GestureTarget: NSObject {
        static let shared = GestureTarget()

        @objc func recognized(_ recognizer: UIGestureRecognizer) {
            let actionName: String
            switch recognizer {
            case is UITapGestureRecognizer where recognizer.state == .ended: actionName = "tap"
            case is UILongPressGestureRecognizer where recognizer.state == .began: actionName = "longPress"
            default: return
            }
            guard let adapter = UIKitCapture.installed, adapter.configuration.hooksGestures,
                let view = recognizer.view
            else { return }
            adapter.capture.gestureRecognized(
                on: ResponderChainDescriber.element(for: view),
                action: ActionDescription(
                    selector: actionName, senderType: ResponderChainDescriber.typeName(of: recognizer)))
        }
    }
#endif
