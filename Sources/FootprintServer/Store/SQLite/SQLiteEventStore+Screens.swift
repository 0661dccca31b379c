import FootprintSQLite
import FootprintWire

extension SQLiteEventStore {
    // MARK: Connect sessions

    public func startConnectSession(
        projectId: Int64, tokenHash: SecretHash, hint: String, now: Timestamp, lifetimeSeconds: Int64,
        limits: ConnectSession.Limits, firstEventSequence: Int64
    ) throws(ServerError) -> ConnectSession {
        let expires = now.adding(
            milliseconds: MetadataRules.connectSessionLifetimeMilliseconds(lifetimeSeconds))
        return try requireWriter().perform { database in
            try database.transaction {
                let known = try database.prepare("SELECT 1 FROM projects WHERE id = ?1").rows([
                    .integer(projectId)
                ]) { _ in true }
                guard !known.isEmpty else {
                    throw MetadataRules.noProject(projectId)
                }
                let open =
                    try database.prepare(
                        """
                        SELECT count(*) FROM connect_sessions
                        WHERE project_id = ?1 AND ended_at IS NULL AND expires_at > ?2
                        """
                    ).rows([.integer(projectId), .integer(now.millisecondsSince1970)]) { $0.int64(at: 0) }
                    .first ?? 0
                if let refusal = MetadataRules.connectSessionRefusal(open: open, limits: limits) {
                    throw refusal
                }
                let firstEvent = firstEventSequence
                try database.prepare(
                    """
                    INSERT INTO connect_sessions(hash, project_id, hint, created_at, expires_at, first_event)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                    """
                ).run([
                    .blob(tokenHash.bytes), .integer(projectId), .text(hint),
                    .integer(now.millisecondsSince1970),
                    .integer(expires.millisecondsSince1970), .integer(firstEvent),
                ])
                let id = database.lastInsertRowID
                // The newest sessions stay; of the older ones, those still open too.
                try database.prepare(
                    """
                    DELETE FROM connect_sessions WHERE project_id = ?1
                        AND (ended_at IS NOT NULL OR expires_at <= ?2)
                        AND id NOT IN (SELECT id FROM connect_sessions WHERE project_id = ?1 ORDER BY id DESC LIMIT ?3)
                    """
                ).run([
                    .integer(projectId), .integer(now.millisecondsSince1970),
                    .integer(Int64(max(1, limits.keptPerProject))),
                ])
                return ConnectSession(
                    id: id, projectId: projectId, hint: hint, createdAt: now, expiresAt: expires,
                    firstEventSequence: firstEvent)
            }
        }
    }

    public func connectSessions(projectId: Int64) throws(ServerError) -> [ConnectSession] {
        try read { database in
            try database.prepare(
                MetadataSQL.selectConnectSessions
                    + " WHERE c.project_id = ?1 GROUP BY c.id ORDER BY c.id DESC"
            )
            .rows([.integer(projectId)], { try $0.connectSession() })
        }
    }

    public func connectSession(id: Int64, projectId: Int64) throws(ServerError) -> ConnectSession? {
        try read { database in
            try database.prepare(
                MetadataSQL.selectConnectSessions + " WHERE c.id = ?1 AND c.project_id = ?2 GROUP BY c.id"
            )
            .rows([.integer(id), .integer(projectId)], { try $0.connectSession() }).first
        }
    }

    public func connectSession(tokenHash hash: SecretHash) throws(ServerError) -> ConnectSession? {
        let found = try read { database in
            try database.prepare(MetadataSQL.selectConnectSessions + " WHERE c.hash = ?1 GROUP BY c.id").rows(
                [
                    .blob(hash.bytes)
                ]) { row in
                    (SecretHash(stored: row.blob(at: 9)), try row.connectSession())
                }.first
        }
        guard let found, SecretHash.constantTimeEquals(found.0, hash) else { return nil }
        return found.1
    }

    @discardableResult
    public func endConnectSession(id: Int64, projectId: Int64, at now: Timestamp) throws(ServerError)
        -> ConnectSession?
    {
        try requireWriter().perform { database in
            try database.prepare(
                """
                UPDATE connect_sessions SET ended_at = ?3
                WHERE id = ?1 AND project_id = ?2 AND ended_at IS NULL AND expires_at > ?3
                """
            ).run([.integer(id), .integer(projectId), .integer(now.millisecondsSince1970)])
        }
        return try connectSession(id: id, projectId: projectId)
    }

    // MARK: Snapshots

