import FootprintSQLite
import FootprintWire

extension SQLiteEventStore {
    /// The WHERE clause and values of a rollup query over `filter`'s days and dimensions.
    private func rollupConditions(projectId: Int64, filter: ReportFilter, table: String) -> (
        String, [SQLiteValue]
    ) {
        var conditions = ["\(table).project_id = ?1"]
        var values: [SQLiteValue] = [.integer(projectId)]
        func add(_ condition: String, _ value: SQLiteValue) {
            values.append(value)
            conditions.append(condition.replacingOccurrences(of: "?", with: "?\(values.count)"))
        }
        if let from = filter.from { add("\(table).day >= ?", .integer(from.dayNumber)) }
        if let to = filter.to { add("\(table).day < ?", .integer(to.adding(milliseconds: -1).dayNumber + 1)) }
        if let version = filter.appVersion { add("\(table).app_version = ?", .text(version)) }
        if let os = filter.os { add("\(table).os = ?", .text(os)) }
        if let page = filter.page { add("\(table).page = ?", .text(page)) }
        return (conditions.joined(separator: " AND "), values)
    }

    public func rollupCounts(projectId: Int64, filter: ReportFilter) throws(ServerError) -> [RollupCount] {
        let (conditions, values) = rollupConditions(projectId: projectId, filter: filter, table: "r")
        return try read { database in
            try database.prepare(
                "SELECT day, kind, key, sum(count) FROM rollup_counts r WHERE \(conditions) GROUP BY day, kind, key"
            ).rows(values) { row in
                RollupCount(
                    day: row.int64(at: 0), kind: RollupKind(rawValue: row.int64(at: 1)) ?? .otherEvents,
                    key: row.text(at: 2) ?? "", count: Int(row.int64(at: 3)))
            }
        }
    }

    public func rollupPeople(projectId: Int64, filter: ReportFilter, byPage: Bool) throws(ServerError)
        -> [RollupPerson]
    {
        let dailyOnly = !byPage && filter.appVersion == nil && filter.os == nil && filter.page == nil
        let table = dailyOnly ? "rollup_active" : "rollup_people"
        let (conditions, values) = rollupConditions(projectId: projectId, filter: filter, table: "r")
        return try read { database in
            try database.prepare(
                """
                SELECT r.day, CASE WHEN r.user_id != '' THEN r.user_id ELSE coalesce(i.user_id, r.anonymous_id) END,
                    \(dailyOnly ? "''" : "r.page"), r.viewed
                FROM \(table) r LEFT JOIN (
                    SELECT anonymous_id, min(user_id) AS user_id FROM identities WHERE project_id = ?1
                    GROUP BY anonymous_id
                ) i ON i.anonymous_id = r.anonymous_id
                WHERE \(conditions)
                """
            ).rows(values) { row in
                let page = row.text(at: 2) ?? ""
                return RollupPerson(
                    day: row.int64(at: 0), person: row.text(at: 1) ?? "", page: page.isEmpty ? nil : page,
                    viewed: row.int64(at: 3) != 0)
            }
        }
    }
}
