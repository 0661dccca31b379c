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

    /// Describes an element.
    public init(
        chain: [ResponderDescription], kind: ElementKind, attributes: ElementAttributes = ElementAttributes(),
        isSecureTextEntry: Bool = false, keyPathSource: (any KeyPathValueSource)? = nil
    ) {
        self.chain = chain
        self.kind = kind
        self.attributes = attributes
        self.isSecureTextEntry = isSecureTextEntry
        self.keyPathSource = keyPathSource
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
/// `handleTap:` from `UITapGestureRecognizer`).
public struct ActionDescription: Sendable, Hashable {
    /// The action selector.
    public var selector: String
    /// The sender's type name.
    public var senderType: String

    /// Describes an action.
    public init(selector: String, senderType: String) {
        self.selector = selector
        self.senderType = senderType
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
