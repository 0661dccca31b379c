/// What the tracker did, as reported to ``Tracker/Configuration/observer``: for debugging
/// screens, logs and tests.
public enum TrackerActivity: Sendable {
    /// An event was built and is being queued.
    case captured(Message)
    /// An event was refused before queueing (non-finite number, string over 8 KB, over 32 KB).
    case refused(MessageError)
    /// Events were dropped because the queue (or the in-memory hand-off) was full.
    case evicted(count: Int)
    /// A batch was sent; `status` is the HTTP status, `nil` for a network failure.
    case sent(eventCount: Int, status: Int?)
    /// The server refused one event inside an accepted batch, or a single event failed
    /// validation alone: kept in the dead-letter table, never resent.
    case deadLettered(messageId: String, reason: String)
    /// The queue database was unreadable and was moved aside to `movedTo`.
    case databaseReplaced(movedTo: String, reason: String)
    /// The server refused the write key (401/403): sending stops until the next start or
    /// ``Tracker/updateWriteKey(_:)``.
    case deliveryHalted(status: Int)
}
