import FootprintWire

/// The session reads: the `sessions` and `session_pages` aggregate states, and the lengths,
/// page moves and dwell computed from them.
extension ClickHouseSQL {
    /// The aggregate states of a session's events, in the columns `NAME_state` of `sessions` and
    /// `session_pages`: the earliest time (`start_time`), the day of the earliest (`day`),
    /// the latest time (`end_time`), the page views (`views`), the app version and OS of the first
    /// stored (smallest `sequence`: `app`, `os`), and in `sessions` the marks `(time, sequence,
    /// mark, page, duration, day)` (`marks`). Numbers and strings apart, not in tuples: ClickHouse
    /// merges those states faster.
    static let sessionStates: [(name: String, function: String, arguments: String, types: String)] = [
        ("start_time", "min", "time", "Int64"),
        ("day", "argMin", "day, time", "Int64, Int64"),
        ("end_time", "max", "time", "Int64"),
        ("views", "countIf", "is_page_view = 1", "UInt8"),
        ("app", "argMin", "ifNull(app_version, ''), sequence", "String, UInt64"),
        ("os", "argMin", "ifNull(os, ''), sequence", "String, UInt64"),
        (
            "marks", "groupArrayIf",
            "(\(Mark.allCases.map(\.column).joined(separator: ", "))), mark > \(Code.none.rawValue)",
            "Tuple(\(Mark.allCases.map(\.type).joined(separator: ", "))), UInt8"
        ),
    ]

    /// The fields of a stored mark (``SessionTimeline/StoredMark``), the tuples of the `marks`
    /// state and of the session reads that walk them.
    typealias Mark = SessionTimeline.StoredMark.Field
    /// A stored mark's code.
    typealias Code = SessionTimeline.MarkCode

    /// Which sessions' rows a session read merges. The answer is the same either way; only its
    /// cost differs (``sessionRowsInRange(projectId:filter:page:)`` tells which is less).
    enum Sessions: Sendable, Equatable {
        /// Every session's rows: a session outside the filter's days is left out by its start or
        /// its views' days once merged.
        case all
        /// With days in the filter, the rows of the sessions with a row on those days only, every
        /// row of each, as its start and timeline need.
        case inRange
        /// The sessions whose ``sessionHash`` is in the table ``touchedTable`` sent with the read
        /// (those touched after a round's cutoff: a session whose hash is the same as one of them
        /// is read too, and taken back too), every row of each: what a read computes again where
        /// the round kept them per session (``ClickHouseSQL/settledSessionsTable``).
        case touched
    }

    /// What a session read carries besides what it counts.
    enum Carried: Sendable {
        /// What `filter`'s conditions read: the app version and OS when it names them.
        case filtered
        /// The start day, app version and OS, whatever `filter` holds: a round's figures per day.
        case every
        /// Those and the session's ``sessionHash``: a round's rows per session.
        case everyBySession

        /// Whether the start day, app version and OS are carried.
        var every: Bool { self != .filtered }
    }

    /// A session's key as a round keeps its rows per session: 64 bits of it. Two sessions with
    /// the same hash are taken back and computed again together, so a collision costs a read
    /// and never changes an answer.
    static let sessionHash = "cityHash64(session_key)"

    /// The table of the hashes of the sessions touched after a round's cutoff, sent with the
    /// reads that take them back (``Sessions/touched``).
    static let touchedTable = (name: "touched_hashes", structure: "session_hash UInt64")

    /// `hashes` as the table ``touchedTable``.
    static func touchedTable(_ hashes: [UInt64]) -> ClickHouseExternalTable {
        var rows = ClickHouseRowBinary(capacity: hashes.count * 8)
        for hash in hashes { rows.append(hash) }
        return ClickHouseExternalTable(name: touchedTable.name, structure: touchedTable.structure, rows: rows)
    }

    /// The hashes of a project's sessions touched after `cutoff`, at most `limit + 1` of them.
    func touchedSessionHashes(projectId: Int64, after cutoff: Int64, limit: Int) -> ClickHouseQuery<UInt64> {
        ClickHouseQuery(
            """
            SELECT DISTINCT \(Self.sessionHash) FROM \(database).\(tables.touches)
            WHERE project_id = \(projectId) AND touched > \(cutoff) LIMIT \(limit &+ 1)
            """, fields: 1
        ) { row throws(ServerError) in try row.uint64(0) }
    }

    /// The ``sessionStates`` a table keeps: all, or all but the marks.
    static func sessionStateNames(marks: Bool) -> [String] {
        sessionStates.map(\.name).filter { marks || $0 != "marks" }
    }

