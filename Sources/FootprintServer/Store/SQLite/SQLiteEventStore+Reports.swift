import FootprintSQLite
import FootprintWire

extension SQLiteEventStore {
    public func report(_ query: ReportQuery) throws(ServerError) -> Report {
        guard let project = try project(named: query.project) else {
            throw ServerError(code: .project, message: "no project named \(query.project)")
        }
        return try read { database in
            let id: [SQLiteValue] = [.integer(project.id)]
            let visitor = "coalesce(anonymous_id, user_id)"
            func count(_ sql: String) throws -> Int {
                try database.prepare(sql).rows(id) { Int($0.int64(at: 0)) }.first ?? 0
            }
            let dwell = try database.prepare(
                """
                SELECT page, avg(json_extract(payload, '$.properties.duration_ms')), count(*) FROM events
                WHERE project_id = ?1 AND type = 'track' AND name = '$screen_leave' AND page IS NOT NULL
                GROUP BY page
                """
            ).rows(id) { row in
                (
                    row.text(at: 0) ?? "", row.isNull(at: 1) ? nil : Int(row.double(at: 1).rounded()),
                    Int(row.int64(at: 2))
                )
            }
            let dwellByPage = Dictionary(
                dwell.map { ($0.0, ($0.1, $0.2)) }, uniquingKeysWith: { first, _ in first })
            let pages = try database.prepare(
                """
                SELECT name, count(*), count(DISTINCT \(visitor)) FROM events
                WHERE project_id = ?1 AND type IN ('screen', 'page') AND name IS NOT NULL
                GROUP BY name ORDER BY 2 DESC, 1
                """
            ).rows(id) { row in
                let page = row.text(at: 0) ?? ""
                return PageStatistics(
                    page: page, pageViews: Int(row.int64(at: 1)), uniqueVisitors: Int(row.int64(at: 2)),
                    averageDwellMilliseconds: dwellByPage[page]?.0 ?? nil, leaves: dwellByPage[page]?.1 ?? 0)
            }
            let topEvents = try database.prepare(
                """
                SELECT name, count(*), count(DISTINCT \(visitor)) FROM events
                WHERE project_id = ?1 AND type = 'track' GROUP BY name ORDER BY 2 DESC, 1 LIMIT ?2
                """
            ).rows(id + [.integer(Int64(query.topEventLimit))]) { row in
                EventStatistics(
                    event: row.text(at: 0) ?? "", count: Int(row.int64(at: 1)),
                    uniqueVisitors: Int(row.int64(at: 2)))
            }
            let usersPerDay = try database.prepare(
                """
                SELECT time / 86400000 - (time < 0 AND time % 86400000 != 0) AS day, count(DISTINCT \(visitor))
                FROM events WHERE project_id = ?1 GROUP BY day ORDER BY day
                """
            ).rows(id) { row in
                DailyUsers(
                    day: Timestamp(millisecondsSince1970: row.int64(at: 0) * 86_400_000).dayString,
                    users: Int(row.int64(at: 1)))
            }
            let namedEvents = try database.prepare(
                """
                SELECT json_extract(payload, '$.properties."$event_name"') AS named, count(*),
                    count(DISTINCT \(visitor))
                FROM events WHERE project_id = ?1 AND type = 'track' AND named IS NOT NULL
                GROUP BY named ORDER BY 2 DESC, 1 LIMIT ?2
                """
            ).rows(id + [.integer(Int64(query.topEventLimit))]) { row in
                EventStatistics(
                    event: row.text(at: 0) ?? "", count: Int(row.int64(at: 1)),
                    uniqueVisitors: Int(row.int64(at: 2)))
            }
            // Bare columns beside max(time) come from the most recent click (SQLite's rule).
            let topElements = try database.prepare(
                """
                SELECT element_path, page, json_extract(payload, '$.properties."$element_text"'), max(time),
                    count(*), count(DISTINCT \(visitor))
                FROM events
                WHERE project_id = ?1 AND type = 'track' AND name = '$element_click' AND element_path IS NOT NULL
                GROUP BY element_path ORDER BY 5 DESC, 1 LIMIT ?2
                """
            ).rows(id + [.integer(Int64(query.topElementLimit))]) { row in
                ElementStatistics(
                    path: row.text(at: 0) ?? "", page: row.text(at: 1), text: row.text(at: 2),
                    clicks: Int(row.int64(at: 4)), uniqueVisitors: Int(row.int64(at: 5)))
            }
            let items = try database.prepare(
                """
                SELECT json_extract(payload, '$.properties."$item_id"') AS item, sum(name = '$item_exposure'),
                    sum(name = '$item_skip'), sum(name = '$element_click')
                FROM events
                WHERE project_id = ?1 AND type = 'track'
                    AND name IN ('$item_exposure', '$item_skip', '$element_click') AND item IS NOT NULL
                GROUP BY item ORDER BY 2 DESC, 4 DESC, 1 LIMIT ?2
                """
            ).rows(id + [.integer(Int64(query.itemLimit))]) { row in
                ItemStatistics(
                    itemId: row.text(at: 0) ?? "", exposures: Int(row.int64(at: 1)),
                    skips: Int(row.int64(at: 2)),
                    clicks: Int(row.int64(at: 3)))
            }
            return Report(
                project: project.name,
                totalEvents: try count("SELECT count(*) FROM events WHERE project_id = ?1"),
                uniqueVisitors: try count(
                    "SELECT count(DISTINCT \(visitor)) FROM events WHERE project_id = ?1"),
                lostEvents: try count(
                    "SELECT coalesce(sum(count), 0) FROM lost_events WHERE project_id = ?1"),
                pages: pages, topEvents: topEvents, usersPerDay: usersPerDay, namedEvents: namedEvents,
                topElements: topElements, items: items)
        }
    }
}
