import FootprintSQLite

/// One metadata table as ``MetadataMigration`` copies it: its columns (the primary key first)
/// with how each is kept, the same in the SQLite file (``SQLiteSchema``) and in PostgreSQL
/// (``PostgresSchema``, where text and blobs are both `bytea`).
struct MetadataTable: Sendable {
    /// How a column is kept.
    enum Kind: Sendable {
        /// `INTEGER` in SQLite, `bigint` in PostgreSQL.
        case integer
        /// `TEXT` in SQLite (compared as text there), `bytea` in PostgreSQL.
        case text
        /// `BLOB` in SQLite, `bytea` in PostgreSQL.
        case blob
    }

    /// The table's name in both stores.
    var name: String
    /// Its columns in order, the primary key's first.
    var columns: [(name: String, kind: Kind)]
    /// How many of the first columns make the primary key.
    var keyCount = 1
    /// Whether its `id` is generated (a PostgreSQL identity whose sequence must pass the copied ids).
    var generatesIds = false
    /// An SQL condition on the source's rows, when only some are metadata.
    var sourceCondition: String?

    /// The primary key's columns.
    var key: ArraySlice<(name: String, kind: Kind)> { columns.prefix(keyCount) }

    /// Every table ``MetadataMigration`` copies, in the order it copies them (the salt of the
    /// deleted ids' digests, `people_salt`, is copied apart, before them).
    static let all: [MetadataTable] = [
        MetadataTable(
            name: "projects", columns: [("id", .integer), ("name", .text), ("created_at", .integer)],
            generatesIds: true),
        MetadataTable(
            name: "write_keys", columns: [("key", .text), ("project_id", .integer), ("created_at", .integer)]),
        MetadataTable(
            name: "config_versions",
            columns: [
                ("project_id", .integer), ("version", .integer), ("document", .text),
                ("published_at", .integer),
            ],
            keyCount: 2),
        MetadataTable(
            name: "event_definitions",
            columns: [
                ("project_id", .integer), ("id", .text), ("document", .text), ("updated_at", .integer),
            ],
            keyCount: 2),
        MetadataTable(
            name: "project_retention",
            columns: [("project_id", .integer), ("days", .integer), ("horizon_day", .integer)]),
        MetadataTable(
            name: "deleted_ids",
            columns: [("project_id", .integer), ("digest", .blob), ("refused_until", .integer)],
            keyCount: 2),
        MetadataTable(
            name: "person_deletions",
            columns: [
                ("id", .integer), ("project_id", .integer), ("person_digest", .blob), ("requested_by", .text),
                ("deleted_at", .integer), ("events", .integer), ("identity_links", .integer),
            ],
            generatesIds: true),
        MetadataTable(
            name: "read_tokens",
            columns: [
                ("id", .integer), ("hash", .blob), ("project_id", .integer), ("hint", .text),
                ("created_at", .integer),
            ],
            generatesIds: true),
        MetadataTable(
            name: "dashboard_sessions",
            columns: [("hash", .blob), ("expires_at", .integer), ("created_at", .integer)]),
        MetadataTable(
            name: "connect_sessions",
            columns: [
                ("id", .integer), ("hash", .blob), ("project_id", .integer), ("hint", .text),
                ("created_at", .integer),
                ("expires_at", .integer), ("ended_at", .integer), ("first_event", .integer),
            ],
            generatesIds: true),
        MetadataTable(
            name: "snapshots",
            columns: [
                ("id", .integer), ("project_id", .integer), ("connect_session", .integer),
                ("device_snapshot_id", .text), ("anonymous_id", .text), ("user_id", .text), ("page", .text),
                ("app_version", .text), ("taken_at", .integer), ("received_at", .integer),
                ("element_count", .integer), ("image_format", .text), ("image_width", .integer),
                ("image_height", .integer), ("bytes", .integer), ("document", .text),
            ],
            generatesIds: true),
        MetadataTable(name: "snapshot_images", columns: [("snapshot", .integer), ("data", .blob)]),
        // Only the ClickHouse stores the metadata recorded (not the SQLite file's own state).
        MetadataTable(
            name: "store_state", columns: [("key", .text), ("value", .integer)],
            sourceCondition: "substr(key, 1, 10) = 'events_in '"),
    ]