    /// The states `names` of the events a `SELECT` groups: `…State(…) AS NAME_state`.
    static func sessionStateExpressions(_ names: [String]) -> String {
        sessionStates.filter { names.contains($0.name) }.map {
            "\($0.function)State(\($0.arguments)) AS \($0.name)_state"
        }
        .joined(separator: ", ")
    }

    /// The states of a table's view (``sessionStateNames(marks:)``).
    static func sessionStateExpressions(marks: Bool) -> String {
        sessionStateExpressions(sessionStateNames(marks: marks))
    }

    /// The state columns of a table (``sessionStateNames(marks:)``).
    static func sessionStateColumns(marks: Bool) -> String {
        sessionStates.filter { sessionStateNames(marks: marks).contains($0.name) }
            .map { "\($0.name)_state AggregateFunction(\($0.function), \($0.types))" }.joined(separator: ", ")
    }

    /// A state of ``sessionStates`` merged over a session's rows, as `name`.
    static func sessionMerge(_ name: String) -> String {
        let function = sessionStates.first { $0.name == name }?.function ?? "any"
        return "\(function)Merge(\(name)_state) AS \(name)"
    }

    /// Each session's aggregate states `names` (``sessionStates``; with `page`, of its events on
    /// that page): the rows of `sessions` (`session_pages`) without the devices that have a
    /// redundant copy, and per session the states of those devices' counted events; merged per
    /// session by the caller. With ``Sessions/inRange`` and days in `filter`, only the rows of the sessions
    /// with an event on those days (on `page`) are read, every row of each, as its start and
    /// timeline need (``sessionRowsInRange(projectId:filter:page:)`` tells when that pays; either
    /// way a session outside the days is left out by its start or its views' days, so the
    /// redundant devices' events, few, are read whole).
    func sessionStateRows(
        projectId: Int64, filter: ReportFilter, page: String?, names: [String], sessions: Sessions
    ) -> String {
        let table = page == nil ? tables.sessions : tables.sessionPages
        let onPage = page.map { ["page = \(ClickHouseFormat.literal($0))"] } ?? []
        let rows = aggregateConditions(projectId: projectId, filter: ReportFilter(), people: true) + onPage
        // The keys first (`PREWHERE`): the states are read only from the parts of the table (sorted
        // by day first) that hold rows of those sessions.
        var prewhere = ""
        var events =
            copyConditions(projectId: projectId, copies: .countedOfRedundantDevices)
            + (page.map { ["ifNull(page, '') = \(ClickHouseFormat.literal($0))"] } ?? [])
        switch sessions {
        case .all: break
        case .inRange:
            guard filter.from != nil || filter.to != nil else { break }
            let inRange = ["project_id = \(projectId)"] + onPage + Self.dayConditions(filter)
            prewhere =
                "PREWHERE session_key GLOBAL IN (SELECT session_key FROM \(database).\(table) WHERE \(inRange.joined(separator: " AND ")))\n"
        case .touched:
            let touched = "\(Self.sessionHash) IN \(Self.touchedTable.name)"
            prewhere = "PREWHERE \(touched)\n"
            events.append(touched)
        }
        let columns = Self.sessionStates.map(\.name).filter(names.contains).map { "\($0)_state" }
        return """
            SELECT session_key, \(Self.sessionStateExpressions(names))
            FROM \(database).\(tables.events) WHERE \(events.joined(separator: " AND "))
            GROUP BY session_key
            UNION ALL
            SELECT session_key, \(columns.joined(separator: ", "))
            FROM \(database).\(table) \(prewhere)WHERE \(rows.joined(separator: " AND "))
            """
    }

    /// The states ``sessionConditions(filter:)`` needs besides `names`: the start day with days in
    /// `filter`, the first stored event's app version and OS with those in it.
    static func sessionStateNames(_ names: [String], filter: ReportFilter) -> [String] {
        var names = names
        if filter.from != nil || filter.to != nil { names.append("day") }
        if filter.appVersion != nil { names.append("app") }
        if filter.os != nil { names.append("os") }
        return names
    }

