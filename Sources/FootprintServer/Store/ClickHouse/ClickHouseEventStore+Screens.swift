import FootprintWire
import Foundation

/// The Screens page and the live connect view: connect sessions and snapshots live in the
/// metadata store; the device clicks and plan health they show are read from the events in
/// ClickHouse.
///
/// The click cursor is the events' `sequence`: the wall clock in microseconds when a collector
/// stored the event, its lowest 4 bits the collector's own tag, one step more than the last when
/// the clock stands still or goes back (``ClickHouseEventStore/sequence(after:now:tag:)``), so
/// it grows with each event one collector stores, and one collector's INSERTs run one after
/// another. A read goes up to the newest sequence visible for the session's devices and stays
/// ``Configuration/liveClickSettle`` behind the wall clock, so that another collector's INSERT
/// still under way is read on a later call. Collectors on hosts whose clocks differ by more
/// than that can still leave a click out of the live view (never out of the stored events).
extension ClickHouseEventStore {
    /// The project's newest stored event, by its ClickHouse `sequence`.
    public func clickCursor(projectId: Int64) throws(ServerError) -> Int64 {
        try newestSequence(projectId: projectId, devices: nil)
    }

    public func deviceClicks(
        projectId: Int64, session: ConnectSession, devices: Set<String>, after: Int64, limit: Int
    ) throws(ServerError) -> DeviceClicks {
        let start = max(after, session.firstEventSequence)
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
        let newestReports = try client.rows(
            sql.planHealthReports(projectId: projectId, since: since, limit: limit))
        guard !newestReports.isEmpty else { return [] }
        var messages: [Int64: String] = [:]
        for row in try client.rows(
            sql.messages(projectId: projectId, sequences: newestReports.map(\.sequence)))
        {
            messages[row.sequence] = row.message
        }
        return newestReports.map { report in
            let message = try? JSONParser().parse(Array((messages[report.sequence] ?? "{}").utf8))
            return PlanHealthReport(
                appVersion: report.appVersion, time: Timestamp(millisecondsSince1970: report.time),
                properties: message?["properties"]?.objectValue ?? [:])
        }
    }

    /// The newest `sequence` of a project's events (of `devices`, when given), `0` when none.
    private func newestSequence(projectId: Int64, devices: Set<String>?) throws(ServerError) -> Int64 {
        guard let newest = try client.rows(sql.newestSequence(projectId: projectId, devices: devices)).first,
            newest.count > 0
        else { return 0 }
        return newest.sequence
    }
}
