/// Which control actions are the user's meaning, decided from what the adapter passes through the
/// seam (the element's kind and state, the action's target type and registered events), so that
/// the rule is the same for every toolkit and is tested without one.
///
/// - Value controls (switch, segmented control, stepper, slider, date picker, page control)
///   count on value change or their primary action; a continuous slider only once the finger
///   lifts (its last value), not at every step of the drag.
/// - Text inputs count only on Return (primary action, editing did end on exit): never for
///   typing, beginning or ending editing.
/// - Other controls count on touch-up inside or their primary action: not on touch-down, drag
///   or cancel.
/// - An action whose registered events are not known (sent up the responder chain, a bar button
///   item, a SwiftUI tap) counts.
/// - UIKit's own plumbing never counts: a private selector or target (`_`-prefixed: a bar
///   button's private button view sending to its private target, before the bar button item
///   sends the app's action), or an action targeting SwiftUI's bridging. (A `UIAction` a
///   private control runs counts: it may be the only trace of a bar button's primary action;
///   the adapter does not report what it sends on.)
public enum ControlActionRule {
    /// Whether `kind` reports on value change rather than on touch-up.
    public static func isValueControl(_ kind: ElementKind) -> Bool {
        switch kind {
        case .toggle, .segmentedControl, .stepper, .slider, .datePicker, .pageControl: true
        case .button, .textInput, .cell, .alertAction, .other: false
        }
    }

    /// The control events that count for an element of `kind`.
    public static func countingEvents(for kind: ElementKind) -> ControlEvents {
        if isValueControl(kind) { return [.valueChanged, .primaryActionTriggered] }
        if kind == .textInput { return [.primaryActionTriggered, .editingDidEndOnExit] }
        return [.touchUpInside, .primaryActionTriggered]
    }

    /// Whether `action` is UIKit's (or SwiftUI's) own plumbing rather than the app's action.
    public static func isPlumbing(_ action: ActionDescription) -> Bool {
        if isPrivate(action.selector) { return true }
        guard let target = action.targetType else { return false }
        return isPrivate(target) || target.contains("SwiftUI")
    }

    /// Whether the element's action counts as a tap or value change.
    public static func counts(_ element: ElementDescription, action: ActionDescription) -> Bool {
        guard !isPlumbing(action) else { return false }
        if element.kind == .slider, element.isContinuous, element.isTouchDown { return false }
        guard let registered = action.controlEvents else { return true }
        return !registered.isDisjoint(with: countingEvents(for: element.kind))
    }

    /// Whether a type or selector name is private to the system (`_`-prefixed).
    static func isPrivate(_ name: String) -> Bool {
        name.hasPrefix("_")
    }
}
