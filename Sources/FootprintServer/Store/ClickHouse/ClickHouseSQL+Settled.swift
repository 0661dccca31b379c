import FootprintWire

/// The settled session figures: the dwell histograms, page moves and session lengths of every
/// day, computed once per *round* from the sessions' rows and read instead of them for the days
/// no session changed on since (see docs/ARCHITECTURE.md, *Settled session figures*).
///
/// - `touched_sessions` (an aggregate table, ``touchedSessions(of:)``): each INSERT's sessions
///   and their days, with the shard's time. Its view's name sorts after every other view's, and
///   18.16 commits a view's part after those of the views before it: a touch that can be read
///   comes after its INSERT's session rows. A person's deletion touches its sessions before and
///   after; a redundant copy's, a suspect device's and a removed copy's record touch theirs once
///   written.
/// - `settled_figures`: a round's figures per day, app version, OS and page (``SettledKind``).
/// - `settled_rounds`: a round once all of its figures are written: its cutoff (a shard's time),
///   the touches up to the cutoff it saw, and its figures' row count.
///
/// A read takes the latest round whose counts still hold (a touch up to its cutoff that came
/// later, or rows it lacks, make it void), then the figures of its days on which no session was
/// touched after the cutoff, and computes the other days from the marks as before.
extension ClickHouseSQL {
    /// The kinds of `settled_figures` rows.
    enum SettledKind: Int {
        /// A dwell bucket: `page`, `bucket`, `count`, `total`, `total_float`.
        case dwell = 1
        /// A page move: `page` (from), `to_page` (`''`: the session's end), `count`.
        case move = 2
        /// A session length on its start day: `bucket` the length (at least 0), `count` the
        /// sessions, `total` their page views, `total_float` the bounces among them.
        case session = 3
        /// The round's one row that says from which `day` on it keeps its figures per session too
        /// (``settledSessionsTable``): its *window*.
        case window = 4
    }

    /// The touches table (an aggregate table, so that it is made, filled on upgrade and cut at
    /// the retention horizon with the others): per INSERT, each session and day it holds events
    /// of, and the shard's time in seconds; sorted by session, so that a session's touches are
    /// read by key. No person: a deletion keeps the touches, which only name sessions and days,
    /// and adds its own.
    static func touchedSessions(of events: String) -> Aggregate {
        Aggregate(
            name: "touched_sessions",
            columns: "project_id Int64, touched Int64, session_key String, day Int64",
            family: "MergeTree", orderBy: "project_id, session_key, day, touched",
            select: """
                SELECT project_id, toInt64(toUnixTimestamp(now())) AS touched, session_key, day
                FROM \(events)
                GROUP BY project_id, session_key, day
                """,
            shardingKey: "cityHash64(project_id, session_key)", byPerson: false)
    }

    /// The columns of `settled_figures`.
    static let settledColumns = """
        project_id Int64, round String, kind UInt8, day Int64, app String, os String, page String,
            to_page String, bucket Int64, count Int64, total Int64, total_float Float64
        """

    /// The columns of `settled_sessions`: those of `settled_figures` per session
    /// (``sessionHash``).
    static let settledSessionColumns = """
        project_id Int64, round String, session_hash UInt64, kind UInt8, day Int64, app String, os String,
            page String, to_page String, bucket Int64, count Int64, total Int64, total_float Float64
        """

    /// The table of a round's figures per session on the days of its window
    /// (``SettledKind/window``), sorted by session: a read takes back the rows of the sessions
    /// touched since and computes those sessions again, instead of every session of those days.
    /// Its rows name no person (a session's hash, pages and numbers) and go with their round.
    /// (`tables.settledSessions` names it for the reads and writes.)
    static let settledSessionsTable = "settled_sessions"

