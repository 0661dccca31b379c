import FootprintWire

extension PostgresMetadataStore: ScreenStore {
    // MARK: Connect sessions

    public func startConnectSession(
        projectId: Int64, tokenHash: SecretHash, hint: String, now: Timestamp, lifetimeSeconds: Int64,
        limits: ConnectSession.Limits, firstEventSequence: Int64
    ) throws(ServerError) -> ConnectSession {
        let expires = now.adding(
            milliseconds: MetadataRules.connectSessionLifetimeMilliseconds(lifetimeSeconds))
        let time = PostgresValue.integer(now.millisecondsSince1970)
        return try transaction { connection in
            try Self.lock(connection, .connectSessions, id: projectId)
            guard
                try !connection.query(
                    "SELECT 1 FROM projects WHERE id = $1", [.integer(projectId)], { _ in true }
                )
                .isEmpty
            else { throw MetadataRules.noProject(projectId) }
            let open =
                try connection.query(
                    """
                    SELECT count(*) FROM connect_sessions
                    WHERE project_id = $1 AND ended_at IS NULL AND expires_at > $2
                    """, [.integer(projectId), time]
                ) { try $0.int64(at: 0) }.first ?? 0
            if let refusal = MetadataRules.connectSessionRefusal(open: open, limits: limits) { throw refusal }
            let id = try connection.query(
                """
                INSERT INTO connect_sessions(hash, project_id, hint, created_at, expires_at, first_event)
                VALUES ($1, $2, $3, $4, $5, $6) RETURNING id
                """,
                [
                    .bytes(tokenHash.bytes), .integer(projectId), .text(hint), time,
                    .integer(expires.millisecondsSince1970), .integer(firstEventSequence),
                ]
            ) { try $0.int64(at: 0) }[0]
            // The newest sessions stay; of the older ones, those still open too.
            try connection.run(
                """
                DELETE FROM connect_sessions WHERE project_id = $1
                    AND (ended_at IS NOT NULL OR expires_at <= $2)
                    AND id NOT IN (SELECT id FROM connect_sessions WHERE project_id = $1 ORDER BY id DESC LIMIT $3)
                """, [.integer(projectId), time, .integer(Int64(max(1, limits.keptPerProject)))])
            return ConnectSession(
                id: id, projectId: projectId, hint: hint, createdAt: now, expiresAt: expires,
                firstEventSequence: firstEventSequence)
        }
    }

    public func connectSessions(projectId: Int64) throws(ServerError) -> [ConnectSession] {
        try perform { connection in
            try connection.query(
                MetadataSQL.selectConnectSessions
                    + " WHERE c.project_id = $1 GROUP BY c.id ORDER BY c.id DESC",
                [.integer(projectId)],
                { try $0.connectSession() })
        }
    }

    public func connectSession(id: Int64, projectId: Int64) throws(ServerError) -> ConnectSession? {
        try perform { connection in
            try connection.query(
                MetadataSQL.selectConnectSessions + " WHERE c.id = $1 AND c.project_id = $2 GROUP BY c.id",
                [.integer(id), .integer(projectId)], { try $0.connectSession() }
            ).first
        }
    }

    public func connectSession(tokenHash hash: SecretHash) throws(ServerError) -> ConnectSession? {
        let found = try perform { connection in
            try connection.query(
                MetadataSQL.selectConnectSessions + " WHERE c.hash = $1 GROUP BY c.id", [.bytes(hash.bytes)]
            ) {
                row in (SecretHash(stored: try row.bytes(at: 9) ?? []), try row.connectSession())
            }.first
        }
        guard let found, SecretHash.constantTimeEquals(found.0, hash) else { return nil }
        return found.1
    }

    @discardableResult
    public func endConnectSession(id: Int64, projectId: Int64, at now: Timestamp) throws(ServerError)
        -> ConnectSession?
    {
        _ = try perform { connection in
            try connection.run(
                """
                UPDATE connect_sessions SET ended_at = $3
                WHERE id = $1 AND project_id = $2 AND ended_at IS NULL AND expires_at > $3
                """, [.integer(id), .integer(projectId), .integer(now.millisecondsSince1970)])
        }
        return try connectSession(id: id, projectId: projectId)
    }

