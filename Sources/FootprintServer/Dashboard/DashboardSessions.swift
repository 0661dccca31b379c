import FootprintWire

/// Signed-in dashboard sessions, in memory: a random id (the cookie) with its CSRF token and
/// expiry. A restart signs everyone out.
final class DashboardSessions: Sendable {
    /// One sign-in.
    struct Session: Sendable {
        /// The token every form of this session must carry.
        let csrfToken: String
        let expires: Timestamp
    }

    private let sessions = LockedValue<[String: Session]>([:])
    private let lifetimeMilliseconds: Int64
    /// The most sessions kept; the oldest go first.
    static let maximumSessions = 10_000

    init(lifetimeSeconds: Int64) {
        lifetimeMilliseconds = max(60, lifetimeSeconds) * 1000
    }

    /// Starts a session; returns its id.
    func start(now: Timestamp) -> String {
        let id = AccessConfiguration.makeToken(prefix: "s") + AccessConfiguration.makeToken(prefix: "")
        let session = Session(
            csrfToken: AccessConfiguration.makeToken(prefix: ""),
            expires: now.adding(milliseconds: lifetimeMilliseconds))
        sessions.withLock { table in
            table = table.filter { now < $0.value.expires }
            if table.count >= Self.maximumSessions,
                let oldest = table.min(by: { $0.value.expires < $1.value.expires })
            {
                table[oldest.key] = nil
            }
            table[id] = session
        }
        return id
    }

    /// The live session with `id`.
    func session(id: String?, now: Timestamp) -> Session? {
        guard let id else { return nil }
        return sessions.withLock { table in
            guard let session = table[id] else { return nil }
            guard now < session.expires else {
                table[id] = nil
                return nil
            }
            return session
        }
    }

    /// Ends a session.
    func end(id: String?) {
        guard let id else { return }
        sessions.withLock { $0[id] = nil }
    }
}
