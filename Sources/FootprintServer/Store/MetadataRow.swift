import FootprintSQLite
import FootprintWire

/// A result row of either metadata store, read by column: the SQLite store's statement and
/// the PostgreSQL store's row both read the same columns into the same values
/// (``MetadataRow/snapshotSummary()``, ``MetadataRow/connectSession()``, ``MetadataRow/project()``).
protocol MetadataRow {
    /// An integer column (`NULL` reads as 0 in SQLite and throws in PostgreSQL).
    func integer(_ column: Int) throws -> Int64
    /// An integer column or `nil` when `NULL`.
    func optionalInteger(_ column: Int) throws -> Int64?
    /// A text column or `nil` when `NULL`.
    func string(_ column: Int) throws -> String?
}

/// The SQL both stores run unchanged (no parameters, the same functions in both dialects).
enum MetadataSQL {
    /// The deletion log's columns ``MetadataRow/personDeletion()`` reads.
    static let personDeletionColumns = "requested_by, deleted_at, events, identity_links"

    /// A project's write keys (``MetadataRow/writeKey()``), oldest first: its id is parameter 1.
    static func writeKeys(project: String) -> String {
        "SELECT key, project_id, created_at FROM write_keys WHERE project_id = \(project) ORDER BY created_at, key"
    }

    /// The columns ``MetadataRow/snapshotSummary()`` reads, of `snapshots s`.
    static let snapshotSummaryColumns = """
        s.id, s.device_snapshot_id, s.connect_session, s.anonymous_id, s.user_id, s.page, s.app_version, s.taken_at,
            s.received_at, s.element_count, s.image_format, s.image_width, s.image_height, s.bytes
        """

    /// A connect session with its kept snapshots' count and newest arrival, then its token's
    /// hash (``MetadataRow/connectSession()``); the caller adds `WHERE … GROUP BY c.id`.
    static let selectConnectSessions = """
        SELECT c.id, c.project_id, c.hint, c.created_at, c.expires_at, c.ended_at, c.first_event, count(s.id),
            max(s.received_at), c.hash
        FROM connect_sessions c LEFT JOIN snapshots s ON s.connect_session = c.id
        """

    /// Each page and app version's newest snapshot (``snapshotSummaryColumns``) and count (column
    /// 14) of the project that parameter 1 names, by page.
    static func screens(project: String) -> String {
        """
        SELECT \(snapshotSummaryColumns), g.n FROM snapshots s JOIN (
            SELECT max(id) AS latest, count(*) AS n FROM snapshots WHERE project_id = \(project)
            GROUP BY page, app_version) g ON s.id = g.latest
        ORDER BY s.page, s.received_at DESC, s.id DESC
        """
    }
}

extension MetadataRow {
    /// A project from `id, name, write key, created_at`.
    func project() throws -> Project {
        Project(
            id: try integer(0), name: try string(1) ?? "", writeKey: try string(2) ?? "",
            createdAt: Timestamp(millisecondsSince1970: try integer(3)))
    }

    /// A write key from `key, project_id, created_at`.
    func writeKey() throws -> WriteKey {
        WriteKey(
            key: try string(0) ?? "", projectId: try integer(1),
            createdAt: Timestamp(millisecondsSince1970: try integer(2)))
    }

    /// A connect session from ``MetadataSQL/selectConnectSessions``' columns.
    func connectSession() throws -> ConnectSession {
        ConnectSession(
            id: try integer(0), projectId: try integer(1), hint: try string(2) ?? "",
            createdAt: Timestamp(millisecondsSince1970: try integer(3)),
            expiresAt: Timestamp(millisecondsSince1970: try integer(4)),
            endedAt: try optionalInteger(5).map(Timestamp.init(millisecondsSince1970:)),
            firstEventSequence: try integer(6), snapshotCount: Int(try integer(7)),
            lastSnapshotAt: try optionalInteger(8).map(Timestamp.init(millisecondsSince1970:)))
    }

    /// A logged deletion from `requested_by, deleted_at, events, identity_links`, as the JSON API
    /// and `footprint people deletions` show it.
    func personDeletion() throws -> JSONValue {
        [
            "requestedBy": .string(try string(0) ?? ""),
            "deletedAt": .string(Timestamp(millisecondsSince1970: try integer(1)).iso8601),
            "events": .int(try integer(2)), "identityLinks": .int(try integer(3)),
        ]
    }

    /// A snapshot's summary from ``MetadataSQL/snapshotSummaryColumns``.
    func snapshotSummary() throws -> SnapshotSummary {
        SnapshotSummary(
            id: try integer(0), snapshotId: try string(1) ?? "", connectSessionId: try integer(2),
            anonymousId: try string(3) ?? "", userId: try string(4), page: try string(5) ?? "",
            appVersion: try string(6) ?? "", takenAt: Timestamp(millisecondsSince1970: try integer(7)),
            receivedAt: Timestamp(millisecondsSince1970: try integer(8)), elementCount: Int(try integer(9)),
            image: try string(10).map { format in
                SnapshotImage.Info(format: format, width: Int(try integer(11)), height: Int(try integer(12)))
            },
            bytes: Int(try integer(13)))
    }
}

extension SQLiteStatement: MetadataRow {
    func integer(_ column: Int) -> Int64 { int64(at: Int32(column)) }
    func optionalInteger(_ column: Int) -> Int64? {
        isNull(at: Int32(column)) ? nil : int64(at: Int32(column))
    }
    func string(_ column: Int) -> String? { text(at: Int32(column)) }
}

extension PostgresRow: MetadataRow {
    func integer(_ column: Int) throws -> Int64 { try int64(at: column) }
    func optionalInteger(_ column: Int) throws -> Int64? { try optionalInt64(at: column) }
    func string(_ column: Int) throws -> String? { try text(at: column) }
}
