import FootprintWire
import Foundation

/// The deletion log, the refused ids and the retention horizons of a ClickHouse store whose
/// metadata is here.
extension PostgresMetadataStore: MetadataLedger {
    func recordEventStore(_ location: ClickHouseLocation, at time: Timestamp) throws(ServerError) {
        _ = try perform { connection in
            try connection.run(
                """
                INSERT INTO store_state(key, value) VALUES ($1, $2)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """,
                [.text(Self.eventStorePrefix + location.description), .integer(time.millisecondsSince1970)])
        }
    }

    /// The ClickHouse store (its URL without the password) recorded last, or `nil`.
    public func eventStoreLocation() throws(ServerError) -> String? {
        try perform { connection in
            try connection.query(
                """
                SELECT key FROM store_state WHERE substr(key, 1, $2::integer) = $1 ORDER BY value DESC, key LIMIT 1
                """, [.text(Self.eventStorePrefix), .integer(Int64(Self.eventStorePrefix.utf8.count))]
            ) { String((try $0.text(at: 0) ?? "").dropFirst(Self.eventStorePrefix.count)) }.first
        }
    }

    /// Reads the refused ids again only when a deletion was logged since (one small query
    /// otherwise): ingest asks for them before every group of batches. While PostgreSQL cannot
    /// be reached, the ids read last (before the group of batches that came before).
    func deletedIds() throws(ServerError) -> DeletedIds {
        do {
            return try readDeletedIds()
        } catch  where error.code == .unavailable {
            guard let cached = deletedIdsCache.withLock({ $0 }) else { throw error }
            return cached.ids
        }
    }

    private func readDeletedIds() throws(ServerError) -> DeletedIds {
        try perform { connection in
            let revision =
                try connection.query(
                    "SELECT value FROM store_state WHERE key = $1", [.text(Self.deletionsKey)]
                ) {
                    try $0.int64(at: 0)
                }.first ?? 0
            if let cached = deletedIdsCache.withLock({ $0 }), cached.revision == revision {
                return cached.ids
            }
            let ids = try connection.transaction {
                // Read in one snapshot with the salt (REPEATABLE READ after BEGIN).
                try connection.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                let salt = try Self.salt(connection)
                var refused: [Int64: [PersonIdDigest: Int64]] = [:]
                for (project, digest, until) in try connection.query(
                    "SELECT project_id, digest, refused_until FROM deleted_ids", [],
                    {
                        (
                            try $0.int64(at: 0), PersonIdDigest(stored: try $0.bytes(at: 1) ?? []),
                            try $0.int64(at: 2)
                        )
                    })
                {
                    refused[project, default: [:]][digest] = until
                }
                return DeletedIds(salt: salt, refused: refused)
            }
            deletedIdsCache.withLock { $0 = (revision, ids) }
            return ids
        }
    }

    func logPersonDeletion(
        _ selection: PersonSelection, id: String, projectId: Int64, request: PersonDeletion.Request,
        events: Int, identityLinks: Int, elapsedMilliseconds: Int64, logged: Bool
    ) throws(ServerError) -> PersonDeletion {
        let until = request.refusedUntil
        let refused = MetadataRules.refusedIds(selection, id: id)
        try transaction { connection in
            try Self.deleteSnapshots(
                try Self.snapshotIds(of: selection, projectId: projectId, connection: connection),
                connection: connection)
            let salt = try Self.salt(connection)
            for refusedId in refused {
                try connection.run(
                    """
                    INSERT INTO deleted_ids(project_id, digest, refused_until) VALUES ($1, $2, $3)
                    ON CONFLICT (project_id, digest)
                    DO UPDATE SET refused_until = greatest(deleted_ids.refused_until, excluded.refused_until)
                    """,
                    [
                        .integer(projectId), .bytes(PersonIdDigest(of: refusedId, salt: salt).bytes),
                        .integer(until.millisecondsSince1970),
                    ])
            }
            try connection.run(
                """
                INSERT INTO store_state(key, value) VALUES ($1, 1)
                ON CONFLICT (key) DO UPDATE SET value = store_state.value + 1
                """, [.text(Self.deletionsKey)])
            guard logged else { return }
            try connection.run(
                """
                INSERT INTO person_deletions(project_id, person_digest, requested_by, deleted_at, events,
                    identity_links)
                VALUES ($1, $2, $3, $4, $5, $6)
                """,
                [
                    .integer(projectId), .bytes(PersonIdDigest(of: selection.person, salt: salt).bytes),
                    .text(request.requestedBy), .integer(request.at.millisecondsSince1970),
                    .integer(Int64(events)),
                    .integer(Int64(identityLinks)),
                ])
        }
        return PersonDeletion(
            events: events, identityLinks: identityLinks, refusedIds: refused.count, refusedUntil: until,
            writerMilliseconds: elapsedMilliseconds)
    }

