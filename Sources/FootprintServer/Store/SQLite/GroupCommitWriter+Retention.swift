import FootprintSQLite
import FootprintWire

extension GroupCommitWriter {
    /// Deletes up to `chunk` events of a project older than `horizonDay` (UTC days since 1970)
    /// in one short transaction, so ingest waits for one chunk at most.
    /// - Returns: the events deleted.
    func deleteEvents(projectId: Int64, beforeDay horizonDay: Int64, chunk: Int) throws(ServerError) -> Int {
        try perform { database in
            guard let statements = self.statements else { return 0 }
            return try database.transaction {
                try database.prepare(
                    """
                    DELETE FROM events WHERE id IN (
                        SELECT id FROM events INDEXED BY events_by_time WHERE project_id = ?1 AND time < ?2 LIMIT ?3)
                    """
                ).run([
                    .integer(projectId), .integer(horizonDay &* 86_400_000), .integer(Int64(max(1, chunk))),
                ])
                let deleted = database.changes
                self.eventDeletions.withLock { $0 += 1 }
                try statements.rollups.stored.run([.integer(projectId), .integer(-Int64(deleted))])
                return deleted
            }
        }
    }

    /// Drops a project's rollups before `horizonDay` once its older events are gone: daily rows,
    /// day sets of people and funnel times of earlier days, sessions that ended before it; the
    /// sessions across it are rebuilt from their remaining events. Records the horizon for the
    /// reports' note.
    ///
    /// Each step is its own short transaction on the writer (ingest goes on between them); a
    /// report over days from the horizon on reads the same between any two of them.
    func dropRollups(projectId: Int64, beforeDay horizonDay: Int64) throws(ServerError) {
        let project = SQLiteValue.integer(projectId)
        let horizon = SQLiteValue.integer(horizonDay &* 86_400_000)
        let day = SQLiteValue.integer(horizonDay)
        try step { database, statements in
            let across = try database.prepare(
                "SELECT session_key FROM sessions WHERE project_id = ?1 AND start_time < ?2 AND end_time >= ?2"
            ).rows([project, horizon]) {
                RollupDelta.SessionKey(project: projectId, key: $0.text(at: 0) ?? "")
            }
            try Self.rebuildSessions(across, database: database, statements: statements)
            try database.prepare(
                """
                DELETE FROM session_pages WHERE project_id = ?1 AND session IN (
                    SELECT number FROM sessions WHERE project_id = ?1 AND end_time < ?2)
                """
            ).run([project, horizon])
            try database.prepare("DELETE FROM sessions WHERE project_id = ?1 AND end_time < ?2").run([
                project, horizon,
            ])
        }
        try step { database, _ in
            for table in [
                "rollup_counts", "rollup_totals", "rollup_dwell", "rollup_moves", "person_sets",
                "person_label_sets", "rollup_times",
            ] {
                try database.prepare("DELETE FROM \(table) WHERE project_id = ?1 AND day < ?2").run([
                    project, day,
                ])
            }
        }
        try recordHorizon(projectId: projectId, day: horizonDay)
    }

    /// Records that a project holds every event from `day` on (never moving the horizon back),
    /// for the reports' note.
    func recordHorizon(projectId: Int64, day: Int64) throws(ServerError) {
        try step { database, _ in
            try database.prepare(
                """
                INSERT INTO project_retention(project_id, horizon_day) VALUES (?1, ?2)
                ON CONFLICT DO UPDATE SET horizon_day = max(coalesce(horizon_day, excluded.horizon_day), excluded.horizon_day)
                """
            ).run([.integer(projectId), .integer(day)])
        }
    }

    /// Runs `body` in one transaction on the writer.
    private func step(_ body: (SQLiteDatabase, Statements) throws -> Void) throws(ServerError) {
        try perform { database in
            guard let statements = self.statements else { return }
            try database.transaction { try body(database, statements) }
        }
    }
}
