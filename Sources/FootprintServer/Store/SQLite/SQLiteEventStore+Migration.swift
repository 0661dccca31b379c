import FootprintSQLite
import FootprintWire

/// Reading a whole store out, for ``StoreMigration``: events in the order they were stored,
/// identity links, lost-event reports, and the migration's cursor per target.
extension SQLiteEventStore {
    /// One stored event with its project and row id (the order events were stored in).
    public struct StoredEvent: Sendable, Hashable {
        /// The row id: increases with every stored event.
        public var id: Int64
        /// The project the event belongs to.
        public var projectId: Int64
        /// The event as stored.
        public var event: EventRecord
    }

    /// One stored identity link with its project and first sighting.
    public struct StoredIdentityLink: Sendable, Hashable {
        /// The project the link belongs to.
        public var projectId: Int64
        /// The link.
        public var link: IdentityLink
        /// When the link was first stored.
        public var firstSeen: Timestamp
    }

    /// One batch's report of events its device evicted unsent.
    public struct StoredLostEvents: Sendable, Hashable {
        /// The project the report belongs to.
        public var projectId: Int64
        /// The batch the report came with (a resent batch is counted once).
        public var batchKey: String
        /// The events evicted.
        public var count: Int
        /// When the batch was received.
        public var receivedAt: Timestamp
    }

    /// Up to `limit` stored events with a row id above `id`, in row-id order.
    public func storedEvents(after id: Int64, limit: Int) throws(ServerError) -> [StoredEvent] {
        try read { database in
            try database.prepare(
                """
                SELECT id, project_id, message_id, type, name, time, \(SQLiteSchema.clientTimestamp), sent_at,
                    \(SQLiteSchema.receivedAt), anonymous_id, user_id, session_id, page, element_path, app_version, os,
                    \(SQLiteSchema.similarPath), element_text, item_id, duration_ms, plan_event, \(StoredPayload.columns)
                FROM events WHERE id > ?1 ORDER BY id LIMIT ?2
                """
            ).rows([.integer(id), .integer(Int64(max(0, limit)))]) { row in
                func time(_ index: Int32) -> Timestamp {
                    Timestamp(millisecondsSince1970: row.int64(at: index))
                }
                let event = EventRecord(
                    messageId: row.text(at: 2) ?? "",
                    type: MessageType(rawValue: row.text(at: 3) ?? "") ?? .track,
                    name: row.text(at: 4), time: time(5), clientTimestamp: time(6),
                    sentAt: row.isNull(at: 7) ? nil : time(7), receivedAt: time(8),
                    anonymousId: row.text(at: 9), userId: row.text(at: 10), sessionId: row.text(at: 11),
                    page: row.text(at: 12), elementPath: row.text(at: 13), appVersion: row.text(at: 14),
                    os: row.text(at: 15), payload: try StoredPayload.json(row, at: 21),
                    similarPath: row.text(at: 16),
                    elementText: row.text(at: 17), itemId: row.text(at: 18),
                    durationMilliseconds: row.isNull(at: 19) ? nil : row.int64(at: 19),
                    planEventName: row.text(at: 20))
                return StoredEvent(id: row.int64(at: 0), projectId: row.int64(at: 1), event: event)
            }
        }
    }

    /// The number of stored events with a row id above `id`.
    public func storedEventCount(after id: Int64) throws(ServerError) -> Int {
        try read { database in
            try database.prepare("SELECT count(*) FROM events WHERE id > ?1").rows([.integer(id)]) {
                Int($0.int64(at: 0))
            }.first ?? 0
        }
    }

    /// Every identity link of every project, oldest first.
    public func storedIdentityLinks() throws(ServerError) -> [StoredIdentityLink] {
        try read { database in
            try database.prepare(
                "SELECT project_id, anonymous_id, user_id, first_seen FROM identities ORDER BY first_seen, project_id"
            ).rows([]) { row in
                StoredIdentityLink(
                    projectId: row.int64(at: 0),
                    link: IdentityLink(anonymousId: row.text(at: 1) ?? "", userId: row.text(at: 2) ?? ""),
                    firstSeen: Timestamp(millisecondsSince1970: row.int64(at: 3)))
            }
        }
    }

    /// Every lost-event report of every project, oldest first.
    public func storedLostEvents() throws(ServerError) -> [StoredLostEvents] {
        try read { database in
            try database.prepare(
                "SELECT project_id, batch_key, count, received_at FROM lost_events ORDER BY received_at, project_id"
            ).rows([]) { row in
                StoredLostEvents(
                    projectId: row.int64(at: 0), batchKey: row.text(at: 1) ?? "",
                    count: Int(row.int64(at: 2)),
                    receivedAt: Timestamp(millisecondsSince1970: row.int64(at: 3)))
            }
        }
    }

    /// The row id up to which every event has been copied to `target` (see ``StoreMigration``),
    /// or 0 when no migration to it ran.
    public func migrationCursor(target: String) throws(ServerError) -> Int64 {
        try read { database in
            try database.prepare("SELECT value FROM store_state WHERE key = ?1").rows([
                .text(Self.migrationKey(target))
            ]) { $0.int64(at: 0) }.first ?? 0
        }
    }

    /// Records that every event up to row id `id` has been copied to `target`.
    public func saveMigrationCursor(_ id: Int64, target: String) throws(ServerError) {
        try requireWriter().perform { database in
            try database.prepare(
                """
                INSERT INTO store_state(key, value) VALUES (?1, ?2)
                ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)
                """
            ).run([.text(Self.migrationKey(target)), .integer(id)])
        }
    }

    private static func migrationKey(_ target: String) -> String { "migrated_to " + target }
}