    /// The local tables of the settled figures and their rounds.
    var settledTables: [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS \(database).settled_figures_local (\(Self.settledColumns))
            ENGINE = \(engine("MergeTree", table: "settled_figures_local")) ORDER BY (project_id, round, kind, day)
            """,
            """
            CREATE TABLE IF NOT EXISTS \(database).\(Self.settledSessionsTable)_local (\(Self.settledSessionColumns))
            ENGINE = \(engine("MergeTree", table: "\(Self.settledSessionsTable)_local"))
            ORDER BY (project_id, round, session_hash, kind, day)
            """,
            """
            CREATE TABLE IF NOT EXISTS \(database).settled_rounds_local (
                project_id Int64, round String, cutoff Int64, touches UInt64, rows UInt64, made Int64)
            ENGINE = \(engine("MergeTree", table: "settled_rounds_local")) ORDER BY (project_id, cutoff, round)
            """,
            """
            CREATE TABLE IF NOT EXISTS \(database).settled_people_local (\(Self.settledPeopleColumns))
            ENGINE = \(engine("MergeTree", table: "settled_people_local")) ORDER BY (project_id, round, kind, key, member)
            """,
            """
            CREATE TABLE IF NOT EXISTS \(database).settled_totals_local (\(Self.settledTotalsColumns))
            ENGINE = \(engine("MergeTree", table: "settled_totals_local")) ORDER BY (project_id, round, kind, key, day)
            """,
        ] + touchedLinksTables
    }

    /// The `Distributed` tables over them.
    var settledDistributedTables: [String] {
        ["settled_figures", "settled_rounds", "settled_totals"].map {
            """
            CREATE TABLE IF NOT EXISTS \(database).\($0) AS \(database).\($0)_local
            ENGINE = Distributed(\(cluster), \(database), \($0)_local, cityHash64(project_id, round))
            """
        } + [
            """
            CREATE TABLE IF NOT EXISTS \(database).settled_people AS \(database).settled_people_local
            ENGINE = Distributed(\(cluster), \(database), settled_people_local, cityHash64(project_id, member))
            """,
            """
            CREATE TABLE IF NOT EXISTS \(database).\(Self.settledSessionsTable) AS \(database).\(Self.settledSessionsTable)_local
            ENGINE = Distributed(\(cluster), \(database), \(Self.settledSessionsTable)_local, session_hash)
            """,
            """
            CREATE TABLE IF NOT EXISTS \(database).touched_links AS \(database).touched_links_local
            ENGINE = Distributed(\(cluster), \(database), touched_links_local, cityHash64(project_id, anonymous_id))
            """,
        ]
    }

    /// The time of the node that runs it, in seconds.
    static let nodeTime = ClickHouseQuery<Int64>.number("SELECT toInt64(toUnixTimestamp(now()))")

    /// A project's touches up to `cutoff`.
    func touches(projectId: Int64, upTo cutoff: Int64) -> ClickHouseQuery<Int64> {
        ClickHouseQuery.number(
            "SELECT count() FROM \(database).\(tables.touches) WHERE project_id = \(projectId) AND touched <= \(cutoff)"
        )
    }

    /// Writes a round's figures of `filter`'s days (every day without days) from the rows of
    /// `sessions` (``Sessions/all`` without days, else ``Sessions/inRange``, when not given): the
    /// dwell buckets, the moves and the session lengths, per day, app version, OS and page, as the
    /// reads of the sessions compute them; with `bySession`, per session too, into
    /// `settled_sessions` (``settledSessionsTable``).
    func settleFigures(
        projectId: Int64, round: String, filter: ReportFilter = ReportFilter(), sessions: Sessions? = nil,
        bySession: Bool = false
    ) -> [String] {
        let sessions = sessions ?? (filter.from == nil && filter.to == nil ? .all : .inRange)
        let carried: Carried = bySession ? .everyBySession : .every
        let (table, hash) =
            bySession ? (tables.settledSessions, "session_hash, ") : (tables.settledFigures, "")
        let into = """
            INSERT INTO \(database).\(table) (project_id, round, \(hash)kind, day, app, os, page, to_page, bucket, count, total, total_float)
            """
        let head = "SELECT \(projectId), \(ClickHouseFormat.literal(round)), \(hash)"
        let lengths = sessionRows(
            projectId: projectId, filter: filter, page: nil, length: true, sessions: sessions,
            carried: carried)
        return [
            """
            \(into)
            \(head)\(SettledKind.dwell.rawValue), day, app, os, page, '', \(Self.bucket("milliseconds")) AS bucket,
                toInt64(count()), sum(milliseconds), sum(toFloat64(milliseconds))
            FROM (\(dwells(projectId: projectId, filter: filter, sessions: sessions, carried: carried)))
            GROUP BY \(hash)day, app, os, page, bucket
            """,
            """
            \(into)
            \(head)\(SettledKind.move.rawValue), day, app, os, from_page, to_page, 0, toInt64(count()), 0, 0
            FROM (\(moves(projectId: projectId, filter: filter, from: nil, sessions: sessions, carried: carried)))
            GROUP BY \(hash)day, app, os, from_page, to_page
            """,
            """
            \(into)
            \(head)\(SettledKind.session.rawValue), day, app, os, '', '', greatest(0, length) AS kept, toInt64(count()),
                toInt64(sum(views)), toFloat64(countIf(views <= 1))
            FROM (\(lengths))
            WHERE \(sessionConditions(filter: filter).joined(separator: " AND "))
            GROUP BY \(hash)day, app, os, kept
            """,
        ]
    }

    /// Writes a round's figures of the days from `window` on: per session (every session with a
    /// row on those days, ``settleFigures(projectId:round:filter:sessions:bySession:)``), then per
    /// day from those rows (the same moment's, so a read can take back a session's rows from
    /// them), then the row that says where its window starts (``SettledKind/window``).
    func settleWindow(projectId: Int64, round: String, from window: Int64) -> [String] {
        var days = ReportFilter()
        days.from = Timestamp(millisecondsSince1970: window &* 86_400_000)
        let columns = "kind, day, app, os, page, to_page"
        let into = """
            INSERT INTO \(database).\(tables.settledFigures) (project_id, round, \(columns), bucket, count, total, total_float)
            """
        let head = "SELECT \(projectId), \(ClickHouseFormat.literal(round))"
        return settleFigures(
            projectId: projectId, round: round, filter: days, sessions: .inRange, bySession: true)
            + [
                """
                \(into)
                \(head), \(columns), bucket, sum(count), sum(total), sum(total_float)
                FROM \(database).\(tables.settledSessions)
                WHERE project_id = \(projectId) AND round = \(ClickHouseFormat.literal(round))
                GROUP BY \(columns), bucket
                """,
                """
                \(into)
                \(head), \(SettledKind.window.rawValue), \(window), '', '', '', '', 0, 0, 0, 0
                """,
            ]
    }

    /// The first day of a round's window: the latest day with sessions up to the day after
    /// `cutoff`'s (a client's clock a day ahead), and the `days - 1` before it; `nil` with none.
    func windowStart(projectId: Int64, cutoff: Int64, days: Int) -> ClickHouseQuery<Int64?> {
        let last = cutoff / 86_400 &+ 1
        return ClickHouseQuery(
            """
            SELECT count(), max(day) FROM \(database).\(tables.sessions)
            WHERE project_id = \(projectId) AND day <= \(last)
            """, fields: 2
        ) { row throws(ServerError) in
            try row.int64(0) > 0 ? try row.int64(1) &- Int64(max(1, days) - 1) : nil
        }
    }

    /// Copies the figures of round `previous` but those of `skipped` days, of the days from
    /// `window` on and its window's row into round `round`.
    func copyFigures(
        projectId: Int64, from previous: String, to round: String, skipped: [Int64], window: Int64? = nil
    ) -> String {
        let figures = "\(database).\(tables.settledFigures)"
        let rows =
            [
                "project_id = \(projectId)", "round = \(ClickHouseFormat.literal(previous))",
                "kind != \(SettledKind.window.rawValue)",
            ]
            + Self.notOn(skipped) + (window.map { ["day < \($0)"] } ?? [])
        return """
            INSERT INTO \(figures) (project_id, round, kind, day, app, os, page, to_page, bucket, count, total, total_float)
            SELECT project_id, \(ClickHouseFormat.literal(round)), kind, day, app, os, page, to_page, bucket, count, total, total_float
            FROM \(figures) WHERE \(rows.joined(separator: " AND "))
            """
    }

    /// A round's rows per session of `kind` on `filter`'s days, of its app version and OS (and
    /// `page` when given), of the sessions in ``touchedTable`` (sent with the read), negated:
    /// `page, to_page, bucket, taken_count, taken_total, taken_total_float`, taken back from the
    /// round's figures before those sessions are computed again.
    func takenBack(
        projectId: Int64, round: String, kind: SettledKind, filter: ReportFilter, page: String? = nil
    ) -> String {
        var conditions = settledConditions(
            projectId: projectId, round: round, kind: kind, filter: filter, skipped: [])
        if let page { conditions.append("page = \(ClickHouseFormat.literal(page))") }
        conditions.append("session_hash IN \(Self.touchedTable.name)")
        return """
            SELECT page, to_page, bucket, -count AS taken_count, -total AS taken_total,
                -total_float AS taken_total_float
            FROM \(database).\(tables.settledSessions) WHERE \(conditions.joined(separator: " AND "))
            """
    }

    /// A round's sessions that started on `filter`'s days but `skipped`, of its app version and
    /// OS: rows of ``sessionFigures(of:)``.
    /// With `takenBack`, less the round's rows of the sessions in ``touchedTable``
    /// (``takenBack(projectId:round:kind:filter:page:)``).
    func settledLengths(
        projectId: Int64, round: String, filter: ReportFilter, skipped: [Int64], takenBack: Bool = false
    ) -> String {
        let conditions = settledConditions(
            projectId: projectId, round: round, kind: .session, filter: filter, skipped: skipped)
        var rows = """
            SELECT bucket, count, total, total_float FROM \(database).\(tables.settledFigures)
            WHERE \(conditions.joined(separator: " AND "))
            """
        if takenBack {
            rows += """

                UNION ALL
                SELECT bucket, taken_count, taken_total, taken_total_float FROM (\(self.takenBack(projectId: projectId, round: round, kind: .session, filter: filter)))
                """
        }
        return """
            SELECT bucket AS kept, count AS sessions, total AS screens, toInt64(total_float) AS bounces
            FROM (\(rows))
            """
    }

    /// The conditions on a round's figures of `kind` on `filter`'s days but `skipped`, of its app
    /// version and OS.
    func settledConditions(
        projectId: Int64, round: String, kind: SettledKind, filter: ReportFilter, skipped: [Int64]
    ) -> [String] {
        var conditions = [
            "project_id = \(projectId)", "round = \(ClickHouseFormat.literal(round))",
            "kind = \(kind.rawValue)",
        ]
        conditions += Self.dayConditions(filter) + Self.notOn(skipped)
        if let version = filter.appVersion { conditions.append("app = \(ClickHouseFormat.literal(version))") }
        if let os = filter.os { conditions.append("os = \(ClickHouseFormat.literal(os))") }
        return conditions
    }

    /// The condition on a row's `day` that leaves out `days` (none without days).
    static func notOn(_ days: [Int64]) -> [String] {
        days.isEmpty ? [] : ["day NOT IN (\(days.map(String.init).joined(separator: ", ")))"]
    }

    /// A round's figure rows.
    func settledRows(projectId: Int64, round: String) -> ClickHouseQuery<Int64> {
        ClickHouseQuery.number(
            """
            SELECT count() FROM \(database).\(tables.settledFigures)
            WHERE project_id = \(projectId) AND round = \(ClickHouseFormat.literal(round))
            """)
    }

    /// Records a round whose figures are all written.
    func commitRound(projectId: Int64, round: String, cutoff: Int64, touches: Int64, rows: Int64) -> String {
        """
        INSERT INTO \(database).\(tables.settledRounds) (project_id, round, cutoff, touches, rows, made)
        SELECT \(projectId), \(ClickHouseFormat.literal(round)), \(cutoff), \(touches), \(rows), toInt64(toUnixTimestamp(now()))
        """
    }

    /// A project's three latest rounds, newest first (by cutoff): each with its cutoff, the time
    /// it was made, and the touches up to the cutoff and figure rows it recorded.
    func latestRounds(projectId: Int64)
        -> ClickHouseQuery<(round: String, cutoff: Int64, made: Int64, touches: Int64, rows: Int64)>
    {
        let sql = """
            SELECT round, cutoff, made, touches, rows FROM \(database).\(tables.settledRounds)
            WHERE project_id = \(projectId) ORDER BY cutoff DESC, round LIMIT 3
            """
        return ClickHouseQuery(sql, fields: 5) { row throws(ServerError) in
            (row.string(0), try row.int64(1), try row.int64(2), try row.int64(3), try row.int64(4))
        }
    }

    /// What a round recorded, as it is now: a project's touches up to `cutoff` and the round's
    /// figure rows; and the first day of its window (``SettledKind/window``) when it has one and
    /// rows per session (a round copied by a binary that knew no window has its row and none of
    /// those: it is read without one; a window with no row per session is read the same).
    func roundCounts(projectId: Int64, round: String, cutoff: Int64)
        -> ClickHouseQuery<(touches: Int64, rows: Int64, window: Int64?)>
    {
        let window = SettledKind.window.rawValue
        let ofRound = "project_id = \(projectId) AND round = \(ClickHouseFormat.literal(round))"
        let sql = """
            SELECT (SELECT count() FROM \(database).\(tables.touches) WHERE project_id = \(projectId) AND touched <= \(cutoff)),
                count(), countIf(kind = \(window)), minIf(day, kind = \(window)),
                (SELECT count() FROM \(database).\(tables.settledSessions) WHERE \(ofRound))
            FROM \(database).\(tables.settledFigures) WHERE \(ofRound)
            """
        return ClickHouseQuery(sql, fields: 5) { row throws(ServerError) in
            let (markers, sessions) = (try row.int64(2), try row.int64(4))
            let windowed = markers > 0 && sessions > 0
            return (try row.int64(0), try row.int64(1), windowed ? try row.int64(3) : nil)
        }
    }

    /// How many sessions were touched after `cutoff`: none in the usual case between a round and
    /// the next INSERT, read from the touches' time column alone, where
    /// ``daysTouched(projectId:after:)`` reads every session key (twice the table's rows).
    func touchesAfter(projectId: Int64, cutoff: Int64) -> ClickHouseQuery<Int64> {
        ClickHouseQuery.number(
            "SELECT count() FROM \(database).\(tables.touches) WHERE project_id = \(projectId) AND touched > \(cutoff)"
        )
    }

    /// The days whose figures a round with `cutoff` no longer gives: each day of a session
    /// touched after it, as touched and as its rows now are. Every row of `sessions` came with a
    /// touch of its session and day (the touches are never fewer: a deletion keeps them), so the
    /// touches alone give those days, read by session key (their table's order).
    func daysTouched(projectId: Int64, after cutoff: Int64) -> ClickHouseQuery<Int64> {
        let touches = "\(database).\(tables.touches)"
        return ClickHouseQuery.number(
            """
            SELECT DISTINCT day FROM \(touches) WHERE project_id = \(projectId)
                AND session_key GLOBAL IN (SELECT session_key FROM \(touches) WHERE project_id = \(projectId) AND touched > \(cutoff))
            ORDER BY day
            """)
    }

    /// ``daysTouched(projectId:after:)`` from the hashes of the sessions touched after the cutoff
    /// (``touchedTable``, sent with it): one read of the touches instead of two. A session whose
    /// hash is the same as a touched one's gives its days too, which are then computed again
    /// (the same answer).
    func daysOfTouchedSessions(projectId: Int64, hashes: [UInt64]) -> ClickHouseQuery<Int64> {
        var query = ClickHouseQuery<Int64>.number(
            """
            SELECT DISTINCT day FROM \(database).\(tables.touches)
            WHERE project_id = \(projectId) AND \(Self.sessionHash) IN \(Self.touchedTable.name)
            ORDER BY day
            """)
        query.external = [Self.touchedTable(hashes)]
        return query
    }

    /// A round's figures of `kind` on `filter`'s days but `skipped`, of its app version, OS and
    /// page, and from `page` when given: `page, to_page, bucket, count, total, total_float` summed
    /// over the days; with `takenBack`, less its rows of the sessions in ``touchedTable``
    /// (``takenBack(projectId:round:kind:filter:page:)``), which it is then sent with.
    func settledFigures(
        projectId: Int64, round: String, kind: SettledKind, filter: ReportFilter, skipped: [Int64],
        from page: String? = nil, takenBack hashes: [UInt64]? = nil
    ) -> ClickHouseQuery<(page: String, to: String, bucket: Int64, count: Int64, total: Int64)> {
        var conditions = settledConditions(
            projectId: projectId, round: round, kind: kind, filter: filter, skipped: skipped)
        let page = page ?? filter.page
        if let page { conditions.append("page = \(ClickHouseFormat.literal(page))") }
        var rows = """
            SELECT page, to_page, bucket, count, total, total_float
            FROM \(database).\(tables.settledFigures) WHERE \(conditions.joined(separator: " AND "))
            """
        if hashes != nil {
            rows += """

                UNION ALL
                \(takenBack(projectId: projectId, round: round, kind: kind, filter: filter, page: page))
                """
        }
        let sql = """
            SELECT page, to_page, bucket, sum(count), sum(total), sum(total_float)
            FROM (\(rows))
            GROUP BY page, to_page, bucket
            """
        var query = ClickHouseQuery<(page: String, to: String, bucket: Int64, count: Int64, total: Int64)>(
            sql, fields: 6
        ) { row throws(ServerError) in
            (
                row.string(0), row.string(1), try row.int64(2), try row.int64(3),
                try row.sum(exact: 4, approximate: 5)
            )
        }
        query.external = hashes.map { [Self.touchedTable($0)] } ?? []
        return query
    }

    /// The projects with touches: the latest touch of each, and the time of the node that runs it.
    var projectsTouched: ClickHouseQuery<(projectId: Int64, touched: Int64, now: Int64)> {
        ClickHouseQuery(
            """
            SELECT project_id, max(touched), toInt64(toUnixTimestamp(now())) FROM \(database).\(tables.touches)
            GROUP BY project_id
            """, fields: 3
        ) { row throws(ServerError) in (try row.int64(0), try row.int64(1), try row.int64(2)) }
    }

    /// Touches every session of `devices` on each day it has events, with the time of the node
    /// that runs it (after a record of a redundant copy or a suspect device).
    func touchDevices(projectId: Int64, devices: Set<String>) -> String {
        """
        INSERT INTO \(database).\(tables.touches) (project_id, touched, session_key, day)
        SELECT project_id, toInt64(toUnixTimestamp(now())), session_key, day FROM \(database).\(tables.events)
        WHERE project_id = \(projectId) AND device IN (\(Self.list(devices)))
        GROUP BY project_id, session_key, day
        """
    }

    /// A person's sessions and the days they have events on (read before the person's deletion).
    func personSessions(projectId: Int64, person: String, anonymousIds: Set<String>)
        -> ClickHouseQuery<(session: String, day: Int64)>
    {
        ClickHouseQuery(
            """
            SELECT DISTINCT session_key, day FROM \(database).\(tables.events)
            WHERE project_id = \(projectId) AND \(Self.personCondition(person: person, anonymousIds: anonymousIds))
            """, fields: 2
        ) { row throws(ServerError) in (row.string(0), try row.int64(1)) }
    }

    /// Touches `sessions` (each a session and a day) with the time of the node that runs it.
    func touch(projectId: Int64, sessions: [(session: String, day: Int64)]) -> String {
        let pairs = sessions.map { "(\(ClickHouseFormat.literal($0.session)), toInt64(\($0.day)))" }
        return """
            INSERT INTO \(database).\(tables.touches) (project_id, touched, session_key, day)
            SELECT \(projectId), toInt64(toUnixTimestamp(now())), pair.1, pair.2
            FROM system.one ARRAY JOIN [\(pairs.joined(separator: ", "))] AS pair
            """
    }

    /// Deletes a project's rounds but `kept` and their figures from one shard's local tables.
    func deleteRounds(projectId: Int64, keeping kept: Set<String>) -> [String] {
        [
            "settled_figures_local", "settled_rounds_local", "settled_people_local", "settled_totals_local",
            "\(Self.settledSessionsTable)_local",
        ].map {
            """
            ALTER TABLE \(database).\($0) DELETE
            WHERE project_id = \(projectId) AND round NOT IN (\(Self.list(kept)))
            """
        }
    }

    /// A project's rounds, newest first.
    func rounds(projectId: Int64) -> ClickHouseQuery<String> {
        ClickHouseQuery(
            "SELECT round FROM \(database).\(tables.settledRounds) WHERE project_id = \(projectId) ORDER BY cutoff DESC, round",
            fields: 1
        ) { row throws(ServerError) in row.string(0) }
    }
}
