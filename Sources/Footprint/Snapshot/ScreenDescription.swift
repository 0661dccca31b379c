/// The visible screen as the UI adapter describes it for a snapshot: the page, every element a
/// tap could be captured on (with the action a tap on it sends and its frame), the window's
/// size, and on iOS a screenshot with private views already painted over.
public struct ScreenDescription {
    /// The controller of the page on screen, when the adapter knows it; `nil` uses the page the
    /// user is on.
    public var page: PageDescription?
    /// The window's size in points and its scale.
    public var screen: ScreenSnapshot.Screen
    /// The capturable elements, back to front.
    public var elements: [ScreenElement]
    /// The screenshot; `nil` where there are no pixels (Linux, the demo).
    public var image: ScreenSnapshot.Image?
    /// Whether the adapter looked at every view: `false` when it stopped early (too many views
    /// or elements), so private views further on may not be painted over and the screenshot is
    /// dropped. Default true.
    public var isComplete: Bool

    /// Describes a screen.
    public init(
        page: PageDescription? = nil, screen: ScreenSnapshot.Screen, elements: [ScreenElement],
        image: ScreenSnapshot.Image? = nil, isComplete: Bool = true
    ) {
        self.page = page
        self.screen = screen
        self.elements = elements
        self.image = image
        self.isComplete = isComplete
    }
}

/// One element on screen: what it is (with its ``ElementDescription/frame``), the action a tap
/// on it sends, and which capture route that tap takes, exactly as the adapter would report the
/// tap itself.
public struct ScreenElement {
    /// How a tap on the element reaches the capture core.
    public enum Route: Sendable, Hashable {
        /// A control's action (``AutoCapture/controlActed(_:action:)``).
        case control
        /// A table or collection cell's selection (``AutoCapture/cellSelected(_:action:)``).
        case cell
        /// A gesture recognizer (``AutoCapture/gestureRecognized(on:action:)``).
        case gesture
    }

    /// The element, its frame set.
    public var element: ElementDescription
    /// The action a tap on it sends.
    public var action: ActionDescription
    /// The route of that tap.
    public var route: Route

    /// Describes an element on screen.
    public init(element: ElementDescription, action: ActionDescription, route: Route) {
        self.element = element
        self.action = action
        self.route = route
    }
}

/// What a snapshot shows of a screen, built by ``AutoCapture/snapshotContent(of:limits:)``; the
/// connect session adds who, when and why.
public struct ScreenContent: Sendable, Hashable {
    /// The page name.
    public var page: String
    /// The window's size and scale, within the limits.
    public var screen: ScreenSnapshot.Screen
    /// The elements, within the limits.
    public var elements: [ScreenSnapshot.Element]
    /// The screenshot, when there is one within the limits.
    public var image: ScreenSnapshot.Image?

    /// Creates content.
    public init(
        page: String, screen: ScreenSnapshot.Screen, elements: [ScreenSnapshot.Element],
        image: ScreenSnapshot.Image? = nil
    ) {
        self.page = page
        self.screen = screen
        self.elements = elements
        self.image = image
    }
}