    public func storeSnapshot(_ record: SnapshotRecord, retention: SnapshotRetention) throws(ServerError)
        -> SnapshotWrite
    {
        try requireWriter().perform { database in
            try database.transaction {
                let existing = try database.prepare(
                    "SELECT id FROM snapshots WHERE project_id = ?1 AND device_snapshot_id = ?2"
                ).rows([.integer(record.projectId), .text(record.snapshotId)]) { $0.int64(at: 0) }.first
                if let existing { return SnapshotWrite(id: existing, created: false, dropped: 0) }
                try database.prepare(
                    """
                    INSERT INTO snapshots(project_id, connect_session, device_snapshot_id, anonymous_id, user_id, page,
                        app_version, taken_at, received_at, element_count, image_format, image_width, image_height,
                        bytes, document)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
                    """
                ).run([
                    .integer(record.projectId), .integer(record.connectSessionId), .text(record.snapshotId),
                    .text(record.anonymousId), record.userId.map(SQLiteValue.text) ?? .null,
                    .text(record.page),
                    .text(record.appVersion), .integer(record.takenAt.millisecondsSince1970),
                    .integer(record.receivedAt.millisecondsSince1970), .integer(Int64(record.elementCount)),
                    record.image.map { .text($0.format) } ?? .null,
                    record.image.map { .integer(Int64($0.width)) } ?? .null,
                    record.image.map { .integer(Int64($0.height)) } ?? .null, .integer(Int64(record.bytes)),
                    .text(record.document),
                ])
                let id = database.lastInsertRowID
                if let image = record.image {
                    try database.prepare("INSERT INTO snapshot_images(snapshot, data) VALUES (?1, ?2)").run([
                        .integer(id), .blob(image.data),
                    ])
                }
                let dropped = try Self.dropOldSnapshots(
                    database, projectId: record.projectId, sessionId: record.connectSessionId, keeping: id,
                    retention: retention)
                return SnapshotWrite(id: id, created: true, dropped: dropped)
            }
        }
    }

    /// Deletes the oldest snapshots past the session's and the project's bounds, never `keep`.
    /// Past the project's, the newest snapshot of each page and app version goes last.
    private static func dropOldSnapshots(
        _ database: SQLiteDatabase, projectId: Int64, sessionId: Int64, keeping keep: Int64,
        retention: SnapshotRetention
    ) throws -> Int {
        let sessionOverflow = try database.prepare(
            "SELECT id FROM snapshots WHERE connect_session = ?1 AND id != ?2 ORDER BY id DESC LIMIT -1 OFFSET ?3"
        ).rows([.integer(sessionId), .integer(keep), .integer(Int64(max(0, retention.perSession - 1)))]) {
            $0.int64(at: 0)
        }
        let candidates = try database.prepare(
            """
            SELECT id, bytes FROM snapshots WHERE project_id = ?1 AND id != ?2
            ORDER BY id IN (SELECT max(id) FROM snapshots WHERE project_id = ?1 GROUP BY page, app_version), id
            """
        ).rows([.integer(projectId), .integer(keep)]) { (id: $0.int64(at: 0), bytes: $0.int64(at: 1)) }
        let kept =
            try database.prepare("SELECT bytes FROM snapshots WHERE id = ?1").rows([.integer(keep)]) {
                $0.int64(at: 0)
            }.first ?? 0
        let doomed = MetadataRules.doomedSnapshots(
            sessionOverflow: sessionOverflow, candidates: candidates, keptBytes: kept, retention: retention)
        guard !doomed.isEmpty else { return 0 }
        try GroupCommitWriter.deleteSnapshots(doomed, database: database)
        return doomed.count
    }

    public func screens(projectId: Int64) throws(ServerError) -> [ScreenSummary] {
        try read { database in
            try database.prepare(
                MetadataSQL.screens(project: "?1")
            ).rows([.integer(projectId)]) { row in
                let latest = try row.snapshotSummary()
                return ScreenSummary(
                    page: latest.page, appVersion: latest.appVersion, snapshotCount: Int(row.int64(at: 14)),
                    latest: latest)
            }
        }
    }

    public func snapshots(projectId: Int64, page: String, appVersion: String, limit: Int) throws(ServerError)
        -> [SnapshotSummary]
    {
        try read { database in
            try database.prepare(
                """
                SELECT \(MetadataSQL.snapshotSummaryColumns) FROM snapshots s
                WHERE s.project_id = ?1 AND s.page = ?2 AND s.app_version = ?3 ORDER BY s.id DESC LIMIT ?4
                """
            ).rows(
                [.integer(projectId), .text(page), .text(appVersion), .integer(Int64(max(0, limit)))],
                { try $0.snapshotSummary() })
        }
    }

