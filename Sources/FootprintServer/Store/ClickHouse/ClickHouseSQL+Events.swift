import FootprintSQLite
import FootprintWire

/// The reads of the events themselves: counts, the newest events, the events of a report over
/// a range that is not whole days, and a person's events and identity links.
extension ClickHouseSQL {
    /// The number of stored events of a project.
    func eventCount(projectId: Int64) -> ClickHouseQuery<Int64> {
        ClickHouseQuery.number(countedEvents(projectId: projectId))
    }

    /// The number of a project's counted events with `conditions`: all its rows less its
    /// redundant copies. The copies are found through the index (their devices first: the events
    /// are sorted by project, device and message id), instead of every row's device, message id
    /// and sequence looked up in the records (``unique(projectId:)``): at 10M events, 0.05–0.08 s
    /// against 1.1 s.
    func countedEvents(projectId: Int64, conditions: [String] = []) -> String {
        let all = (["project_id = \(projectId)"] + conditions).joined(separator: " AND ")
        let redundant = (copyConditions(projectId: projectId, copies: .redundant) + conditions)
            .joined(separator: " AND ")
        return """
            SELECT sum(counted) FROM (
                SELECT toInt64(count()) AS counted FROM \(database).\(tables.events) WHERE \(all)
                UNION ALL
                SELECT -toInt64(count()) AS counted FROM \(database).\(tables.events) PREWHERE \(redundant))
            """
    }

    /// The sum of a project's evicted-event counts, each batch once.
    func lostEventCount(projectId: Int64) -> ClickHouseQuery<Int64> {
        ClickHouseQuery(
            "SELECT sum(count), sum(toFloat64(count)) FROM \(database).\(tables.lostEvents) FINAL WHERE project_id = \(projectId)",
            fields: 2
        ) { row throws(ServerError) in
            try row.sum(exact: 0, approximate: 1)
        }
    }

    /// The oldest and newest event time of a project, and its event count.
    func eventTimeSpan(projectId: Int64) -> ClickHouseQuery<(first: Int64, last: Int64, count: Int64)> {
        ClickHouseQuery(
            """
            SELECT min(time), max(time), count() FROM \(database).\(tables.events)
            WHERE project_id = \(projectId) AND \(unique(projectId: projectId))
            """, fields: 3
        ) { row throws(ServerError) in
            (try row.int64(0), try row.int64(1), try row.int64(2))
        }
    }

    /// Each anonymous id's user id: the smallest linked to it (byte order), as on SQLite
    /// (``EventStore/identityLinks(projectId:)``).
    func identityLinks(projectId: Int64) -> ClickHouseQuery<(anonymousId: String, userId: String)> {
        ClickHouseQuery(
            """
            SELECT anonymous_id, min(user_id) FROM \(database).\(tables.identities) WHERE project_id = \(projectId)
            GROUP BY anonymous_id
            """, fields: 2
        ) { row throws(ServerError) in
            (row.string(0), row.string(1))
        }
    }

    /// The columns a stored payload is read with: `payload`, then the columns whose values
    /// format 3 cuts out of it, in ``StoredPayload/Columns`` order. Every reader of `payload`
    /// selects these and reads them with ``payload(_:at:)``.
    static let payloadColumns = """
        payload, message_id, anonymous_id, user_id, client_timestamp, sent_at, type, name, session_id, \
        page, element_path, ifNull(similar_path, element_path), element_text, item_id, os, app_version, \
        duration_ms, plan_event
        """

    /// The number of fields ``payloadColumns`` selects.
    static let payloadFields = 1 + Int(StoredPayload.Columns.count)

    /// The message JSON of a row that selected ``payloadColumns`` from `index` on; `nil` when it
    /// does not read back (a format this code does not know, a cut its row has no value for).
    static func payload(_ row: ClickHouseRow, at index: Int) -> String? {
        guard let text = row.text(index) else { return nil }
        return try? StoredPayload.json(text: text, columns: StoredPayload.Columns(row, at: index + 1))
    }

    /// The newest events after `after` (a ``RecentEvent/sequence``).
    func recentEvents(projectId: Int64, limit: Int, after: Int64?) -> ClickHouseQuery<RecentEvent> {
        ClickHouseQuery(
            """
            SELECT sequence, type, name, time, received_at, ifNull(user_id, anonymous_id), page,
                \(Self.payloadColumns)
            FROM \(database).\(tables.events)
            WHERE project_id = \(projectId) AND sequence > \(max(0, after ?? 0)) AND \(unique(projectId: projectId))
            ORDER BY sequence DESC LIMIT \(max(0, limit))
            """, fields: 7 + Self.payloadFields
        ) { row throws(ServerError) in
            RecentEvent(
                sequence: try row.int64(0), type: MessageType(rawValue: row.string(1)) ?? .track,
                name: row.text(2),
                time: Timestamp(millisecondsSince1970: try row.int64(3)),
                receivedAt: Timestamp(millisecondsSince1970: try row.int64(4)), person: row.text(5),
                page: row.text(6), payload: Self.payload(row, at: 7) ?? "{}")
        }
    }

