/// A view controller that appeared or disappeared, as the UI adapter describes it.
public struct PageDescription: Sendable, Hashable {
    /// The controller's type name.
    public var controllerType: String
    /// Tells controller instances apart (the adapter passes `ObjectIdentifier`'s bits), so that
    /// pushing a second instance of the same type is a new page view.
    public var instanceID: UInt64
    /// The controller's title, when any (sent as `$title`).
    public var title: String?
    /// The parent controller's type name; `nil` for a root or presented controller. A controller
    /// whose parent is not a system container is a child and counts only when the plan names it.
    public var parentType: String?
    /// Whether the app opted this controller out of capture.
    public var ignoresTracking: Bool

    /// Describes a controller.
    public init(
        controllerType: String, instanceID: UInt64, title: String? = nil, parentType: String? = nil,
        ignoresTracking: Bool = false
    ) {
        self.controllerType = controllerType
        self.instanceID = instanceID
        self.title = title
        self.parentType = parentType
        self.ignoresTracking = ignoresTracking
    }
}
