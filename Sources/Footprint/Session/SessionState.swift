/// The session rules as a pure state machine: a session id on every event, a new session after
/// `timeout` without events, or when the app comes back from a background stay longer than
/// `timeout`.
///
/// Time is always passed in; the id of a new session comes from the caller, so tests decide it.
struct SessionState: Sendable, Hashable {
    /// The current session's id, `nil` before the first event.
    private(set) var id: String?
    /// When the last event of the session happened.
    private(set) var lastActivity: Timestamp?
    /// When the app went to the background, while it is there.
    private(set) var backgroundedAt: Timestamp?
    /// Inactivity (or background stay) after which a new session starts, in milliseconds.
    let timeoutMilliseconds: Int64

    /// Creates the state, optionally resuming a session stored by an earlier launch.
    init(timeoutMilliseconds: Int64, resuming id: String? = nil, lastActivity: Timestamp? = nil) {
        self.timeoutMilliseconds = timeoutMilliseconds
        self.id = id
        self.lastActivity = id == nil ? nil : lastActivity
    }

    /// The session id for an event at `now`, starting a new session (with `makeId()`) when the
    /// rules say so.
    mutating func sessionId(forEventAt now: Timestamp, makeId: () -> String) -> String {
        if let id, let lastActivity,
            now.millisecondsSince1970 - lastActivity.millisecondsSince1970 <= timeoutMilliseconds
        {
            self.lastActivity = max(lastActivity, now)
            return id
        }
        let newId = makeId()
        id = newId
        lastActivity = now
        return newId
    }

    /// The app went to the background at `now`.
    mutating func enteredBackground(at now: Timestamp) {
        backgroundedAt = now
    }

    /// The app came back at `now`. Returns `true` when the stay was long enough to end the
    /// session (the next event starts a new one).
    @discardableResult
    mutating func enteredForeground(at now: Timestamp) -> Bool {
        defer { backgroundedAt = nil }
        guard let backgroundedAt,
            now.millisecondsSince1970 - backgroundedAt.millisecondsSince1970 > timeoutMilliseconds
        else { return false }
        endSession()
        return true
    }

    /// Ends the session (on `reset()` or opt-out): the next event starts a new one.
    mutating func endSession() {
        id = nil
        lastActivity = nil
    }
}
