#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// Gestures: when a recognizer is added to a view (`UIView.addGestureRecognizer(_:)`) and
    /// the core watches it (``GestureRule``: the app's taps and long presses, not UIKit's own),
    /// Footprint adds its own target to it with the public `addTarget(_:action:)`; the app's
    /// targets are never read (they are private to UIKit).
    ///
    /// Recognizers that never pass through `addGestureRecognizer(_:)` (assigned with the
    /// `gestureRecognizers` setter) are not seen.
    @MainActor
    enum GestureHooks {
        static func install() {
            _ = MethodHooks.hook(
                #selector(UIView.addGestureRecognizer(_:)), of: UIView.self, makeBlock: addRecognizerBlock)
        }

        /// Not main-actor isolated (``MethodHooks/onMainThread(_:_:)``): watches on the main thread only.
        private nonisolated static func addRecognizerBlock(_ original: OriginalImplementation) -> Any {
            typealias AddRecognizer = @convention(c) (UIView, Selector, UIGestureRecognizer) -> Void
            let block: @convention(block) (UIView, UIGestureRecognizer) -> Void = { view, recognizer in
                unsafeBitCast(original.implementation, to: AddRecognizer.self)(
                    view, original.selector, recognizer)
                MethodHooks.onMainThread(recognizer) { recognizer in
                    guard isWatched(recognizer) else { return }
                    // Adding the same target-action pair twice is ignored by UIKit.
                    recognizer.addTarget(
                        GestureTarget.shared, action: #selector(GestureTarget.recognized(_:)))
                }
            }
            return block
        }

        /// Whether the core watches `recognizer`.
        static func isWatched(_ recognizer: UIGestureRecognizer) -> Bool {
            GestureRule.isWatched(
                typeName: ResponderChainDescriber.typeName(of: recognizer), kind: kind(of: recognizer))
        }

        static func kind(of recognizer: UIGestureRecognizer) -> GestureKind {
            switch recognizer {
            case is UITapGestureRecognizer: .tap
            case is UILongPressGestureRecognizer: .longPress
            default: .other
            }
        }

        static func phase(of recognizer: UIGestureRecognizer) -> GesturePhase {
            switch recognizer.state {
            case .began: .began
            case .ended: .ended
            default: .other
            }
        }
    }

    /// The target Footprint adds to watched gesture recognizers; lives for the whole process.
    @MainActor
    final class GestureTarget: NSObject {
        static let shared = GestureTarget()

        @objc func recognized(_ recognizer: UIGestureRecognizer) {
            guard let adapter = UIKitCapture.installed, adapter.configuration.hooksGestures,
                let view = recognizer.view
            else { return }
            let phase = GestureHooks.phase(of: recognizer)
            guard phase != .other else { return }
            adapter.capture.gestureRecognized(
                on: ResponderChainDescriber.element(for: view),
                recognizerType: ResponderChainDescriber.typeName(of: recognizer),
                kind: GestureHooks.kind(of: recognizer), phase: phase)
        }
    }
#endif