    public func snapshots(projectId: Int64, connectSessionId: Int64, after: Int64, limit: Int)
        throws(ServerError) -> [SnapshotSummary]
    {
        try read { database in
            try database.prepare(
                """
                SELECT \(MetadataSQL.snapshotSummaryColumns) FROM snapshots s
                WHERE s.connect_session = ?1 AND s.project_id = ?2 AND s.id > ?3 ORDER BY s.id LIMIT ?4
                """
            ).rows(
                [
                    .integer(connectSessionId), .integer(projectId), .integer(after),
                    .integer(Int64(max(0, limit))),
                ],
                { try $0.snapshotSummary() })
        }
    }

    public func snapshot(id: Int64, projectId: Int64) throws(ServerError) -> StoredSnapshot? {
        try read { database in
            try database.prepare(
                "SELECT \(MetadataSQL.snapshotSummaryColumns), s.document FROM snapshots s WHERE s.id = ?1 AND s.project_id = ?2"
            ).rows([.integer(id), .integer(projectId)]) { row in
                StoredSnapshot(summary: try row.snapshotSummary(), document: row.text(at: 14) ?? "{}")
            }.first
        }
    }

    public func snapshotImage(id: Int64, projectId: Int64) throws(ServerError) -> SnapshotImage? {
        try read { database in
            try database.prepare(
                """
                SELECT s.image_format, s.image_width, s.image_height, i.data
                FROM snapshots s JOIN snapshot_images i ON i.snapshot = s.id
                WHERE s.id = ?1 AND s.project_id = ?2 AND s.image_format IS NOT NULL
                """
            ).rows([.integer(id), .integer(projectId)]) { row in
                SnapshotImage(
                    format: row.text(at: 0) ?? "", width: Int(row.int64(at: 1)),
                    height: Int(row.int64(at: 2)),
                    data: row.blob(at: 3))
            }.first
        }
    }

    /// The person's snapshots for an export (``exportSnapshots(of:projectId:database:)``) on a
    /// read connection of this file (also when the events live elsewhere, ClickHouse).
    func exportSnapshots(of selection: PersonSelection, projectId: Int64) throws(ServerError) -> [JSONValue] {
        try read { database in
            try Self.exportSnapshots(of: selection, projectId: projectId, database: database)
        }
    }

    /// The person's snapshots (``GroupCommitWriter/snapshotIds(of:projectId:database:)``), oldest
    /// first, for an export: each as the JSON API lists it with its `document` (the snapshot as
    /// stored: without the connect token and the image's bytes). A screenshot's bytes stay out;
    /// `image` says whether there is one and `image.url` serves it.
    static func exportSnapshots(of selection: PersonSelection, projectId: Int64, database: SQLiteDatabase)
        throws -> [JSONValue]
    {
        let ids = try GroupCommitWriter.snapshotIds(of: selection, projectId: projectId, database: database)
        let select = try database.prepare(
            "SELECT \(MetadataSQL.snapshotSummaryColumns), s.document FROM snapshots s WHERE s.id = ?1")
        return try ids.flatMap { id in
            try select.rows([.integer(id)]) { row -> JSONValue in
                MetadataRules.exportedSnapshot(try row.snapshotSummary(), document: row.text(at: 14) ?? "{}")
            }
        }
    }

    // MARK: Events the screens need

    /// Stored events one ``deviceClicks(projectId:session:devices:after:limit:)`` call looks at.
    static let deviceClickWindow: Int64 = 100_000

    public func clickCursor(projectId: Int64) throws(ServerError) -> Int64 {
        try read { database in
            try database.prepare("SELECT coalesce(max(id), 0) FROM events").rows { $0.int64(at: 0) }.first
                ?? 0
        }
    }

    public func deviceClicks(
        projectId: Int64, session: ConnectSession, devices: Set<String>, after: Int64, limit: Int
    ) throws(ServerError) -> DeviceClicks {
        let start = max(after, session.firstEventSequence)
        // Until the device's first snapshot names it, nothing is looked at (nor skipped).
        guard !devices.isEmpty else { return DeviceClicks(clicks: [], cursor: start) }
        let deviceList = SQLiteValue.text(JSONWriter.string(.array(devices.sorted().map { .string($0) })))
        return try read { database in
            // Read first, so that an event committed during the scan is left for the next call.
            let newest =
                try database.prepare("SELECT coalesce(max(id), 0) FROM events").rows { $0.int64(at: 0) }.first
                ?? 0
            let end = min(newest, start.saturatingAdd(Self.deviceClickWindow))
            guard end > start else { return DeviceClicks(clicks: [], cursor: start) }
            let wanted = max(1, limit)
            let clicks = try database.prepare(
                """
                SELECT id, time, anonymous_id, page, element_path, \(SQLiteSchema.similarPath), element_text FROM events
                WHERE id > ?1 AND id <= ?2 AND project_id = ?3 AND type = 'track' AND name = '$element_click'
                    AND element_path IS NOT NULL
                    AND anonymous_id IN (SELECT value FROM json_each(?4))
                ORDER BY id LIMIT ?5
                """
            ).rows([
                .integer(start), .integer(end), .integer(projectId), deviceList, .integer(Int64(wanted)),
            ]) { row in
                DeviceClick(
                    sequence: row.int64(at: 0), time: Timestamp(millisecondsSince1970: row.int64(at: 1)),
                    anonymousId: row.text(at: 2) ?? "", page: row.text(at: 3), path: row.text(at: 4) ?? "",
                    similarPath: row.text(at: 5), text: row.text(at: 6))
            }
            let cursor = clicks.count == wanted ? clicks[clicks.count - 1].sequence : end
            return DeviceClicks(clicks: clicks, cursor: cursor)
        }
    }

