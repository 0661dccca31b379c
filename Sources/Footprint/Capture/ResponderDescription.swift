/// One object of a responder chain as the UI adapter describes it: the element itself, its
/// superviews, their controllers, up to the application and its delegate.
public struct ResponderDescription: Sendable, Hashable {
    /// What kind of responder it is.
    public enum Role: Sendable, Hashable {
        /// A view (has a place among its superview's subviews).
        case view
        /// A view controller (a page candidate; never indexed).
        case viewController
        /// Anything else: a window scene, the application, its delegate, an alert action.
        case other
    }

    /// The type name (`UIButton`, `ProductCell`, `CartViewController`).
    public var typeName: String
    /// What kind of responder it is.
    public var role: Role
    /// Views: the index among the superview's subviews of exactly the same type (see
    /// ``SiblingIndex``); `nil` for responders without a superview or that are not views.
    public var siblingIndex: Int?
    /// Table and collection cells: their index path. Written into the path instead of the
    /// sibling index (cells are reused, so their subview order means nothing).
    public var cellIndexPath: CellIndexPath?
    /// The business id the app gave this view or cell (sent as `$item_id`).
    public var itemID: String?
    /// Business properties the app attached to this responder; the nearest to the element wins.
    public var properties: JSONObject
    /// Whether the app opted this responder, and everything inside it, out of capture.
    public var ignoresTracking: Bool
    /// The accessibility identifier, when set.
    public var accessibilityIdentifier: String?
    /// Controllers: the parent controller's type name; `nil` for a root or presented controller.
    /// A controller whose parent is not a system container is a child, a page only when the
    /// plan names it (``PagePolicy/pageName(ofControllerType:parentType:)``).
    public var parentType: String?

    /// Describes one responder.
    public init(
        _ typeName: String, role: Role = .view, siblingIndex: Int? = nil, cellIndexPath: CellIndexPath? = nil,
        itemID: String? = nil, properties: JSONObject = [:], ignoresTracking: Bool = false,
        accessibilityIdentifier: String? = nil, parentType: String? = nil
    ) {
        self.typeName = typeName
        self.role = role
        self.siblingIndex = siblingIndex
        self.cellIndexPath = cellIndexPath
        self.itemID = itemID
        self.properties = properties
        self.ignoresTracking = ignoresTracking
        self.accessibilityIdentifier = accessibilityIdentifier
        self.parentType = parentType
    }

    /// A view at `index` among its same-type siblings.
    public static func view(_ typeName: String, _ index: Int, properties: JSONObject = [:]) -> Self {
        ResponderDescription(typeName, role: .view, siblingIndex: index, properties: properties)
    }

    /// A view controller, the child of a `parent` controller when given.
    public static func controller(_ typeName: String, parent: String? = nil) -> Self {
        ResponderDescription(typeName, role: .viewController, parentType: parent)
    }

    /// A responder that is neither a view nor a controller (`UIApplication`, `AppDelegate`).
    public static func other(_ typeName: String) -> Self {
        ResponderDescription(typeName, role: .other)
    }
}

/// A cell's place in its table or collection.
public struct CellIndexPath: Sendable, Hashable, CustomStringConvertible {
    /// The section.
    public var section: Int
    /// The row (table) or item (collection).
    public var row: Int

    /// Creates an index path.
    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    /// `section:row`, as sent in `$element_position`.
    public var description: String { "\(section):\(row)" }
}