    /// A project's events passing `filter` exactly (as the SQLite store's events), at most
    /// `limit`; the payload only with its `properties` ``AnalyticsEvent/Properties/included``.
    func analyticsEvents(
        projectId: Int64, filter: ReportFilter, properties: AnalyticsEvent.Properties, limit: Int
    ) -> ClickHouseQuery<AnalyticsEvent> {
        var conditions = ["project_id = \(projectId)", unique(projectId: projectId)]
        if let from = filter.from { conditions.append("time >= \(from.millisecondsSince1970)") }
        if let to = filter.to { conditions.append("time < \(to.millisecondsSince1970)") }
        if let version = filter.appVersion {
            conditions.append("app_version = \(ClickHouseFormat.literal(version))")
        }
        if let os = filter.os { conditions.append("os = \(ClickHouseFormat.literal(os))") }
        if let page = filter.page { conditions.append("page = \(ClickHouseFormat.literal(page))") }
        let sql = """
            SELECT type, name, time, anonymous_id, user_id, session_id, page, element_path, similar_path,
                element_text, item_id, duration_ms, app_version, os\(properties == .included ? ", " + Self.payloadColumns : "")
            FROM \(database).\(tables.events) WHERE \(conditions.joined(separator: " AND ")) LIMIT \(max(0, limit))
            """
        return ClickHouseQuery(sql, fields: properties == .included ? 14 + Self.payloadFields : 14) {
            row throws(ServerError) in
            var event = AnalyticsEvent(
                type: MessageType(rawValue: row.string(0)) ?? .track, name: row.text(1),
                time: Timestamp(millisecondsSince1970: try row.int64(2)), anonymousId: row.text(3),
                userId: row.text(4), sessionId: row.text(5), page: row.text(6), elementPath: row.text(7),
                similarPath: row.text(8), elementText: row.text(9), itemId: row.text(10),
                durationMilliseconds: try row.optionalInt64(11), appVersion: row.text(12), os: row.text(13))
            if properties == .included, let payload = Self.payload(row, at: 14),
                let object = try? JSONParser().parse(Array(payload.utf8))["properties"]?.objectValue
            {
                event.properties = object
            }
            return event
        }
    }

    /// A person's events, in stored order.
    func personEvents(projectId: Int64, person: String, anonymousIds: Set<String>)
        -> ClickHouseQuery<JSONValue>
    {
        ClickHouseQuery(
            """
            SELECT message_id, time, received_at, \(Self.payloadColumns) FROM \(database).\(tables.events)
            WHERE project_id = \(projectId) AND \(unique(projectId: projectId))
                AND \(Self.personCondition(person: person, anonymousIds: anonymousIds))
            ORDER BY sequence
            """, fields: 3 + Self.payloadFields
        ) { row throws(ServerError) in
            let payload = Self.payload(row, at: 3) ?? row.string(3)
            return [
                "messageId": .string(row.string(0)),
                "time": .string(Timestamp(millisecondsSince1970: try row.int64(1)).iso8601),
                "receivedAt": .string(Timestamp(millisecondsSince1970: try row.int64(2)).iso8601),
                "message": (try? JSONParser().parse(Array(payload.utf8))) ?? .string(payload),
            ]
        }
    }

    /// Every identity link of a project with when it was first seen, oldest first.
    func identityLinkTimes(projectId: Int64)
        -> ClickHouseQuery<(anonymousId: String, userId: String, firstSeen: Int64)>
    {
        ClickHouseQuery(
            """
            SELECT anonymous_id, user_id, min(first_seen) AS seen FROM \(database).\(tables.identities)
            WHERE project_id = \(projectId) GROUP BY anonymous_id, user_id ORDER BY seen, anonymous_id, user_id
            """, fields: 3
        ) { row throws(ServerError) in
            (row.string(0), row.string(1), try row.int64(2))
        }
    }
}

extension StoredPayload.Columns {
    /// The values of a ClickHouse row that selected ``ClickHouseSQL/payloadColumns`` with
    /// `payload` at `first - 1`, as the SQLite row's are read.
    init(_ row: ClickHouseRow, at first: Int) {
        self.init(
            values: (0..<Int(Self.count)).map { offset in
                guard let value = row.text(first + offset) else { return .null }
                guard Self.integers.contains(Int32(offset)) else { return .text(value) }
                return Int64(value).map(SQLiteValue.integer) ?? .null
            })
    }
}
