import FootprintSQLite
import FootprintWire

extension SQLiteEventStore {
    /// Records a project's retention horizon (a store that deletes its events elsewhere, ClickHouse).
    func recordRetentionHorizon(projectId: Int64, day: Int64) throws(ServerError) {
        try requireWriter().recordHorizon(projectId: projectId, day: day)
    }

    /// Deletes a project's screen snapshots taken or received before `horizonDay` (UTC days since
    /// 1970), with their images, in one transaction on the writer: retention's step for the
    /// snapshots this file keeps (also when the events live elsewhere, ClickHouse).
    /// - Returns: how many were deleted.
    @discardableResult
    func deleteSnapshots(projectId: Int64, beforeDay horizonDay: Int64) throws(ServerError) -> Int {
        try requireWriter().deleteSnapshots(projectId: projectId, beforeDay: horizonDay)
    }

    /// A project's own retention in days, or `nil` (the server's `--retention-days`, if any).
    public func retentionDays(projectId: Int64) throws(ServerError) -> Int? {
        try read { database in
            try database.prepare(
                "SELECT days FROM project_retention WHERE project_id = ?1 AND days IS NOT NULL"
            )
            .rows([.integer(projectId)]) { Int($0.int64(at: 0)) }.first
        }
    }

    /// Whether some project has its own retention.
    public func anyProjectHasRetention() throws(ServerError) -> Bool {
        try read { database in
            try !database.prepare("SELECT 1 FROM project_retention WHERE days IS NOT NULL LIMIT 1").rows([]) {
                _ in true
            }
            .isEmpty
        }
    }

    /// Sets (or with `nil` clears) a project's own retention in days (1 to 36,500).
    public func setRetentionDays(_ days: Int?, projectId: Int64) throws(ServerError) {
        try MetadataRules.checkRetentionDays(days)
        try requireWriter().perform { database in
            try database.prepare(
                """
                INSERT INTO project_retention(project_id, days) VALUES (?1, ?2)
                ON CONFLICT DO UPDATE SET days = excluded.days
                """
            ).run([.integer(projectId), days.map { .integer(Int64($0)) } ?? .null])
        }
    }

    /// The first day a project still holds every event of (its retention horizon), or `nil`
    /// when retention never deleted anything.
    public func retentionHorizon(projectId: Int64) throws(ServerError) -> Timestamp? {
        try read { database in
            try database.prepare(
                "SELECT horizon_day FROM project_retention WHERE project_id = ?1 AND horizon_day IS NOT NULL"
            ).rows([.integer(projectId)]) { Timestamp(millisecondsSince1970: $0.int64(at: 0) &* 86_400_000) }
                .first
        }
    }

    /// Each project with a retention (its own days, else `defaultDays`) and the first day it
    /// keeps as of `now`: the UTC day `days` (at most 36,500) before `now`'s.
    func retentionHorizons(defaultDays: Int?, now: Timestamp) throws(ServerError) -> [(
        project: Project, day: Int64
    )] {
        try MetadataRules.retentionHorizons(projects: try projects(), defaultDays: defaultDays, now: now) {
            (id: Int64) throws(ServerError) in try retentionDays(projectId: id)
        }
    }

    /// Deletes every project's events older than its retention (its own days, else
    /// `defaultDays`; projects with neither keep everything) as of `now`: whole UTC days before
    /// the day `days` before `now`'s, in transactions of `chunk` events (default 1,000) each on the writer (ingest
    /// goes on between them), then the screen snapshots taken or received before that day, then
    /// drops those days' rollups.
    /// - Returns: the events deleted per project name.
    @discardableResult
    public func applyRetention(defaultDays: Int?, now: Timestamp, chunk: Int = 1_000) throws(ServerError)
        -> [String: Int]
    {
        let writer = try requireWriter()
        var deleted: [String: Int] = [:]
        for (project, horizonDay) in try retentionHorizons(defaultDays: defaultDays, now: now) {
            var total = 0
            while true {
                let count = try writer.deleteEvents(
                    projectId: project.id, beforeDay: horizonDay, chunk: chunk)
                total += count
                if count < chunk { break }
            }
            try deleteSnapshots(projectId: project.id, beforeDay: horizonDay)
            try writer.dropRollups(projectId: project.id, beforeDay: horizonDay)
            deleted[project.name] = total
        }
        return deleted
    }
}