    public func connectSessionDevices(connectSessionId: Int64) throws(ServerError) -> Set<String> {
        try perform { connection in
            Set(
                try connection.query(
                    "SELECT DISTINCT anonymous_id FROM snapshots WHERE connect_session = $1",
                    [.integer(connectSessionId)]
                ) { try $0.text(at: 0) ?? "" })
        }
    }

    // MARK: Snapshots

    public func storeSnapshot(_ record: SnapshotRecord, retention: SnapshotRetention) throws(ServerError)
        -> SnapshotWrite
    {
        try transaction { connection in
            try Self.lock(connection, .snapshots, id: record.projectId)
            if let existing = try connection.query(
                """
                SELECT id FROM snapshots
                WHERE project_id = $1 AND sha256(device_snapshot_id) = sha256($2) AND device_snapshot_id = $2
                """,
                [.integer(record.projectId), .text(record.snapshotId)], { try $0.int64(at: 0) }
            ).first {
                return SnapshotWrite(id: existing, created: false, dropped: 0)
            }
            let id = try connection.query(
                """
                INSERT INTO snapshots(project_id, connect_session, device_snapshot_id, anonymous_id, user_id, page,
                    app_version, taken_at, received_at, element_count, image_format, image_width, image_height,
                    bytes, document)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id
                """,
                [
                    .integer(record.projectId), .integer(record.connectSessionId), .text(record.snapshotId),
                    .text(record.anonymousId), record.userId.map(PostgresValue.text) ?? .null,
                    .text(record.page),
                    .text(record.appVersion), .integer(record.takenAt.millisecondsSince1970),
                    .integer(record.receivedAt.millisecondsSince1970), .integer(Int64(record.elementCount)),
                    record.image.map { .text($0.format) } ?? .null,
                    record.image.map { .integer(Int64($0.width)) } ?? .null,
                    record.image.map { .integer(Int64($0.height)) } ?? .null, .integer(Int64(record.bytes)),
                    .text(record.document),
                ]
            ) { try $0.int64(at: 0) }[0]
            if let image = record.image {
                try connection.run(
                    "INSERT INTO snapshot_images(snapshot, data) VALUES ($1, $2)",
                    [.integer(id), .bytes(image.data)])
            }
            let dropped = try Self.dropOldSnapshots(
                connection, projectId: record.projectId, sessionId: record.connectSessionId, keeping: id,
                retention: retention)
            return SnapshotWrite(id: id, created: true, dropped: dropped)
        }
    }

    /// Deletes the oldest snapshots past the session's and the project's bounds, never `keep`
    /// (``MetadataRules/doomedSnapshots(sessionOverflow:candidates:keptBytes:retention:)``).
    private static func dropOldSnapshots(
        _ connection: PostgresConnection, projectId: Int64, sessionId: Int64, keeping keep: Int64,
        retention: SnapshotRetention
    ) throws -> Int {
        let sessionOverflow = try connection.query(
            "SELECT id FROM snapshots WHERE connect_session = $1 AND id != $2 ORDER BY id DESC OFFSET $3",
            [.integer(sessionId), .integer(keep), .integer(Int64(max(0, retention.perSession - 1)))]
        ) { try $0.int64(at: 0) }
        let candidates = try connection.query(
            """
            SELECT id, bytes FROM snapshots WHERE project_id = $1 AND id != $2
            ORDER BY id IN (SELECT max(id) FROM snapshots WHERE project_id = $1 GROUP BY page, app_version), id
            """, [.integer(projectId), .integer(keep)]
        ) { (id: try $0.int64(at: 0), bytes: try $0.int64(at: 1)) }
        let kept =
            try connection.query("SELECT bytes FROM snapshots WHERE id = $1", [.integer(keep)]) {
                try $0.int64(at: 0)
            }.first ?? 0
        let doomed = MetadataRules.doomedSnapshots(
            sessionOverflow: sessionOverflow, candidates: candidates, keptBytes: kept, retention: retention)
        try deleteSnapshots(doomed, connection: connection)
        return doomed.count
    }

