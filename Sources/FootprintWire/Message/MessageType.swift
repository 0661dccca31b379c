/// The kinds of message in the Segment HTTP tracking spec.
public enum MessageType: String, Sendable, Hashable, CaseIterable, Codable {
    /// A user action (`event` names it).
    case track
    /// A mobile screen view (`name` names the screen).
    case screen
    /// A web page view; stored like `screen`.
    case page
    /// Who the user is (`userId`, `traits`).
    case identify
    /// Links two identities (`previousId` → `userId`).
    case alias
    /// Puts the user in a group (`groupId`, `traits`).
    case group
}
