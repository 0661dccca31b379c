import FootprintWire

/// Where the metadata store (``MetadataStore``) keeps connect sessions and screen snapshots, for
/// the Screens page and the live connect view (the clicks and plan health they show are events:
/// ``EventStore/deviceClicks(projectId:session:devices:after:limit:)``). A token is kept only as
/// its ``SecretHash``, and nothing is cached, so every process on one store sees an ended session
/// at once.
public protocol ScreenStore: Sendable {
    // MARK: Connect sessions

    /// Starts a connect session for a project; first forgets the oldest sessions that are no
    /// longer open past ``ConnectSession/Limits/keptPerProject``.
    /// - Parameters:
    ///   - tokenHash: the ``SecretHash`` of its token (the caller made the token and shows it once).
    ///   - hint: the token's first characters.
    ///   - now: when it starts.
    ///   - lifetimeSeconds: how long it stays open.
    ///   - firstEventSequence: the event sequence its device clicks start after
    ///     (``EventStore/clickCursor(projectId:)`` when it starts).
    /// - Throws: ``ServerError`` `tooManyConnectSessions` when the project already has
    ///   ``ConnectSession/Limits/maximumOpenPerProject`` open sessions; `project` when there is
    ///   no such project.
    func startConnectSession(
        projectId: Int64, tokenHash: SecretHash, hint: String, now: Timestamp, lifetimeSeconds: Int64,
        limits: ConnectSession.Limits, firstEventSequence: Int64
    ) throws(ServerError) -> ConnectSession

    /// A project's remembered connect sessions, newest first.
    func connectSessions(projectId: Int64) throws(ServerError) -> [ConnectSession]

    /// A project's connect session, or `nil`.
    func connectSession(id: Int64, projectId: Int64) throws(ServerError) -> ConnectSession?

    /// The connect session whose token hashes to `hash` (any project), or `nil`.
    func connectSession(tokenHash hash: SecretHash) throws(ServerError) -> ConnectSession?

    /// Ends a project's connect session at `now` (one that already ended or expired stays as it
    /// was). - Returns: the session afterwards, or `nil` when there is no such session.
    @discardableResult
    func endConnectSession(id: Int64, projectId: Int64, at now: Timestamp) throws(ServerError)
        -> ConnectSession?

    /// The devices (anonymous ids) whose snapshots a connect session holds: the devices its
    /// live view shows the clicks of.
    func connectSessionDevices(connectSessionId: Int64) throws(ServerError) -> Set<String>

    // MARK: Snapshots

    /// Stores a snapshot, unless the project already has one with its device id (a resend);
    /// then drops the oldest snapshots past `retention`, never the one just stored.
    func storeSnapshot(_ record: SnapshotRecord, retention: SnapshotRetention) throws(ServerError)
        -> SnapshotWrite

    /// Each page and app version with snapshots, with its newest, by page.
    func screens(projectId: Int64) throws(ServerError) -> [ScreenSummary]

    /// The snapshots of one page and app version, newest first.
    func snapshots(projectId: Int64, page: String, appVersion: String, limit: Int) throws(ServerError)
        -> [SnapshotSummary]

    /// The snapshots of one connect session stored after the one with id `after`, oldest first
    /// (the live view's cursor).
    func snapshots(projectId: Int64, connectSessionId: Int64, after: Int64, limit: Int) throws(ServerError)
        -> [SnapshotSummary]

    /// A project's snapshot with its document, or `nil`.
    func snapshot(id: Int64, projectId: Int64) throws(ServerError) -> StoredSnapshot?

    /// A project's snapshot's screenshot, or `nil` (no such snapshot, or it has none).
    func snapshotImage(id: Int64, projectId: Int64) throws(ServerError) -> SnapshotImage?
}