    /// The source's rows in key order: all of them, or (`afterKey`) those after the key bound as
    /// `?1`, `?2`, …
    func selectSource(afterKey: Bool) -> String {
        let keyNames = key.map(\.name).joined(separator: ", ")
        var conditions = sourceCondition.map { [$0] } ?? []
        if afterKey {
            conditions.append(
                "(\(keyNames)) > (" + (1...keyCount).map { "?\($0)" }.joined(separator: ", ") + ")")
        }
        return "SELECT \(columns.map(\.name).joined(separator: ", ")) FROM \(name)"
            + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + " ORDER BY \(keyNames)"
    }

    /// The source's rows.
    var countSource: String {
        "SELECT count(*) FROM \(name) WHERE \(sourceCondition ?? "1")"
    }

    /// Inserts `count` rows into the target (their values bound in order), skipping each whose
    /// key (or another unique value) the target holds; returns the keys of those inserted.
    func insertTarget(count: Int) -> String {
        let rows = (0..<count).map { row in
            "(" + (1...columns.count).map { "$\(row * columns.count + $0)" }.joined(separator: ", ") + ")"
        }
        return "INSERT INTO \(name)(\(columns.map(\.name).joined(separator: ", "))) VALUES "
            + rows.joined(separator: ", ") + " ON CONFLICT DO NOTHING RETURNING "
            + key.map(\.name).joined(separator: ", ")
    }

    /// The target's row with the key bound as `$1`, `$2`, …
    var selectTarget: String {
        "SELECT \(columns.map(\.name).joined(separator: ", ")) FROM \(name) WHERE "
            + key.enumerated().map { "\($1.name) = $\($0 + 1)" }.joined(separator: " AND ")
    }

    /// Column `index` of a source row as the target binds it.
    func sourceValue(_ row: SQLiteStatement, at index: Int) -> PostgresValue {
        let column = Int32(index)
        if row.isNull(at: column) { return .null }
        switch columns[index].kind {
        case .integer: return .integer(row.int64(at: column))
        case .text, .blob: return .bytes(row.blob(at: column))
        }
    }

    /// Column `index` of a target row, as ``sourceValue(_:at:)`` reads the source's.
    func targetValue(_ row: PostgresRow, at index: Int) throws -> PostgresValue {
        switch columns[index].kind {
        case .integer: try row.optionalInt64(at: index).map(PostgresValue.integer) ?? .null
        case .text, .blob: try row.bytes(at: index).map(PostgresValue.bytes) ?? .null
        }
    }

    /// A key's values as ``selectSource(afterKey:)`` binds them.
    func sourceKey(_ values: [PostgresValue]) -> [SQLiteValue] {
        zip(key, values).map { column, value in
            switch (column.kind, value) {
            case (_, .integer(let number)): .integer(number)
            case (.text, .bytes(let bytes)): .text(String(decoding: bytes, as: UTF8.self))
            case (_, .bytes(let bytes)): .blob(bytes)
            case (_, .text(let text)): .text(text)
            case (_, .null): .null
            }
        }
    }

    /// A row's key for people: `name(column=value, …)`, texts quoted, blobs by their length.
    func describe(_ values: [PostgresValue]) -> String {
        let parts = zip(key, values).map { column, value in
            let shown =
                switch (column.kind, value) {
                case (_, .integer(let number)): String(number)
                case (.text, .bytes(let bytes)):
                    String(decoding: bytes.prefix(64), as: UTF8.self).debugDescription
                case (_, .bytes(let bytes)): "\(bytes.count) bytes"
                case (_, .text(let text)): text.debugDescription
                case (_, .null): "NULL"
                }
            return "\(column.name)=\(shown)"
        }
        return "\(name)(\(parts.joined(separator: ", ")))"
    }
}
