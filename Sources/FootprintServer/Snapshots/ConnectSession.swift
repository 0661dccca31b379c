import FootprintWire

/// A connect session: while it is open, an app opened with its link uploads a screen snapshot on
/// every page appearance and on demand (`POST /v1/snapshots`). Started by an admin, for one
/// project, for a few minutes; the store keeps its token only as a ``SecretHash``.
public struct ConnectSession: Sendable, Hashable {
    /// Where a session stands at a given time.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Snapshots are taken.
        case open
        /// Someone ended it.
        case ended
        /// Its lifetime ran out.
        case expired
    }

    /// The store's id (to end it, to follow it live).
    public var id: Int64
    /// The project whose write key its uploads must carry.
    public var projectId: Int64
    /// The token's first characters (`fpc_1a2b`), to tell sessions apart.
    public var hint: String
    /// When it started.
    public var createdAt: Timestamp
    /// When it expires (or expired).
    public var expiresAt: Timestamp
    /// When someone ended it; `nil` when nobody did.
    public var endedAt: Timestamp?
    /// The id of the newest stored event when it started: the live view's clicks come after it.
    public var firstEventSequence: Int64
    /// Snapshots stored from it (those still kept).
    public var snapshotCount: Int
    /// When its newest kept snapshot arrived.
    public var lastSnapshotAt: Timestamp?

    /// Creates a session description.
    public init(
        id: Int64, projectId: Int64, hint: String, createdAt: Timestamp, expiresAt: Timestamp,
        endedAt: Timestamp? = nil, firstEventSequence: Int64 = 0, snapshotCount: Int = 0,
        lastSnapshotAt: Timestamp? = nil
    ) {
        self.id = id
        self.projectId = projectId
        self.hint = hint
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.endedAt = endedAt
        self.firstEventSequence = firstEventSequence
        self.snapshotCount = snapshotCount
        self.lastSnapshotAt = lastSnapshotAt
    }

    /// Its state at `now`: ended when someone ended it, else expired from ``expiresAt`` on.
    public func state(at now: Timestamp) -> State {
        if endedAt != nil { return .ended }
        return now < expiresAt ? .open : .expired
    }

    /// The session as the JSON API shows it, with its state at `now`.
    public func jsonValue(at now: Timestamp) -> JSONValue {
        [
            "id": .int(id), "hint": .string(hint), "state": .string(state(at: now).rawValue),
            "createdAt": .string(createdAt.iso8601), "expiresAt": .string(expiresAt.iso8601),
            "endedAt": endedAt.map { .string($0.iso8601) } ?? .null,
            "snapshots": .int(Int64(snapshotCount)),
            "lastSnapshotAt": lastSnapshotAt.map { .string($0.iso8601) } ?? .null,
        ]
    }
}

extension ConnectSession {
    /// How long sessions last and how many a project has.
    public struct Limits: Sendable, Hashable {
        /// A new session's lifetime when none is asked for, in seconds. Default 600 (10 minutes).
        public var defaultLifetimeSeconds: Int64 = 600
        /// The longest lifetime one may ask for, in seconds. Default 3,600 (one hour).
        public var maximumLifetimeSeconds: Int64 = 3600
        /// Sessions open at once per project; past it a new one is refused until one is ended or
        /// expires. Default 3.
        public var maximumOpenPerProject = 3
        /// Sessions remembered per project, open or not (the oldest ended or expired ones are
        /// forgotten first; their snapshots stay). Default 50.
        public var keptPerProject = 50

        /// Creates the default limits.
        public init() {}

        /// The lifetime for a request of `seconds` (`nil`: the default).
        /// - Throws: ``ServerError`` `connectSession` outside 60 s…``maximumLifetimeSeconds``.
        public func lifetime(seconds: Int64?) throws(ServerError) -> Int64 {
            guard let seconds else { return defaultLifetimeSeconds }
            let longest = max(60, maximumLifetimeSeconds)
            guard (60...longest).contains(seconds) else {
                throw ServerError(
                    code: .connectSession,
                    message: "a connect session lasts 60 to \(longest) seconds, not \(seconds)")
            }
            return seconds
        }
    }
}
