/// One call on the tracker, as handed from the caller's thread to the storage thread, which
/// applies them in order. Times are read on the caller's thread, when the call was made.
enum TrackerCommand: Sendable {
    /// `track`, `screen` or a captured event.
    case event(CapturedEvent.Kind, properties: JSONObject, at: Timestamp)
    /// `identify(userId:traits:)`; a `nil` user id keeps the current one.
    case identify(userId: String?, traits: JSONObject, at: Timestamp)
    /// `alias(userId:)`.
    case alias(userId: String, at: Timestamp)
    /// `group(_:traits:)`.
    case group(groupId: String, traits: JSONObject, at: Timestamp)
    /// `reset()`: new anonymous id, no user, no super properties, new session.
    case reset(at: Timestamp)
    /// Adds super properties.
    case register(JSONObject)
    /// Removes super properties.
    case unregister([String])
    /// Starts timing an event.
    case startTimer(event: String, at: Timestamp)
    /// Ends timing an event and tracks it with `duration_ms`.
    case endTimer(event: String, properties: JSONObject, at: Timestamp)
    /// The app launched, became active, changed between foreground and background, or opened
    /// a deep link: the session's background clock and the lifecycle events.
    case lifecycle(AppLifecycleState.Signal, at: Timestamp)
    /// How the plan in force was applied: tracked as `$plan_health` unless already sent for
    /// this app release and plan revision (a report of dropped purpose-method calls is always
    /// sent).
    case planHealth(PlanHealth, at: Timestamp)
    /// Opt-out (`true`: clear the queue, drop new events) or opt-in.
    case setOptedOut(Bool)
    /// Commit what came before, then ask the uploader to send; `completion` runs when the
    /// queue is sent (or sending must wait).
    case flush(completion: (@Sendable () -> Void)?)
    /// A read or write the uploader needs.
    case storage(StorageRequest)
    /// Runs `body` on the storage thread once everything before it is on disk.
    case barrier(@Sendable () -> Void)
    /// Hands the identity, as of every call before it, to `reply`.
    case readIdentity(@Sendable (TrackerIdentity) -> Void)

    /// Whether this command is an event, subject to the pending limit and opt-out.
    var isEvent: Bool {
        switch self {
        case .event, .endTimer, .lifecycle(.openedURL, _), .planHealth: return true
        default: return false
        }
    }
}

/// What the uploader asks of the storage thread.
enum StorageRequest: Sendable {
    /// Reads the events a delivery step selects, up to `maximumBytes` of them (at least one).
    case readBatch(BatchSelection, maximumBytes: Int, reply: @Sendable (StoredBatch) -> Void)
    /// Applies what the response policy decided, and subtracts `acknowledgedEvictions` from the
    /// evictions still to report.
    case apply([DeliveryEffect], acknowledgedEvictions: Int64, reply: @Sendable () -> Void)
}

/// Events read from the queue for one request.
struct StoredBatch: Sendable {
    /// Row ids, oldest first.
    var rowIds: [Int64] = []
    /// The `messageId` of each row.
    var messageIds: [String] = []
    /// The stored JSON of each event.
    var bodies: [[UInt8]] = []
    /// Evictions not yet reported to the server.
    var unreportedEvictions: Int64 = 0
}
