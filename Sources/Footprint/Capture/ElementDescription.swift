/// An element the user acted on, as the UI adapter describes it: its responder chain, its kind
/// and attributes, and where key-path values can be read.
public struct ElementDescription {
    /// The responder chain, the element first, up to the application delegate.
    public var chain: [ResponderDescription]
    /// What kind of element it is; decides which attributes go into its path.
    public var kind: ElementKind
    /// Its visible state.
    public var attributes: ElementAttributes
    /// Whether it shows secure text (a password field): its text is never captured.
    public var isSecureTextEntry: Bool
    /// Where a plan event's key-path properties (`viewController.banner.url`) are read; `nil`
    /// when the adapter offers none.
    public var keyPathSource: (any KeyPathValueSource)?
    /// Sliders: whether it reports while it is dragged (`UISlider.isContinuous`). Default false.
    public var isContinuous: Bool
    /// Whether a finger is still down on it when the action is sent (a continuous slider being
    /// dragged). Default false.
    public var isTouchDown: Bool
    /// Where it is on screen, in window coordinates and points (`convert(bounds, to: nil)`):
    /// what a screen snapshot draws its box from. `nil` when the adapter does not say (a tap
    /// needs none). Default `nil`.
    public var frame: ScreenSnapshot.Frame?

    /// Describes an element.
    public init(
        chain: [ResponderDescription], kind: ElementKind, attributes: ElementAttributes = ElementAttributes(),
        isSecureTextEntry: Bool = false, keyPathSource: (any KeyPathValueSource)? = nil,
        isContinuous: Bool = false, isTouchDown: Bool = false, frame: ScreenSnapshot.Frame? = nil
    ) {
        self.chain = chain
        self.kind = kind
        self.attributes = attributes
        self.isSecureTextEntry = isSecureTextEntry
        self.keyPathSource = keyPathSource
        self.isContinuous = isContinuous
        self.isTouchDown = isTouchDown
        self.frame = frame
    }

    /// The element's own type name (the first responder of the chain).
    public var typeName: String { chain.first?.typeName ?? "" }
}

/// The kinds of element; each puts its own attributes into the path, in a fixed order.
public enum ElementKind: Sendable, Hashable {
    /// A button: `currentTitle`, `state`, `enabled`, `selected`.
    case button
    /// An on/off switch: `on`.
    case toggle
    /// A segmented control: `selectedSegmentIndex`.
    case segmentedControl
    /// A stepper: `value`.
    case stepper
    /// A slider: no attributes (its value changes all the time).
    case slider
    /// A date picker: no attributes; reports on value change.
    case datePicker
    /// A page control: no attributes; reports on value change.
    case pageControl
    /// A text field or view: no attributes, and its typed text is never captured.
    case textInput
    /// A table or collection cell: its position is in the path already.
    case cell
    /// An alert action: no attributes; its title is the element text.
    case alertAction
    /// Any other control or view.
    case other
}

/// An element's visible state, as far as its kind has one.
public struct ElementAttributes: Sendable, Hashable {
    /// The title or text shown (`currentTitle` of a button, a cell's text).
    public var title: String?
    /// The control state bits (`UIControl.State.rawValue`).
    public var state: Int?
    /// Whether it is enabled.
    public var isEnabled: Bool?
    /// Whether it is selected.
    public var isSelected: Bool?
    /// A switch's on state.
    public var isOn: Bool?
    /// A segmented control's selected index.
    public var selectedSegmentIndex: Int?
    /// A stepper's or slider's value.
    public var value: Double?

    /// Creates attributes; all absent by default.
    public init(
        title: String? = nil, state: Int? = nil, isEnabled: Bool? = nil, isSelected: Bool? = nil,
        isOn: Bool? = nil,
        selectedSegmentIndex: Int? = nil, value: Double? = nil
    ) {
        self.title = title
        self.state = state
        self.isEnabled = isEnabled
        self.isSelected = isSelected
        self.isOn = isOn
        self.selectedSegmentIndex = selectedSegmentIndex
        self.value = value
    }
}

/// The action an element sent: a selector and the sender's type
/// (`buttonClick:` from `UIButton`, `tableView:didSelectRowAtIndexPath:` from `UITableView`,
/// `handleTap:` from `UITapGestureRecognizer`), with what the adapter knows of its target and of
/// the control events it is registered for (``ControlActionRule`` decides from them).
public struct ActionDescription: Sendable, Hashable {
    /// The action selector.
    public var selector: String
    /// The sender's type name.
    public var senderType: String
    /// The type name of the object that receives the action; `nil` when there is none or it is
    /// not known (a `UIAction`, a gesture, an action sent up the responder chain).
    public var targetType: String?
    /// The control events this action is registered for on the sender; `nil` when not known
    /// (an action sent up the responder chain, a bar button item, a SwiftUI tap): then the
    /// action counts.
    public var controlEvents: ControlEvents?

    /// Describes an action.
    /// - Parameters:
    ///   - selector: the action selector.
    ///   - senderType: the sender's type name.
    ///   - targetType: the receiver's type name. Default: not known.
    ///   - controlEvents: the events the action is registered for. Default: not known.
    public init(
        selector: String, senderType: String, targetType: String? = nil, controlEvents: ControlEvents? = nil
    ) {
        self.selector = selector
        self.senderType = senderType
        self.targetType = targetType
        self.controlEvents = controlEvents
    }
}

/// The choice of an action in an alert or action sheet.
public struct AlertActionDescription: Sendable, Hashable {
    /// The alert controller's type name.
    public var alertType: String
    /// The alert's title, when any.
    public var alertTitle: String?
    /// The chosen action's title.
    public var actionTitle: String?
    /// The chosen action's index among the alert's actions.
    public var actionIndex: Int
    /// The responder chain of the controller that presented the alert, that controller first.
    public var presenterChain: [ResponderDescription]

    /// Describes an alert action choice.
    public init(
        alertType: String = "UIAlertController", alertTitle: String? = nil, actionTitle: String?,
        actionIndex: Int,
        presenterChain: [ResponderDescription]
    ) {
        self.alertType = alertType
        self.alertTitle = alertTitle
        self.actionTitle = actionTitle
        self.actionIndex = actionIndex
        self.presenterChain = presenterChain
    }
}
