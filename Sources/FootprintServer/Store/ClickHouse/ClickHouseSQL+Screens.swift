import FootprintWire

/// The reads of the Screens page and the live connect view.
extension ClickHouseSQL {
    /// The newest `sequence` among a project's events (of the devices `devices`, when given):
    /// `(sequence, count)`, `(0, 0)` when there is none.
    func newestSequence(projectId: Int64, devices: Set<String>?)
        -> ClickHouseQuery<(sequence: Int64, count: Int64)>
    {
        let device = devices.map { " AND device IN (\(Self.list($0)))" } ?? ""
        let sql = """
            SELECT max(sequence), count() FROM \(database).\(tables.events)
            WHERE project_id = \(projectId)\(device)
            """
        return ClickHouseQuery(sql, fields: 2) { row throws(ServerError) in
            (try row.int64(0), try row.int64(1))
        }
    }

    /// The `$element_click` events of these devices with a `sequence` in `after`…`through`, oldest
    /// first: `sequence, time, anonymous_id, page, element_path, similar_path, element_text`.
    func deviceClicks(projectId: Int64, devices: Set<String>, after: Int64, through: Int64, limit: Int)
        -> ClickHouseQuery<DeviceClick>
    {
        ClickHouseQuery(
            """
            SELECT sequence, time, anonymous_id, page, element_path, similar_path, element_text
            FROM \(database).\(tables.events)
            WHERE project_id = \(projectId) AND device IN (\(Self.list(devices))) AND isNotNull(anonymous_id)
                AND \(unique(projectId: projectId))
                AND sequence > \(max(0, after)) AND sequence <= \(max(0, through))
                AND type = 'track' AND name = '$element_click' AND isNotNull(element_path)
            ORDER BY sequence LIMIT \(max(0, limit))
            """, fields: 7
        ) { row throws(ServerError) in
            DeviceClick(
                sequence: try row.int64(0), time: Timestamp(millisecondsSince1970: try row.int64(1)),
                anonymousId: row.string(2), page: row.text(3), path: row.string(4), similarPath: row.text(5),
                text: row.text(6))
        }
    }

    /// The newest day of a project's counted events (the SQLite rollups' newest day) and whether
    /// there is any: `(day, count)`, `(0, 0)` when there is none. Redundant copies change neither.
    func newestCountedDay(projectId: Int64) -> ClickHouseQuery<(day: Int64, count: Int64)> {
        ClickHouseQuery(
            """
            SELECT max(day), count() FROM \(database).\(tables.events)
            WHERE project_id = \(projectId) AND arrayExists(role -> bitAnd(role, 1) = 1, roles)
            """, fields: 2
        ) { row throws(ServerError) in
            (try row.int64(0), try row.int64(1))
        }
    }

    /// Each app version's newest `$plan_health` report from day `since` on, by its newest day
    /// then its version, both descending: `app_version, day, time, sequence` (the newest time's
    /// report; of two at one time, the one stored last), its message read by sequence
    /// (``messages(projectId:sequences:)``). One read with the message as an `argMax` of the
    /// payload's columns in a tuple would do both, but a tuple holding `Nullable` columns sent
    /// between the shards crashes ClickHouse 18.16's remote shard.
    func planHealthReports(projectId: Int64, since day: Int64, limit: Int)
        -> ClickHouseQuery<(appVersion: String, time: Int64, sequence: Int64)>
    {
        ClickHouseQuery(
            """
            SELECT ifNull(app_version, '') AS version, max(day) AS newest, max(time),
                argMax(sequence, (time, sequence))
            FROM \(database).\(tables.events)
            WHERE project_id = \(projectId) AND type = 'track' AND name = \(ClickHouseFormat.literal(PlanHealthReport.eventName))
                AND day >= \(day)
            GROUP BY version ORDER BY newest DESC, version DESC LIMIT \(max(0, limit))
            """, fields: 4
        ) { row throws(ServerError) in
            (row.string(0), try row.int64(2), try row.int64(3))
        }
    }

    /// The message JSON of a project's events with these `sequences`, each sequence once.
    func messages(projectId: Int64, sequences: [Int64]) -> ClickHouseQuery<(sequence: Int64, message: String)>
    {
        ClickHouseQuery(
            """
            SELECT sequence, \(Self.payloadColumns) FROM \(database).\(tables.events)
            WHERE project_id = \(projectId) AND sequence IN (\(sequences.map { String(max(0, $0)) }.joined(separator: ", ")))
            LIMIT 1 BY sequence
            """, fields: 1 + Self.payloadFields
        ) { row throws(ServerError) in
            (try row.int64(0), Self.payload(row, at: 1) ?? "{}")
        }
    }
}