    /// A project's rows of `sessions` (with `page`, of `session_pages` on that page) on `filter`'s
    /// days, and all: `in range, all`. Narrowing a session read to the sessions with a row on
    /// those days (``Sessions/inRange``) pays when they are at most half: the set of their keys costs
    /// about as much as merging the other rows.
    func sessionRowsInRange(projectId: Int64, filter: ReportFilter, page: String?)
        -> ClickHouseQuery<(inRange: Int64, all: Int64)>
    {
        let days = Self.dayConditions(filter)
        let onPage = page.map { " AND page = \(ClickHouseFormat.literal($0))" } ?? ""
        let sql = """
            SELECT countIf(\(days.isEmpty ? "1" : days.joined(separator: " AND "))), count()
            FROM \(database).\(page == nil ? tables.sessions : tables.sessionPages) WHERE project_id = \(projectId)\(onPage)
            """
        return ClickHouseQuery(sql, fields: 2) { row throws(ServerError) in
            (try row.int64(0), try row.int64(1))
        }
    }

    /// The conditions on a session (or session page) row of `day`, `app` and `os`.
    func sessionConditions(filter: ReportFilter) -> [String] {
        var conditions = Self.dayConditions(filter)
        if let version = filter.appVersion { conditions.append("app = \(ClickHouseFormat.literal(version))") }
        if let os = filter.os { conditions.append("os = \(ClickHouseFormat.literal(os))") }
        return conditions.isEmpty ? ["1"] : conditions
    }

    /// Each session's (or with `page`, each session's events on that page) page views, with
    /// `length` its length, and what ``sessionConditions(filter:)`` reads: its start day, and the
    /// app version and OS of its first stored event.
    /// With `carried`, the start day, app version and OS whatever `filter` holds (the settled
    /// figures keep them), and the session's hash.
    func sessionRows(
        projectId: Int64, filter: ReportFilter, page: String?, length: Bool, sessions: Sessions,
        carried: Carried = .filtered
    )
        -> String
    {
        var names = Self.sessionStateNames(
            length ? ["start_time", "end_time", "views"] : ["views"], filter: filter)
        if carried.every { names += ["day", "app", "os"] }
        names = Self.sessionStates.map(\.name).filter(names.contains)
        let hash = carried == .everyBySession ? ", \(Self.sessionHash) AS session_hash" : ""
        return """
            SELECT \(names.map(Self.sessionMerge).joined(separator: ", "))\(length ? ", end_time - start_time AS length" : "")\(hash)
            FROM (\(sessionStateRows(projectId: projectId, filter: filter, page: page, names: names, sessions: sessions)))
            GROUP BY session_key
            """
    }

    /// The figures (``SessionFigures``) of the sessions that started on `filter`'s days (with its
    /// page: of each session's events on that page), counted here, one row back
    /// (``sessionFigures(of:)``).
    func sessionFigures(projectId: Int64, filter: ReportFilter, sessions: Sessions = .inRange)
        -> ClickHouseQuery<SessionFigures>
    {
        Self.sessionFigures(
            of: [sessionLengths(projectId: projectId, filter: filter, sessions: sessions)], counted: false)
    }

    /// The sessions that started on `filter`'s days (with its page: each session's events on
    /// that page), one row each: `kept, sessions, screens, bounces` (its length, at least 0; 1; its
    /// page views; whether it is a bounce), what ``sessionFigures(of:)`` counts.
    func sessionLengths(projectId: Int64, filter: ReportFilter, sessions: Sessions) -> String {
        let rows = sessionRows(
            projectId: projectId, filter: filter, page: filter.page, length: true, sessions: sessions)
        return """
            SELECT greatest(0, length) AS kept, toInt64(1) AS sessions, toInt64(views) AS screens,
                toInt64(views <= 1) AS bounces
            FROM (\(rows))
            WHERE \(sessionConditions(filter: filter).joined(separator: " AND "))
            """
    }

