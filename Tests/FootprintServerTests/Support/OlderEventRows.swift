import FootprintSQLite

@testable import FootprintServer

/// Events rows as builds before schema version 14 wrote them: both times whole in their own
/// columns, the similar path as sent, the payload as given; without `plan_event` for a file of
/// schema version 4 or before.
func insertAsBefore14(
    _ events: [EventRecord], into database: SQLiteDatabase, project: Int64, planEvent: Bool = true,
    payload: (EventRecord) -> SQLiteValue
) throws {
    var columns = [
        "project_id", "message_id", "type", "name", "time", "client_timestamp", "sent_at", "received_at",
        "anonymous_id", "user_id", "session_id", "page", "element_path", "app_version", "os", "payload",
        "similar_path", "element_text", "item_id", "duration_ms",
    ]
    if planEvent { columns.append("plan_event") }
    let insert = try database.prepare(
        """
        INSERT INTO events(\(columns.joined(separator: ", ")))
        VALUES (\((1...columns.count).map { "?\($0)" }.joined(separator: ", ")))
        """)
    for event in events {
        var values: [SQLiteValue] = [
            .integer(project), .text(event.messageId), .text(event.type.rawValue), .text(event.name),
            .integer(event.time.millisecondsSince1970), .integer(event.clientTimestamp.millisecondsSince1970),
            event.sentAt.map { .integer($0.millisecondsSince1970) } ?? .null,
            .integer(event.receivedAt.millisecondsSince1970), .text(event.anonymousId), .text(event.userId),
            .text(event.sessionId), .text(event.page), .text(event.elementPath), .text(event.appVersion),
            .text(event.os), payload(event), .text(event.similarPath), .text(event.elementText),
            .text(event.itemId), event.durationMilliseconds.map(SQLiteValue.integer) ?? .null,
        ]
        if planEvent { values.append(.text(event.planEventName)) }
        try insert.run(values)
    }
}
