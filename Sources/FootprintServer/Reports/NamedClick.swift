/// One `$element_click` the tracking plan named (`properties.$event_name`), as the overview's
/// named events read it.
public struct NamedClick: Sendable, Hashable {
    /// The plan event's name (`$event_name`).
    public var eventName: String
    /// The device-scoped id.
    public var anonymousId: String?
    /// The app's user id.
    public var userId: String?

    /// Creates a named click.
    public init(eventName: String, anonymousId: String?, userId: String?) {
        self.eventName = eventName
        self.anonymousId = anonymousId
        self.userId = userId
    }
}
