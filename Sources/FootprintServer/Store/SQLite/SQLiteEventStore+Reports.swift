import FootprintSQLite
import FootprintWire

extension SQLiteEventStore {
    public func lostEventCount(projectId: Int64) throws(ServerError) -> Int {
        try read { database in
            try database.prepare("SELECT coalesce(sum(count), 0) FROM lost_events WHERE project_id = ?1")
                .rows(
                    [.integer(projectId)]
                ) { Int($0.int64(at: 0)) }.first ?? 0
        }
    }

    public func eventTimeSpan(projectId: Int64) throws(ServerError) -> ClosedRange<Timestamp>? {
        // Two subqueries: SQLite answers a lone min() or max() from the (project_id, time) index
        // in one step each, but both in one SELECT would scan it.
        try read { database in
            try database.prepare(
                """
                SELECT (SELECT min(time) FROM events WHERE project_id = ?1),
                    (SELECT max(time) FROM events WHERE project_id = ?1)
                """
            ).rows([.integer(projectId)]) { row -> ClosedRange<Timestamp>? in
                guard !row.isNull(at: 0), !row.isNull(at: 1) else { return nil }
                return Timestamp(
                    millisecondsSince1970: row.int64(at: 0))...Timestamp(
                        millisecondsSince1970: row.int64(at: 1))
            }.first ?? nil
        }
    }

    public func namedClicks(projectId: Int64, filter: ReportFilter) throws(ServerError) -> [NamedClick] {
        var conditions = ["project_id = ?1", "type = 'track'", "name = '$element_click'"]
        var values: [SQLiteValue] = [.integer(projectId)]
        func add(_ condition: String, _ value: SQLiteValue) {
            values.append(value)
            conditions.append(condition.replacingOccurrences(of: "?", with: "?\(values.count)"))
        }
        if let from = filter.from { add("time >= ?", .integer(from.millisecondsSince1970)) }
        if let to = filter.to { add("time < ?", .integer(to.millisecondsSince1970)) }
        if let version = filter.appVersion { add("app_version = ?", .text(version)) }
        if let os = filter.os { add("os = ?", .text(os)) }
        if let page = filter.page { add("page = ?", .text(page)) }
        // Only clicks are read (the name is in the payload, not a column): the plan names
        // nothing else.
        let sql = """
            SELECT named, anonymous_id, user_id FROM (
                SELECT json_extract(payload, '$.properties."$event_name"') AS named, anonymous_id, user_id
                FROM events WHERE \(conditions.joined(separator: " AND "))
            ) WHERE typeof(named) = 'text'
            """
        return try read { database in
            try database.prepare(sql).rows(values) { row in
                NamedClick(
                    eventName: row.text(at: 0) ?? "", anonymousId: row.text(at: 1), userId: row.text(at: 2))
            }
        }
    }
}