    /// The figures (``SessionFigures``) of the sessions of `parts` (each of rows `kept, sessions,
    /// screens, bounces`: a length, how many sessions had it, their page views and bounces), one
    /// row back. The lengths are added as their high and low 32 bits apart, each sum exact below
    /// 2^31 sessions, so the total is exact wherever it fits in `Int64`; the middle lengths are
    /// read from the lengths sorted with their running count of sessions (ClickHouse's quantiles
    /// interpolate or pick otherwise; a lambda is given the rank as an array, since 18.16's
    /// lambdas read no other column).
    /// With `counted`, the rows are summed per length first (a round's rows of the sessions
    /// touched since are taken back as negative ones).
    /// Without `counted`, every row is one session (`sessions` is 1), and the middle lengths are
    /// read from the sorted lengths themselves (at 10M events 0.4 s against 0.6 s).
    static func sessionFigures(of parts: [String], counted: Bool = true) -> ClickHouseQuery<SessionFigures> {
        func middle(_ rank: String) -> String {
            counted
                ? "lengths[arrayCount((c, r) -> c < r, counts, arrayResize(emptyArrayInt64(), length(counts), \(rank))) + 1]"
                : "sorted[\(rank)]"
        }
        let sorted = counted ? "arraySort(groupArray((kept, sessions)))" : "arraySort(groupArray(kept))"
        let arrays =
            counted
            ? "arrayMap(x -> x.1, sorted) AS lengths, arrayCumSum(arrayMap(x -> x.2, sorted)) AS counts"
            : "sorted"
        // Counted rows are summed per length first: a round's rows taken back (negative) then
        // never make the running count fall within a length.
        let rows =
            counted
            ? """
            SELECT kept, sum(part_sessions) AS sessions, sum(part_screens) AS screens, sum(part_bounces) AS bounces
            FROM (SELECT kept, sessions AS part_sessions, screens AS part_screens, bounces AS part_bounces
                FROM (\(parts.joined(separator: "\nUNION ALL\n"))))
            GROUP BY kept
            """ : parts.joined(separator: "\nUNION ALL\n")
        return ClickHouseQuery(
            """
            SELECT n, high, low, screens, bounces, if(n = 0, 0, \(middle("intDiv(n - 1, 2) + 1"))),
                if(n = 0, 0, \(middle("intDiv(n, 2) + 1")))
            FROM (
                SELECT n, high, low, screens, bounces, \(arrays)
                FROM (
                    SELECT sum(sessions) AS n, sum(intDiv(kept, 4294967296) * sessions) AS high,
                        sum(kept % 4294967296 * sessions) AS low, sum(screens) AS screens, sum(bounces) AS bounces,
                        \(sorted) AS sorted
                    FROM (\(rows))
                )
            )
            """, fields: 7
        ) { row throws(ServerError) in
            let (high, low) = (try row.int64(1), try row.int64(2))
            let (shifted, overflow) = high.multipliedReportingOverflow(by: 1 << 32)
            var total = overflow ? Int64.max : shifted
            total.addSaturating(low)
            return SessionFigures(
                sessions: try row.int(0), totalLengthMilliseconds: total,
                lowerMiddleLengthMilliseconds: try row.int64(5),
                upperMiddleLengthMilliseconds: try row.int64(6),
                pageViews: Int(clamping: try row.int64(3)), bounces: try row.int(4))
        }
    }

    /// With a page in `filter`: the repeat views of the page and the sessions' ends there.
    func pageMoves(projectId: Int64, filter: ReportFilter, page: String, sessions: Sessions = .inRange)
        -> ClickHouseQuery<(repeats: Int64, ends: Int64)>
    {
        ClickHouseQuery(
            """
            SELECT sum(views - 1), count() FROM (\(sessionRows(projectId: projectId, filter: filter, page: page, length: false, sessions: sessions)))
            WHERE \(sessionConditions(filter: filter).joined(separator: " AND ")) AND views > 0
            """, fields: 2
        ) { row throws(ServerError) in
            (try row.int64(0), try row.int64(1))
        }
    }

    /// Each session's marks (page views and leaves) in time order, stored order at equal
    /// times, the first ``SessionTimeline/maximumMarks``: `(time, sequence, mark, page,
    /// duration, day)`; and what ``sessionConditions(filter:)`` reads of the session: the app
    /// version and OS of its first stored event (a view's own day is in its mark).
    /// With `carried`, the app version and OS whatever `filter` holds (the settled figures keep
    /// them: ``ClickHouseSQL/settledColumns``), and the session's hash.
    func sessionMarks(
        projectId: Int64, filter: ReportFilter, sessions: Sessions, carried: Carried = .filtered
    )
        -> String
    {
        var names = Self.sessionStateNames(
            carried.every ? ["marks", "app", "os"] : ["marks"], filter: filter)
        names.removeAll { $0 == "day" }
        names = Self.sessionStates.map(\.name).filter(names.contains)
        let hash = carried == .everyBySession ? ", \(Self.sessionHash) AS session_hash" : ""
        return """
            SELECT arraySlice(arraySort(x -> (\(Mark.time.of("x")), \(Mark.sequence.of("x"))), groupArrayIfMerge(marks_state)),
                    1, \(SessionTimeline.maximumMarks)) AS marks\(names.filter { $0 != "marks" }.map { ", " + Self.sessionMerge($0) }.joined())\(hash)
            FROM (\(sessionStateRows(projectId: projectId, filter: filter, page: nil, names: names, sessions: sessions)))
            GROUP BY session_key
            """
    }