    /// The deletions logged for a project, newest first: who asked, when, and how much went.
    public func personDeletions(projectId: Int64) throws(ServerError) -> [JSONValue] {
        try perform { connection in
            try connection.query(
                """
                SELECT \(MetadataSQL.personDeletionColumns) FROM person_deletions
                WHERE project_id = $1 ORDER BY id DESC
                """, [.integer(projectId)]
            ) { try $0.personDeletion() }
        }
    }

    func exportSnapshots(of selection: PersonSelection, projectId: Int64) throws(ServerError) -> [JSONValue] {
        try transaction { connection in
            try connection.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            return try Self.snapshotIds(of: selection, projectId: projectId, connection: connection).flatMap {
                id in
                try connection.query(
                    "SELECT \(MetadataSQL.snapshotSummaryColumns), s.document FROM snapshots s WHERE s.id = $1",
                    [.integer(id)]
                ) { row in
                    MetadataRules.exportedSnapshot(
                        try row.snapshotSummary(), document: try row.text(at: 14) ?? "{}")
                }
            }
        }
    }

    func retentionHorizons(defaultDays: Int?, now: Timestamp) throws(ServerError) -> [(
        project: Project, day: Int64
    )] {
        try MetadataRules.retentionHorizons(projects: try projects(), defaultDays: defaultDays, now: now) {
            (id: Int64) throws(ServerError) in try retentionDays(projectId: id)
        }
    }

    func deleteSnapshots(projectId: Int64, beforeDay horizonDay: Int64) throws(ServerError) -> Int {
        try transaction { connection in
            let old = try connection.query(
                "SELECT id FROM snapshots WHERE project_id = $1 AND (taken_at < $2 OR received_at < $2)",
                [.integer(projectId), .integer(horizonDay &* 86_400_000)]
            ) { try $0.int64(at: 0) }
            try Self.deleteSnapshots(old, connection: connection)
            return old.count
        }
    }

    func recordRetentionHorizon(projectId: Int64, day: Int64) throws(ServerError) {
        _ = try perform { connection in
            try connection.run(
                """
                INSERT INTO project_retention(project_id, horizon_day) VALUES ($1, $2)
                ON CONFLICT (project_id)
                DO UPDATE SET horizon_day = greatest(coalesce(project_retention.horizon_day, excluded.horizon_day),
                    excluded.horizon_day)
                """, [.integer(projectId), .integer(day)])
        }
    }

    /// The ids of the person's snapshots (uploaded by one of its anonymous ids or naming its user
    /// id), oldest first.
    private static func snapshotIds(
        of selection: PersonSelection, projectId: Int64, connection: PostgresConnection
    )
        throws -> [Int64]
    {
        try connection.query(
            "SELECT id, anonymous_id, user_id FROM snapshots WHERE project_id = $1 ORDER BY id",
            [.integer(projectId)]
        ) { row in
            (
                id: try row.int64(at: 0), anonymousId: try row.text(at: 1) ?? "",
                userId: try row.text(at: 2) ?? ""
            )
        }
        .filter { selection.owns(link: $0.anonymousId, userId: $0.userId) }
        .map(\.id)
    }

    /// The salt of the deleted ids' digests.
    private static func salt(_ connection: PostgresConnection) throws -> [UInt8] {
        try connection.query("SELECT salt FROM people_salt WHERE id = 1") { try $0.bytes(at: 0) ?? [] }.first
            ?? []
    }

    /// The `store_state` keys that record a ClickHouse store, the location following.
    private static let eventStorePrefix = "events_in "
    /// The `store_state` key counting logged deletions (the refused ids' revision).
    static let deletionsKey = "deleted_ids_revision"
}
