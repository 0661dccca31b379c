/// The control events a target-action pair or a `UIAction` is registered for on a control, with
/// the bits of UIKit's `UIControl.Event`, so that the adapter passes `event.rawValue` through
/// and the capture core decides which registrations are the user's meaning (``ControlActionRule``).
public struct ControlEvents: OptionSet, Sendable, Hashable {
    /// The bits, as in `UIControl.Event.rawValue`.
    public let rawValue: UInt64

    /// Creates a set from `UIControl.Event` bits.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// A finger touched the control.
    public static let touchDown = ControlEvents(rawValue: 1 << 0)
    /// A repeated touch (a double tap's second touch).
    public static let touchDownRepeat = ControlEvents(rawValue: 1 << 1)
    /// A finger dragged inside the control.
    public static let touchDragInside = ControlEvents(rawValue: 1 << 2)
    /// A finger dragged outside the control.
    public static let touchDragOutside = ControlEvents(rawValue: 1 << 3)
    /// A finger dragged into the control.
    public static let touchDragEnter = ControlEvents(rawValue: 1 << 4)
    /// A finger dragged out of the control.
    public static let touchDragExit = ControlEvents(rawValue: 1 << 5)
    /// A finger lifted inside the control: a tap.
    public static let touchUpInside = ControlEvents(rawValue: 1 << 6)
    /// A finger lifted outside the control.
    public static let touchUpOutside = ControlEvents(rawValue: 1 << 7)
    /// The system cancelled the touch.
    public static let touchCancel = ControlEvents(rawValue: 1 << 8)
    /// The value changed (switch, slider, segmented control, stepper, date picker, page control).
    public static let valueChanged = ControlEvents(rawValue: 1 << 12)
    /// The control's primary action (a button's tap, a text field's Return).
    public static let primaryActionTriggered = ControlEvents(rawValue: 1 << 13)
    /// A menu action was chosen (iOS 14).
    public static let menuActionTriggered = ControlEvents(rawValue: 1 << 14)
    /// Editing began in a text field.
    public static let editingDidBegin = ControlEvents(rawValue: 1 << 16)
    /// The text changed (typing).
    public static let editingChanged = ControlEvents(rawValue: 1 << 17)
    /// Editing ended.
    public static let editingDidEnd = ControlEvents(rawValue: 1 << 18)
    /// Editing ended with Return.
    public static let editingDidEndOnExit = ControlEvents(rawValue: 1 << 19)
}
