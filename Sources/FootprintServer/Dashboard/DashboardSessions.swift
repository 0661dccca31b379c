import FootprintWire

/// Signed-in dashboard sessions, kept in the store (``AccessStore``) as the SHA-256 of their
/// ids, with their expiry: they survive a restart, and every collector process sharing the
/// database knows the same ones, so a sign-out ends a session everywhere. The id itself lives
/// only in the browser's cookie.
final class DashboardSessions: Sendable {
    /// One sign-in.
    struct Session: Sendable {
        /// The token every form of this session must carry.
        let csrfToken: String
        let expires: Timestamp
    }

    private let store: any AccessStore
    private let lifetimeMilliseconds: Int64
    /// The most sessions kept; those that expire soonest go first.
    static let maximumSessions = 10_000
    /// The longest session id looked up (the server's are 65 characters).
    static let maximumIdLength = 128

    init(store: any AccessStore, lifetimeSeconds: Int64) {
        self.store = store
        lifetimeMilliseconds = min(max(60, lifetimeSeconds), 366 * 86_400) * 1000
    }

    /// Starts a session; returns its id.
    func start(now: Timestamp) throws(ServerError) -> String {
        let id = AccessConfiguration.makeToken(prefix: "s") + AccessConfiguration.makeToken(prefix: "")
        try store.startDashboardSession(
            SecretHash(of: id), expires: now.adding(milliseconds: lifetimeMilliseconds), now: now,
            maximumSessions: Self.maximumSessions)
        return id
    }

    /// The live session with `id`; `nil` when there is none or the store failed to read it.
    /// - Throws: ``ServerError`` `unavailable` when the store cannot be reached now (PostgreSQL
    ///   down): the page is answered 503, not "sign in again".
    func session(id: String?, now: Timestamp) throws(ServerError) -> Session? {
        guard let id, !id.isEmpty, id.utf8.count <= Self.maximumIdLength else { return nil }
        let expiry: Timestamp?
        do {
            expiry = try store.dashboardSessionExpiry(SecretHash(of: id), now: now)
        } catch  where error.code == .unavailable {
            throw error
        } catch {
            return nil
        }
        guard let expires = expiry else { return nil }
        return Session(csrfToken: Self.csrfToken(sessionId: id), expires: expires)
    }

    /// Ends a session in every process that shares the store.
    func end(id: String?) throws(ServerError) {
        guard let id, !id.isEmpty, id.utf8.count <= Self.maximumIdLength else { return }
        try store.endDashboardSession(SecretHash(of: id))
    }

    /// The CSRF token of a session: derived from its id (which only the browser holds), so the
    /// store keeps nothing a form could be forged from.
    static func csrfToken(sessionId: String) -> String {
        String(SecretHash(of: "csrf " + sessionId).hex.prefix(32))
    }
}
