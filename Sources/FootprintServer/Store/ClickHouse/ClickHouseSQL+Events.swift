import FootprintWire

/// The reads of the events themselves: counts, the newest events, the events of a report over
/// a range that is not whole days, and a person's events and identity links.
extension ClickHouseSQL {
    /// The number of stored events of a project.
    func eventCount(projectId: Int64) -> String {
        "SELECT count() FROM \(database).\(tables.events) WHERE project_id = \(projectId) AND \(unique(projectId: projectId))"
    }

    /// The sum of a project's evicted-event counts, each batch once.
    func lostEventCount(projectId: Int64) -> String {
        "SELECT sum(count), sum(toFloat64(count)) FROM \(database).\(tables.lostEvents) FINAL WHERE project_id = \(projectId)"
    }

    /// The oldest and newest event time of a project, and its event count.
    func eventTimeSpan(projectId: Int64) -> String {
        """
        SELECT min(time), max(time), count() FROM \(database).\(tables.events)
        WHERE project_id = \(projectId) AND \(unique(projectId: projectId))
        """
    }

    /// Each anonymous id's user id: the smallest linked to it (byte order), as on SQLite
    /// (``EventStore/identityLinks(projectId:)``).
    func identityLinks(projectId: Int64) -> String {
        """
        SELECT anonymous_id, min(user_id) FROM \(database).\(tables.identities) WHERE project_id = \(projectId)
        GROUP BY anonymous_id
        """
    }

    /// The newest events after `after` (a ``RecentEvent/sequence``).
    func recentEvents(projectId: Int64, limit: Int, after: Int64?) -> String {
        """
        SELECT sequence, type, name, time, received_at, ifNull(user_id, anonymous_id), page, payload
        FROM \(database).\(tables.events)
        WHERE project_id = \(projectId) AND sequence > \(max(0, after ?? 0)) AND \(unique(projectId: projectId))
        ORDER BY sequence DESC LIMIT \(max(0, limit))
        """
    }

    /// A project's events passing `filter` exactly (as the SQLite store's events), at most
    /// `limit`; the payload only when `properties`.
    func analyticsEvents(projectId: Int64, filter: ReportFilter, properties: Bool, limit: Int) -> String {
        var conditions = ["project_id = \(projectId)", unique(projectId: projectId)]
        if let from = filter.from { conditions.append("time >= \(from.millisecondsSince1970)") }
        if let to = filter.to { conditions.append("time < \(to.millisecondsSince1970)") }
        if let version = filter.appVersion {
            conditions.append("app_version = \(ClickHouseFormat.literal(version))")
        }
        if let os = filter.os { conditions.append("os = \(ClickHouseFormat.literal(os))") }
        if let page = filter.page { conditions.append("page = \(ClickHouseFormat.literal(page))") }
        return """
            SELECT type, name, time, anonymous_id, user_id, session_id, page, element_path, similar_path,
                element_text, item_id, duration_ms, app_version, os, \(properties ? "payload" : "''")
            FROM \(database).\(tables.events) WHERE \(conditions.joined(separator: " AND ")) LIMIT \(max(0, limit))
            """
    }

    /// A person's events, in stored order.
    func personEvents(projectId: Int64, person: String, anonymousIds: Set<String>) -> String {
        """
        SELECT message_id, time, received_at, payload FROM \(database).\(tables.events)
        WHERE project_id = \(projectId) AND \(unique(projectId: projectId))
            AND \(Self.personCondition(person: person, anonymousIds: anonymousIds))
        ORDER BY sequence
        """
    }

    /// Every identity link of a project with when it was first seen, oldest first.
    func identityLinkTimes(projectId: Int64) -> String {
        """
        SELECT anonymous_id, user_id, min(first_seen) AS seen FROM \(database).\(tables.identities)
        WHERE project_id = \(projectId) GROUP BY anonymous_id, user_id ORDER BY seen, anonymous_id, user_id
        """
    }
}
