import FootprintWire

/// A stored event as the live-events page shows it.
public struct RecentEvent: Sendable, Hashable {
    /// Increases with each stored event: poll with the newest one seen.
    public var sequence: Int64
    /// The message type.
    public var type: MessageType
    /// `event` of track, `name` of views.
    public var name: String?
    /// The event time.
    public var time: Timestamp
    /// When the server received it.
    public var receivedAt: Timestamp
    /// The user id, else the anonymous id.
    public var person: String?
    /// The page.
    public var page: String?
    /// The whole message as compact JSON.
    public var payload: String

    /// Creates a recent event.
    public init(
        sequence: Int64, type: MessageType, name: String?, time: Timestamp, receivedAt: Timestamp,
        person: String?, page: String?, payload: String
    ) {
        self.sequence = sequence
        self.type = type
        self.name = name
        self.time = time
        self.receivedAt = receivedAt
        self.person = person
        self.page = page
        self.payload = payload
    }
}
