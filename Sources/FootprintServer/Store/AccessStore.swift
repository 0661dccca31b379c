import FootprintWire

/// A read token of one project as the store lists it. The token itself is shown once, when
/// ``AccessStore/createReadToken(projectId:at:)`` makes it; the store keeps only its
/// ``SecretHash``.
public struct ProjectToken: Sendable, Hashable, Codable {
    /// The store's id (to revoke it).
    public var id: Int64
    /// The project it reads.
    public var projectId: Int64
    /// That project's name.
    public var projectName: String
    /// The token's first characters (`fpr_1a2b`), to tell tokens apart.
    public var hint: String
    /// When it was made.
    public var createdAt: Timestamp

    /// Creates a token description.
    public init(id: Int64, projectId: Int64, projectName: String, hint: String, createdAt: Timestamp) {
        self.id = id
        self.projectId = projectId
        self.projectName = projectName
        self.hint = hint
        self.createdAt = createdAt
    }
}

/// Where the server keeps project read tokens and dashboard sessions, each only as the
/// ``SecretHash`` of its secret. Every collector process sharing the store sees the same
/// tokens and sessions: a sign-out or a revoked token ends them everywhere.
public protocol AccessStore: Sendable {
    /// Makes a new read token of a project (`fpr_` and 32 hexadecimal digits) and stores its hash.
    /// - Returns: the token's description and the token itself, which nothing can show again.
    func createReadToken(projectId: Int64, at time: Timestamp) throws(ServerError) -> (ProjectToken, String)

    /// Every project read token, oldest first.
    func readTokens() throws(ServerError) -> [ProjectToken]

    /// Deletes a read token; returns whether it existed.
    @discardableResult
    func revokeReadToken(id: Int64) throws(ServerError) -> Bool

    /// The project whose read token hashes to `hash`, or `nil`.
    func project(readTokenHash hash: SecretHash) throws(ServerError) -> Project?

    /// Stores a dashboard session until `expires`; first forgets the expired ones and, past
    /// `maximumSessions`, those that expire soonest.
    func startDashboardSession(_ hash: SecretHash, expires: Timestamp, now: Timestamp, maximumSessions: Int)
        throws(ServerError)

    /// When the live session with this hash expires; `nil` when there is none (unknown, ended,
    /// or expired at `now`).
    func dashboardSessionExpiry(_ hash: SecretHash, now: Timestamp) throws(ServerError) -> Timestamp?

    /// Ends a dashboard session.
    func endDashboardSession(_ hash: SecretHash) throws(ServerError)

    /// Ends every dashboard session; returns how many there were.
    @discardableResult
    func endEveryDashboardSession() throws(ServerError) -> Int
}