    /// Dwell histograms per page and bucket (``DwellHistogram``): each view's dwell is the
    /// duration of the leave of its page that follows it, else the gap to the next view capped
    /// (``SessionTimeline/dwells(cap:)``), whichever comes first; a last view has none.
    func rollupDwell(projectId: Int64, filter: ReportFilter, sessions: Sessions = .inRange)
        -> ClickHouseQuery<(page: String, bucket: Int64, count: Int64, total: Int64)>
    {
        let sql = """
            SELECT page, \(Self.bucket("milliseconds")) AS bucket, count(), sum(milliseconds), sum(toFloat64(milliseconds))
            FROM (\(dwells(projectId: projectId, filter: filter, sessions: sessions, carried: .filtered)))
            GROUP BY page, bucket
            """
        return ClickHouseQuery(sql, fields: 5) { row throws(ServerError) in
            (row.string(0), try row.int64(1), try row.int64(2), try row.sum(exact: 3, approximate: 4))
        }
    }

    /// Each view's dwell on `filter`'s days (``rollupDwell(projectId:filter:sessions:)``):
    /// `page, day, milliseconds`, then what `carried` names (``carriedColumns(_:filter:)``).
    func dwells(projectId: Int64, filter: ReportFilter, sessions: Sessions, carried: Carried) -> String {
        let columns = Self.carriedColumns(carried, filter: filter)
        var conditions = sessionConditions(filter: filter)
        conditions.append("milliseconds >= 0")
        if let page = filter.page { conditions.append("page = \(ClickHouseFormat.literal(page))") }
        // The views and, after each, the first leave of its page before the next view (`timed`):
        // a mark's segment counts the views up to it (its view first), and such a leave is the
        // second mark of its segment and page (`u`, the view the first) and the first leave of
        // them (`w`): the second leave of another page is not. The mark after a view in `timed`
        // ends its dwell: its leave, else the next view; `(0, 0, 0, '', 0, 0)` after the last one.
        let (view, leave, none) = (Code.view.rawValue, Code.leave.rawValue, Code.none.rawValue)
        // The fields of a mark `m`, of the mark `n` after it and of any mark `x`.
        func m(_ field: Mark) -> String { field.of("m") }
        func n(_ field: Mark) -> String { field.of("n") }
        func x(_ field: Mark) -> String { field.of("x") }
        let segments = "arrayCumSum(arrayMap(x -> \(x(.code)) = \(view), marks))"
        let pages = "arrayMap(x -> \(x(.page)), marks)"
        let timed = """
            arrayFilter((m, s, u, w) -> \(m(.code)) = \(view) OR (\(m(.code)) = \(leave) AND s > 0 AND u = 2 AND w = 1),
                marks, \(segments), arrayEnumerateUniq(\(segments), \(pages)),
                arrayEnumerateUniq(\(segments), \(pages), arrayMap(x -> \(x(.code)), marks)))
            """
        let end = "(\(Mark.allCases.map(\.zero).joined(separator: ", ")))"
        let dwell = """
            if(\(m(.code)) != \(view) OR \(n(.code)) = \(none), -1, if(\(n(.code)) = \(view), least(greatest(0, \(n(.time)) - \(m(.time))), \(dwellCap)), \(n(.duration))))
            """
        return """
            SELECT page, day, milliseconds\(columns) FROM (
                SELECT dwell.1 AS page, dwell.2 AS day, dwell.3 AS milliseconds\(columns) FROM (
                    SELECT arrayMap((m, n) -> (\(m(.page)), \(m(.day)), \(dwell)), timed,
                        arraySlice(arrayPushBack(timed, \(end)), 2)) AS dwells\(columns)
                    FROM (
                        SELECT \(timed) AS timed\(columns)
                        FROM (\(sessionMarks(projectId: projectId, filter: filter, sessions: sessions, carried: carried)))
                    )
                ) ARRAY JOIN dwells AS dwell
            ) WHERE \(conditions.joined(separator: " AND "))
            """
    }

