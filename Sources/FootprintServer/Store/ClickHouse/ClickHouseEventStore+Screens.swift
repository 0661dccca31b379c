import FootprintWire
import Foundation

/// The Screens page and the live connect view: connect sessions and snapshots live in the
/// metadata file (``SQLiteEventStore``); the device clicks and plan health they show are read
/// from the events in ClickHouse.
///
/// The click cursor is the events' `sequence`: the wall clock in microseconds when a collector
/// stored the event, its lowest 4 bits the collector's own tag, one step more than the last when
/// the clock stands still or goes back (``ClickHouseEventStore/sequence(after:now:tag:)``), so
/// it grows with each event one collector stores, and one collector's INSERTs run one after
/// another. A read goes up to the newest sequence visible for the session's devices and stays
/// ``Configuration/liveClickSettle`` behind the wall clock, so that another collector's INSERT
/// still under way is read on a later call. Collectors on hosts whose clocks differ by more
/// than that can still leave a click out of the live view (never out of the stored events).
extension ClickHouseEventStore: ScreenStore {
    /// Starts the session after the project's newest stored event, by its ClickHouse `sequence`.
    public func startConnectSession(
        projectId: Int64, tokenHash: SecretHash, hint: String, now: Timestamp, lifetimeSeconds: Int64,
        limits: ConnectSession.Limits
    ) throws(ServerError) -> ConnectSession {
        let newest = try newestSequence(projectId: projectId, devices: nil)
        return try metadata.startConnectSession(
            projectId: projectId, tokenHash: tokenHash, hint: hint, now: now,
            lifetimeSeconds: lifetimeSeconds,
            limits: limits, firstEventSequence: newest)
    }

    public func connectSessions(projectId: Int64) throws(ServerError) -> [ConnectSession] {
        try metadata.connectSessions(projectId: projectId)
    }

    public func connectSession(id: Int64, projectId: Int64) throws(ServerError) -> ConnectSession? {
        try metadata.connectSession(id: id, projectId: projectId)
    }

    public func connectSession(tokenHash hash: SecretHash) throws(ServerError) -> ConnectSession? {
        try metadata.connectSession(tokenHash: hash)
    }

    @discardableResult
    public func endConnectSession(id: Int64, projectId: Int64, at now: Timestamp) throws(ServerError)
        -> ConnectSession?
    {
        try metadata.endConnectSession(id: id, projectId: projectId, at: now)
    }

    public func storeSnapshot(_ record: SnapshotRecord, retention: SnapshotRetention) throws(ServerError)
        -> SnapshotWrite
    {
        try metadata.storeSnapshot(record, retention: retention)
    }

    public func screens(projectId: Int64) throws(ServerError) -> [ScreenSummary] {
        try metadata.screens(projectId: projectId)
    }

    public func snapshots(projectId: Int64, page: String, appVersion: String, limit: Int) throws(ServerError)
        -> [SnapshotSummary]
    {
        try metadata.snapshots(projectId: projectId, page: page, appVersion: appVersion, limit: limit)
    }

    public func snapshots(projectId: Int64, connectSessionId: Int64, after: Int64, limit: Int)
        throws(ServerError)
        -> [SnapshotSummary]
    {
        try metadata.snapshots(
            projectId: projectId, connectSessionId: connectSessionId, after: after, limit: limit)
    }

    public func snapshot(id: Int64, projectId: Int64) throws(ServerError) -> StoredSnapshot? {
        try metadata.snapshot(id: id, projectId: projectId)
    }

    public func snapshotImage(id: Int64, projectId: Int64) throws(ServerError) -> SnapshotImage? {
        try metadata.snapshotImage(id: id, projectId: projectId)
    }

    // MARK: Events the screens need

    public func deviceClicks(projectId: Int64, connectSessionId: Int64, after: Int64, limit: Int)
        throws(ServerError) -> DeviceClicks
    {
        guard let session = try connectSession(id: connectSessionId, projectId: projectId) else {
            throw ServerError(code: .connectSession, message: "no connect session \(connectSessionId)")
        }
        let start = max(after, session.firstEventSequence)
        let devices = try metadata.connectSessionDevices(connectSessionId: connectSessionId)
        // Until the device's first snapshot names it, nothing is looked at (nor skipped).
        guard !devices.isEmpty else { return DeviceClicks(clicks: [], cursor: start) }
        // Read first, so that an event stored during the scan is left for the next call.
        let setting = configuration.liveClickSettle
        let settle = setting.isFinite ? min(max(0, setting), 86_400) : 0
        let settled = Int64(max(0, (Date().timeIntervalSince1970 - settle) * 1_000_000))
        let end = min(try newestSequence(projectId: projectId, devices: devices), settled)
        guard end > start else { return DeviceClicks(clicks: [], cursor: start) }
        let wanted = max(1, limit)
        let clicks = try client.rows(
            sql.deviceClicks(
                projectId: projectId, devices: devices, after: start, through: end, limit: wanted)
        )
        let cursor = clicks.count == wanted ? clicks[clicks.count - 1].sequence : end
        return DeviceClicks(clicks: clicks, cursor: cursor)
    }

    public func planHealthReports(projectId: Int64, limit: Int) throws(ServerError) -> [PlanHealthReport] {
        guard let newest = try client.rows(sql.newestCountedDay(projectId: projectId)).first, newest.count > 0
        else { return [] }
        let since = newest.day.saturatingAdd(-SQLiteEventStore.planHealthLookbackDays)
        return try client.rows(sql.planHealthReports(projectId: projectId, since: since, limit: limit))
    }

    /// The newest `sequence` of a project's events (of `devices`, when given), `0` when none.
    private func newestSequence(projectId: Int64, devices: Set<String>?) throws(ServerError) -> Int64 {
        guard let newest = try client.rows(sql.newestSequence(projectId: projectId, devices: devices)).first,
            newest.count > 0
        else { return 0 }
        return newest.sequence
    }
}