    public func connectSessionDevices(connectSessionId: Int64) throws(ServerError) -> Set<String> {
        try read { database in
            Set(
                try database.prepare("SELECT DISTINCT anonymous_id FROM snapshots WHERE connect_session = ?1")
                    .rows([.integer(connectSessionId)]) { $0.text(at: 0) ?? "" })
        }
    }

    /// Days before the project's newest counted day that ``planHealthReports(projectId:limit:)``
    /// looks back over.
    static let planHealthLookbackDays: Int64 = 400

    public func planHealthReports(projectId: Int64, limit: Int) throws(ServerError) -> [PlanHealthReport] {
        try read { database in
            // The daily counts say which app versions reported on which day (one index seek per
            // day of the lookback, from the project's newest counted day); the newest day's events
            // of each hold its newest report.
            let versions = try database.prepare(
                """
                WITH RECURSIVE days(day) AS (
                    SELECT max(day) FROM rollup_counts WHERE project_id = ?1
                    UNION ALL SELECT day - 1 FROM days WHERE day > (SELECT max(day) FROM rollup_counts WHERE project_id = ?1) - ?5)
                SELECT r.app_version, max(r.day) FROM days CROSS JOIN rollup_counts r
                    ON r.project_id = ?1 AND r.day = days.day AND r.kind = ?2 AND r.key = ?3
                GROUP BY r.app_version ORDER BY max(r.day) DESC, r.app_version DESC LIMIT ?4
                """
            ).rows([
                .integer(projectId), .integer(RollupKind.trackEvents.rawValue),
                .text(PlanHealthReport.eventName),
                .integer(Int64(max(0, limit))), .integer(Self.planHealthLookbackDays),
            ]) { (version: $0.text(at: 0) ?? "", day: $0.int64(at: 1)) }
            let latest = try database.prepare(
                """
                SELECT time, \(StoredPayload.columns) FROM events
                WHERE project_id = ?1 AND time >= ?2 AND time < ?3 AND type = 'track' AND name = ?4
                    AND coalesce(app_version, '') = ?5
                ORDER BY time DESC, id DESC LIMIT 1
                """)
            // The reports' times, kept for funnels, tell the newest one's exact time, so that the
            // events index finds it without reading the whole day.
            let times = try database.prepare(
                """
                SELECT entries FROM rollup_times
                WHERE project_id = ?1 AND kind = ?2 AND key = ?3 AND day = ?4 AND app_version = ?5
                """)
            return try versions.compactMap { version -> PlanHealthReport? in
                let dayStart = version.day.multipliedReportingOverflow(by: 86_400_000)
                guard !dayStart.overflow else { return nil }
                let day = dayStart.partialValue..<dayStart.partialValue.saturatingAdd(86_400_000)
                var newest: Int64?
                for entries in try times.rows(
                    [
                        .integer(projectId), .integer(RollupKind.trackEvents.rawValue),
                        .text(PlanHealthReport.eventName), .integer(version.day), .text(version.version),
                    ], { $0.blob(at: 0) })
                {
                    _ = PersonTimes.decode(entries, day: version.day) { entry in
                        if day.contains(entry.time) { newest = max(newest ?? entry.time, entry.time) }
                    }
                }
                let range = newest.map { $0..<$0.saturatingAdd(1) } ?? day
                return try latest.rows([
                    .integer(projectId), .integer(range.lowerBound), .integer(range.upperBound),
                    .text(PlanHealthReport.eventName), .text(version.version),
                ]) { row in
                    let message = try? JSONParser().parse(Array(StoredPayload.json(row, at: 1).utf8))
                    return PlanHealthReport(
                        appVersion: version.version, time: Timestamp(millisecondsSince1970: row.int64(at: 0)),
                        properties: message?["properties"]?.objectValue ?? [:])
                }.first
            }
        }
    }
}