    /// Page-to-page moves from views on `filter`'s days (``SessionTimeline/moves()``): each
    /// view to the next view of its session, the last to `''` (the session's end).
    func rollupMoves(
        projectId: Int64, filter: ReportFilter, from page: String?, sessions: Sessions = .inRange
    )
        -> ClickHouseQuery<RollupMove>
    {
        let sql = """
            SELECT from_page, to_page, count()
            FROM (\(moves(projectId: projectId, filter: filter, from: page, sessions: sessions, carried: .filtered)))
            GROUP BY from_page, to_page
            """
        return ClickHouseQuery(sql, fields: 3) { row throws(ServerError) in
            let next = row.string(1)
            return RollupMove(from: row.string(0), to: next.isEmpty ? nil : next, count: try row.int(2))
        }
    }

    /// Each move from a view on `filter`'s days (from `page`'s views only with one):
    /// `from_page, to_page, day`, then what `carried` names (``carriedColumns(_:filter:)``).
    func moves(
        projectId: Int64, filter: ReportFilter, from page: String?, sessions: Sessions, carried: Carried
    ) -> String {
        let columns = Self.carriedColumns(carried, filter: filter)
        var conditions = sessionConditions(filter: filter)
        if let page { conditions.append("from_page = \(ClickHouseFormat.literal(page))") }
        return """
            SELECT from_page, to_page, day\(columns) FROM (
                SELECT move.1 AS from_page, move.2 AS to_page, move.3 AS day\(columns) FROM (
                    SELECT arrayMap((v, next) -> (\(Mark.page.of("v")), next, \(Mark.day.of("v"))), views,
                        arraySlice(arrayPushBack(arrayMap(x -> \(Mark.page.of("x")), views), ''), 2)) AS moves\(columns)
                    FROM (
                        SELECT arrayFilter(x -> \(Mark.code.of("x")) = \(Code.view.rawValue), marks) AS views\(columns)
                        FROM (\(sessionMarks(projectId: projectId, filter: filter, sessions: sessions, carried: carried)))
                    )
                ) ARRAY JOIN moves AS move
            ) WHERE \(conditions.joined(separator: " AND "))
            """
    }

    /// The columns of a session ``sessionMarks(projectId:filter:sessions:carried:)`` gives
    /// besides its marks, which the reads of them carry: `, app` and `, os` when `filter` has them
    /// (for ``sessionConditions(filter:)``), both whatever it has with ``Carried/every``, and
    /// `, session_hash` too with ``Carried/everyBySession``.
    static func carriedColumns(_ carried: Carried, filter: ReportFilter) -> String {
        switch carried {
        case .filtered: (filter.appVersion != nil ? ", app" : "") + (filter.os != nil ? ", os" : "")
        case .every: ", app, os"
        case .everyBySession: ", app, os, session_hash"
        }
    }

    /// ``DwellHistogram/bucket(of:)`` in SQL: the value below 16, else 16 buckets per power of
    /// two. The power is `log2` of the value (at least 16 in that branch, so every shift stays in
    /// range), then put right exactly with integer shifts where the floating point was one off.
    static func bucket(_ value: String) -> String {
        let atLeast16 = "greatest(\(value), 16)"
        let estimate = "least(greatest(toInt64(log2(toFloat64(\(atLeast16)))), 4), 62)"
        let exponent = """
            (\(estimate) - toInt64(bitShiftLeft(toInt64(1), \(estimate)) > \(atLeast16))
                + toInt64(\(estimate) < 62 AND bitShiftLeft(toInt64(1), \(estimate) + 1) <= \(atLeast16)))
            """
        return """
            if(\(value) < 16, greatest(0, \(value)),
                16 + (\(exponent) - 4) * 16 + bitAnd(bitShiftRight(\(atLeast16), \(exponent) - 4), 15))
            """
    }
}

extension SessionTimeline.StoredMark.Field {
    /// This field of the tuple `tuple` in SQL (`m.3`).
    func of(_ tuple: String) -> String { "\(tuple).\(rawValue)" }

    /// The column of `events_local` it is taken from.
    var column: String {
        switch self {
        case .time: "time"
        case .sequence: "sequence"
        case .code: "mark"
        case .page: "mark_page"
        case .duration: "mark_duration"
        case .day: "day"
        }
    }

    /// Its ClickHouse type.
    var type: String {
        switch self {
        case .time, .duration, .day: "Int64"
        case .sequence: "UInt64"
        case .code: "UInt8"
        case .page: "String"
        }
    }

    /// Its value in the tuple past a timeline's last mark (code ``SessionTimeline/MarkCode/none``).
    var zero: String {
        switch self {
        case .page: "''"
        case .code: "toUInt8(\(SessionTimeline.MarkCode.none.rawValue))"
        default: "to\(type)(0)"
        }
    }
}
