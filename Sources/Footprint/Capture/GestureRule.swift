/// The kinds of gesture recognizer automatic capture knows.
public enum GestureKind: Sendable, Hashable {
    /// A tap recognizer (`UITapGestureRecognizer` or a subclass).
    case tap
    /// A long-press recognizer (`UILongPressGestureRecognizer` or a subclass).
    case longPress
    /// Any other recognizer (pan, pinch, swipe...): never watched.
    case other
}

/// Where a gesture recognizer is in its life when its target is called.
public enum GesturePhase: Sendable, Hashable {
    /// A continuous gesture began (a long press was recognized).
    case began
    /// The gesture ended (a tap was recognized).
    case ended
    /// Any other state (changed, cancelled, failed, possible).
    case other
}

/// Which gesture recognizers automatic capture watches, and when one reports.
///
/// Only taps and long presses are watched, and only the app's: the public
/// `UITapGestureRecognizer` and `UILongPressGestureRecognizer` themselves, or subclasses the app
/// defines. Subclasses UIKit uses inside its own views (`_`-prefixed types, other `UI` types)
/// are left alone. A tap reports when recognized (ended), a long press when it begins.
public enum GestureRule {
    /// The public recognizer types apps create directly.
    public static let publicTypes: Set<String> = ["UITapGestureRecognizer", "UILongPressGestureRecognizer"]

    /// Whether a recognizer of `typeName` and `kind` is watched.
    public static func isWatched(typeName: String, kind: GestureKind) -> Bool {
        guard kind != .other else { return false }
        if publicTypes.contains(typeName) { return true }
        return !typeName.hasPrefix("_") && !typeName.hasPrefix("UI")
    }

    /// The action name a recognizer of `kind` reports in `phase` (`tap`, `longPress`), or `nil`
    /// when it does not report then.
    public static func actionName(kind: GestureKind, phase: GesturePhase) -> String? {
        switch (kind, phase) {
        case (.tap, .ended): "tap"
        case (.longPress, .began): "longPress"
        default: nil
        }
    }
}
