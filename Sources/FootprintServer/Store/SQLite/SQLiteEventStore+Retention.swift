import FootprintSQLite
import FootprintWire

extension SQLiteEventStore: RetentionStore {
    /// Records a project's retention horizon (a store that deletes its events elsewhere, ClickHouse).
    func recordRetentionHorizon(projectId: Int64, day: Int64) throws(ServerError) {
        try requireWriter().recordHorizon(projectId: projectId, day: day)
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
        if let days, !(1...36_500).contains(days) {
            throw ServerError(code: .invalidQuery, message: "retention days must be 1 to 36500")
        }
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

    /// Deletes every project's events older than its retention (its own days, else
    /// `defaultDays`; projects with neither keep everything) as of `now`: whole UTC days before
    /// the day `days` before `now`'s, in transactions of `chunk` events (default 1,000) each on the writer (ingest
    /// goes on between them), then drops those days' rollups in one more transaction.
    /// - Returns: the events deleted per project name.
    @discardableResult
    public func applyRetention(defaultDays: Int?, now: Timestamp, chunk: Int = 1_000) throws(ServerError)
        -> [String: Int]
    {
        let writer = try requireWriter()
        var deleted: [String: Int] = [:]
        for project in try projects() {
            guard let days = try retentionDays(projectId: project.id) ?? defaultDays, days > 0 else {
                continue
            }
            let horizonDay = now.dayNumber - Int64(min(days, 36_500))
            var total = 0
            while true {
                let count = try writer.deleteEvents(
                    projectId: project.id, beforeDay: horizonDay, chunk: chunk)
                total += count
                if count < chunk { break }
            }
            try writer.dropRollups(projectId: project.id, beforeDay: horizonDay)
            deleted[project.name] = total
        }
        return deleted
    }
}
