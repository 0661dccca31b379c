/// Who the tracker is recording, as of a moment: see ``Tracker/identity(timeoutSeconds:)``.
public struct TrackerIdentity: Sendable, Hashable {
    /// The device-scoped id, persisted across launches; ``Tracker/reset()`` makes a new one.
    public var anonymousId: String
    /// The app's id for the person, after ``Tracker/identify(userId:traits:)``.
    public var userId: String?
    /// The current session, `nil` before the first event of a session.
    public var sessionId: String?
    /// Whether the user opted out.
    public var isOptedOut: Bool
}