    /// Deletes snapshots and their images by id.
    static func deleteSnapshots(_ ids: [Int64], connection: PostgresConnection) throws {
        guard !ids.isEmpty else { return }
        // The ids as one `1,2,3` parameter: one statement whatever their number.
        let list = PostgresValue.text(ids.map(String.init).joined(separator: ","))
        let array = "string_to_array(convert_from($1, 'UTF8'), ',')::bigint[]"
        try connection.run("DELETE FROM snapshots WHERE id = ANY(\(array))", [list])
        try connection.run("DELETE FROM snapshot_images WHERE snapshot = ANY(\(array))", [list])
    }

    public func screens(projectId: Int64) throws(ServerError) -> [ScreenSummary] {
        try perform { connection in
            try connection.query(
                MetadataSQL.screens(project: "$1"), [.integer(projectId)]
            ) { row in
                let latest = try row.snapshotSummary()
                return ScreenSummary(
                    page: latest.page, appVersion: latest.appVersion,
                    snapshotCount: Int(try row.int64(at: 14)),
                    latest: latest)
            }
        }
    }

    public func snapshots(projectId: Int64, page: String, appVersion: String, limit: Int) throws(ServerError)
        -> [SnapshotSummary]
    {
        try perform { connection in
            try connection.query(
                """
                SELECT \(MetadataSQL.snapshotSummaryColumns) FROM snapshots s
                WHERE s.project_id = $1 AND sha256(s.page) = sha256($2) AND sha256(s.app_version) = sha256($3)
                    AND s.page = $2 AND s.app_version = $3
                ORDER BY s.id DESC LIMIT $4
                """, [.integer(projectId), .text(page), .text(appVersion), .integer(Int64(max(0, limit)))],
                { try $0.snapshotSummary() })
        }
    }

    public func snapshots(projectId: Int64, connectSessionId: Int64, after: Int64, limit: Int)
        throws(ServerError) -> [SnapshotSummary]
    {
        try perform { connection in
            try connection.query(
                """
                SELECT \(MetadataSQL.snapshotSummaryColumns) FROM snapshots s
                WHERE s.connect_session = $1 AND s.project_id = $2 AND s.id > $3 ORDER BY s.id LIMIT $4
                """,
                [
                    .integer(connectSessionId), .integer(projectId), .integer(after),
                    .integer(Int64(max(0, limit))),
                ],
                { try $0.snapshotSummary() })
        }
    }

    public func snapshot(id: Int64, projectId: Int64) throws(ServerError) -> StoredSnapshot? {
        try perform { connection in
            try connection.query(
                "SELECT \(MetadataSQL.snapshotSummaryColumns), s.document FROM snapshots s WHERE s.id = $1 AND s.project_id = $2",
                [.integer(id), .integer(projectId)]
            ) { row in
                StoredSnapshot(summary: try row.snapshotSummary(), document: try row.text(at: 14) ?? "{}")
            }
            .first
        }
    }

    public func snapshotImage(id: Int64, projectId: Int64) throws(ServerError) -> SnapshotImage? {
        try perform { connection in
            try connection.query(
                """
                SELECT s.image_format, s.image_width, s.image_height, i.data
                FROM snapshots s JOIN snapshot_images i ON i.snapshot = s.id
                WHERE s.id = $1 AND s.project_id = $2 AND s.image_format IS NOT NULL
                """, [.integer(id), .integer(projectId)]
            ) { row in
                SnapshotImage(
                    format: try row.text(at: 0) ?? "", width: Int(try row.int64(at: 1)),
                    height: Int(try row.int64(at: 2)), data: try row.bytes(at: 3) ?? [])
            }.first
        }
    }
}
