import FootprintWire

/// The people reads: distinct people per key or selection, activity, visitors and retention,
/// each person resolved as the reports resolve it.
extension ClickHouseSQL {
    /// Each anonymous id's user id (the smallest linked, as ``identityLinks(projectId:)``) and a mark that
    /// it has one: `device, linked, is_linked`, joined `USING device`; only those of the devices
    /// `among` lists (a subquery of one column) when given. With `ofShard`, each shard's own
    /// (`identities_local`), for a join each shard runs on its own rows: a device's links are
    /// on the shard of its events and of every row derived from them (both tables are sharded by
    /// `cityHash64(project_id, …)` of the same id), so its smallest linked user id is found there.
    func links(projectId: Int64, among devices: String? = nil, ofShard: Bool = false) -> String {
        let among = devices.map { " AND anonymous_id GLOBAL IN (\($0))" } ?? ""
        let table = ofShard ? Tables.local.identities : tables.identities
        return """
            SELECT anonymous_id AS device, min(user_id) AS linked, toUInt8(1) AS is_linked
            FROM \(database).\(table) WHERE project_id = \(projectId)\(among) GROUP BY anonymous_id
            """
    }

    /// A row's person, as the reports resolve it: its user id, else its device's linked user id
    /// (the smallest), else its device (``RollupPersonDays/person``).
    static let person = "if(user_id != '', user_id, if(is_linked = 1, linked, device))"

    /// The conditions on `day` that keep the days ``RollupReports`` counts for `filter`.
    static func rangeConditions(_ filter: ReportFilter) -> [String] {
        let (first, count) = RollupReports.days(of: filter)
        return ["day >= \(first)", "day < \(first &+ Int64(count))"]
    }

    /// The rows a people read groups (``peopleParts(projectId:filter:items:groups:states:rows:)``).
    enum PersonRows {
        /// `person_days`: a row per day, page, app version and OS of a person's.
        case days
        /// `person_blocks`: a row per 64-day block of a person's, its days a mask; for a range of
        /// 1…``maskedDays`` days, a filter that names no page, app version or OS, and kinds it
        /// keeps (``of(_:kinds:)``).
        case blocks
        /// Another table (`step_times`), the role of the contributions it keeps and the conditions
        /// on its rows' `day` and `time`.
        case other(table: String, role: Int, range: [String])
        /// `touched_rows`' rows written after a round's cutoff (a shard's time in seconds), of
        /// the range's days; for the devices with a redundant copy among them, their counted
        /// events of the range. With `linksSent`, the links of their devices are the table
        /// ``ClickHouseSQL/linksSinceTable`` sent with the read, else read in it.
        case touchedAfter(cutoff: Int64, linksSent: Bool)

        /// `person_blocks` where they hold what a read of `kinds` for `filter` asks, else
        /// `person_days`.
        static func of(_ filter: ReportFilter, kinds: Set<RollupKind>) -> PersonRows {
            let (_, count) = RollupReports.days(of: filter)
            return !filter.namesPageVersionOrOS && count >= 1 && count <= maskedDays
                && kinds.isSubset(of: ClickHouseSQL.blockKinds) ? .blocks : .days
        }
    }

    /// Stands for a row's days of the range as a mask in the states of
    /// ``peopleParts(projectId:filter:items:groups:states:rows:)`` (bit `n`: day `n` of the range):
    /// each part puts its own expression there (``dayBit(_:)`` on rows of one day,
    /// ``blockDays(_:)`` on `person_blocks`).
    static let rangeDays = "{range_days}"

    /// The people who did something of `kind` (keys among `keys`) on the range's days, with the
    /// range's other filters, as rows of `state` (an aggregate state over each group's rows,
    /// `state` in the rows), grouped by `groups` (among `key`, `day` and `person`): from
    /// `person_days` or `person_blocks` (`rows`), and for the devices with a redundant copy from
    /// their counted events. The caller merges the two parts.
    func peopleParts(
        projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?, groups: [String],
        state: String, rows: PersonRows = .days
    ) -> String {
        var items = ["kind = \(kind.rawValue)"]
        if let keys { items.append("key IN (\(Self.list(keys)))") }
        return peopleParts(
            projectId: projectId, filter: filter, items: items, groups: groups, states: [(state, "state")],
            rows: rows)
    }

    /// ``peopleParts(projectId:filter:kind:keys:groups:state:rows:)`` of the rows with `items`'
    /// conditions (on kind and key, and on page unless `rows` is ``PersonRows/blocks``), with
    /// several states, each `expression AS name` (a state of some of the rows only is an
    /// `…StateIf` on their kind or key; ``rangeDays`` in an expression is the row's days of the
    /// range); a group may be an expression `… AS name`.
    func peopleParts(
        projectId: Int64, filter: ReportFilter, items: [String], groups: [String],
        states: [(expression: String, name: String)], rows source: PersonRows = .days
    ) -> String {
        let days = Self.rangeConditions(filter)
        let blockDays = Self.blockDays(filter)
        let (table, role, range, rowDays): (String, Int, [String], String) =
            switch source {
            case .days: (tables.personDays, 2, days, Self.dayBit(filter))
            case .blocks:
                (tables.personBlocks, 2, Self.blockRange(filter) + ["\(blockDays) != 0"], blockDays)
            case .other(let table, let role, let range): (table, role, range, Self.dayBit(filter))
            case .touchedAfter(let cutoff, _):
                (tables.touchedRows, 2, days + ["touched > \(cutoff)"], Self.dayBit(filter))
            }
        // The rows written since are of few devices: the links of those only, sent with the read
        // when they were looked up (each shard has them: no subquery to run first), else read.
        let sent = "ANY LEFT JOIN \(Self.linksSinceTable.name) AS links USING device"
        let (tableJoin, join): (String, String) =
            switch source {
            case .touchedAfter(_, linksSent: true): (sent, sent)
            case .touchedAfter(let cutoff, linksSent: false):
                Self.joins(
                    links(projectId: projectId, among: devicesSince(projectId: projectId, cutoff: cutoff)))
            case .days, .blocks, .other:
                // Every link of the project: each shard joins its own rows to its own links, not
                // to all of them read and sent by the initiator (10M events: 25–50 ms less a read,
                // 250–300 ms the traffic without a round). The events of the devices with a
                // redundant copy are joined after their read, on the initiator: to every link.
                (
                    Self.joins(links(projectId: projectId, ofShard: true)).local,
                    Self.joins(links(projectId: projectId)).local
                )
            }
        let eventRange: [String] =
            switch source {
            case .other(_, _, let range): range
            case .touchedAfter(let cutoff, _):
                // Each shard's own: a device's rows and events are on one shard.
                days + [
                    """
                    device IN (SELECT device FROM \(database).touched_rows_local
                        WHERE project_id = \(projectId) AND touched > \(cutoff))
                    """
                ]
            case .days, .blocks: days
            }
        let columns = groups.map { $0 == "person" ? "\(Self.person) AS person" : $0 }
        let names = groups.map { $0.components(separatedBy: " AS ").last ?? $0 }
        func select(_ days: String) -> String {
            let aggregates = states.map {
                "\($0.expression.replacingOccurrences(of: Self.rangeDays, with: days)) AS \($0.name)"
            }
            return (columns + aggregates).joined(separator: ", ")
        }
        let group = groups.isEmpty ? "" : "GROUP BY \(names.joined(separator: ", "))"
        let aggregate =
            aggregateConditions(projectId: projectId, filter: filter, days: false, people: true) + items
            + range
        let rows =
            rollupConditions(
                projectId: projectId, filter: filter, days: false, copies: .countedOfRedundantDevices)
            + eventRange
        return """
            SELECT \(select(rowDays)) FROM \(database).\(table)
                \(tableJoin)
            PREWHERE \(aggregate.joined(separator: " AND "))
            \(group)
            UNION ALL
            SELECT \(select(Self.dayBit(filter))) FROM (
                SELECT kind, key, ifNull(page, '') AS page, day, time, device, ifNull(user_id, '') AS user_id
                \(contributions(rows: rows, items: items, role: role))
            ) AS raw \(join)
            \(group)
            """
    }

    /// The joins of the links `linked` (a subquery), `USING device`: `global` for a read of a
    /// `Distributed` table's rows (the initiator reads them and sends them to each shard),
    /// `local` for a subquery's rows, or for a `Distributed` table's when each shard reads its
    /// own links (``links(projectId:among:ofShard:)``).
    private static func joins(_ linked: String) -> (global: String, local: String) {
        (
            "GLOBAL ANY LEFT JOIN (\(linked)) AS links USING device",
            "ANY LEFT JOIN (\(linked)) AS links USING device"
        )
    }

    /// The most days of a range ``activePeople(projectId:filter:)`` and the visitor reads take:
    /// each person's days are one 64-bit mask.
    static let maskedDays = 64

    /// Each person's days of ``peopleParts(projectId:filter:kind:keys:groups:state:rows:)``
    /// as a mask (bit `n`: day `n` of the range, at most ``maskedDays``): `person, mask`.
    func personMasks(
        projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>? = nil
    )
        -> String
    {
        let parts = peopleParts(
            projectId: projectId, filter: filter, kind: kind, keys: keys, groups: ["person"],
            state: "groupBitOrState(\(Self.rangeDays))", rows: .of(filter, kinds: [kind]))
        return "SELECT person, groupBitOrMerge(state) AS mask FROM (\(parts)) GROUP BY person"
    }

    /// A row's day as the bit of its mask (``personMasks(projectId:filter:kind:keys:)``).
    static func dayBit(_ filter: ReportFilter) -> String {
        "bitShiftLeft(toUInt64(1), toUInt64(day - \(RollupReports.days(of: filter).first)))"
    }

    /// The conditions on `day_block` that keep the blocks of the range's days (at most
    /// ``maskedDays``: two blocks at most).
    static func blockRange(_ filter: ReportFilter) -> [String] {
        let (first, count) = RollupReports.days(of: filter)
        return ["day_block >= \(first >> 6)", "day_block <= \((first &+ Int64(max(1, count)) &- 1) >> 6)"]
    }

    /// A `person_blocks` row's days of the range as a mask (bit `n`: day `n` of the range): its
    /// block's mask moved by the block's first day's distance from the range's, the days outside
    /// the range left out. For the blocks of ``blockRange(_:)``, whose distance is under 64 either
    /// way.
    static func blockDays(_ filter: ReportFilter) -> String {
        let (first, count) = RollupReports.days(of: filter)
        let range = rangeBits(count)
        let days = "finalizeAggregation(days)"
        return """
            bitAnd(if(day_block * 64 >= \(first), bitShiftLeft(\(days), toUInt64(day_block * 64 - \(first))),
                bitShiftRight(\(days), toUInt64(\(first) - day_block * 64))), toUInt64(\(range)))
            """
    }

    /// The bits of a range of `count` days in a mask (bit `n`: day `n`), at most 64.
    static func rangeBits(_ count: Int) -> UInt64 {
        count >= 64 ? UInt64.max : (UInt64(1) << UInt64(max(0, count))) - 1
    }

    /// The days of the range among the `window` days from each day of `mask` on
    /// (``RangeDays/peoplePerDay(window:)``), as a mask.
    static func covered(_ filter: ReportFilter, window: Int) -> String {
        let range = rangeBits(RollupReports.days(of: filter).count)
        var covered = "mask"
        for shift in stride(from: 1, to: min(window, 64), by: 1) {
            covered = "bitOr(\(covered), bitShiftLeft(mask, \(shift)))"
        }
        return "bitAnd(\(covered), toUInt64(\(range)))"
    }

    /// Whether mask `column` has day `d` (`1` or `0`). The reads take each person's row once per
    /// day of the range (`ARRAY JOIN range(N) AS d`) rather than in a lambda: 18.16 loses the
    /// subquery's columns that only a lambda inside an aggregate names.
    static func has(_ column: String) -> String { "bitAnd(bitShiftRight(\(column), d), 1)" }

    /// The distinct people per key (``EventStore/peopleCounts(projectId:filter:kind:keys:)``):
    /// `key, people`.
    func peopleCounts(projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?)
        -> ClickHouseQuery<(key: String, people: Int)>
    {
        let parts = peopleParts(
            projectId: projectId, filter: filter, kind: kind, keys: keys, groups: ["key"],
            state: "uniqExactState(\(Self.person))", rows: .of(filter, kinds: [kind]))
        let sql = "SELECT key, uniqExactMerge(state) FROM (\(parts)) GROUP BY key"
        return ClickHouseQuery(sql, fields: 2) { row throws(ServerError) in
            (row.string(0), try row.int(1))
        }
    }

    /// Per day of the range (`d`, from 0): the people active in the range (the same on every
    /// row), and those active that day, in the 7 and in the 30 days ending there:
    /// `d, people, daily, weekly, monthly`. For ranges of at most ``maskedDays``.
    func activePeople(projectId: Int64, filter: ReportFilter)
        -> ClickHouseQuery<(day: Int, people: Int, daily: Int, weekly: Int, monthly: Int)>
    {
        let (_, count) = RollupReports.days(of: filter)
        let sql = """
            SELECT d, count(), sum(\(Self.has("daily"))), sum(\(Self.has("weekly"))), sum(\(Self.has("monthly")))
            FROM (
                SELECT \(Self.covered(filter, window: 1)) AS daily, \(Self.covered(filter, window: 7)) AS weekly,
                    \(Self.covered(filter, window: 30)) AS monthly
                FROM (\(personMasks(projectId: projectId, filter: filter, kind: .anyEvent))))
            ARRAY JOIN range(\(count)) AS d
            GROUP BY d
            """
        return ClickHouseQuery(sql, fields: 5) { row throws(ServerError) in
            (try row.int(0), try row.int(1), try row.int(2), try row.int(3), try row.int(4))
        }
    }

    /// The distinct people of each of `selections` (rows of any of its selectors' kind, key and
    /// page): `selection, people`, the selection's index from 1.
    func peopleCounts(projectId: Int64, filter: ReportFilter, selections: [Set<RollupReports.PeopleSelector>])
        -> ClickHouseQuery<(selection: Int, people: Int)>
    {
        func tuple(_ selector: RollupReports.PeopleSelector) -> String {
            let key = ClickHouseFormat.literal(selector.key)
            return "(\(selector.kind.rawValue), \(key), \(ClickHouseFormat.literal(selector.page)))"
        }
        // A selection of many selectors (a definition over thousands of pages) is one set
        // lookup per row, not a comparison per selector; one selector stays a comparison (a
        // single tuple in parentheses would be read as the set of its three values).
        func matches(_ selection: Set<RollupReports.PeopleSelector>) -> String {
            let tuples = selection.map(tuple).sorted()
            return tuples.count == 1
                ? "(kind, key, page) = \(tuples[0])"
                : "(kind, key, page) IN (\(tuples.joined(separator: ", ")))"
        }
        let each = selections.enumerated().map { index, selection in
            selection.isEmpty ? "0" : "if(\(matches(selection)), \(index + 1), 0)"
        }
        let parts = peopleParts(
            projectId: projectId, filter: filter,
            items: [Self.keys(selections.flatMap { $0 }.map { ($0.kind, $0.key) })],
            groups: ["arrayJoin(arrayFilter(x -> x > 0, [\(each.joined(separator: ", "))])) AS selection"],
            states: [("uniqExactState(\(Self.person))", "state")])
        let sql = "SELECT selection, uniqExactMerge(state) FROM (\(parts)) GROUP BY selection"
        return ClickHouseQuery(sql, fields: 2) { row throws(ServerError) in
            (try row.int(0), try row.int(1))
        }
    }

    /// The counts of visitors ``visitors(projectId:filter:)`` gives, each row tagged with its own.
    enum VisitorCount: Int64, CaseIterable {
        /// Of any page on a day.
        case perDay = 0
        /// Of a page on a day.
        case perPageAndDay = 1
        /// Of a page over the range.
        case perPage = 2
    }

    /// The visitors of the range's days in one read of the page views' people: per day, of any
    /// page (``VisitorCount/perDay``, `'', day, visitors`); per page and day
    /// (``VisitorCount/perPageAndDay``, `page, day, visitors`); and per page over the range
    /// (``VisitorCount/perPage``, `page, -1, visitors`, its
    /// ``peopleCounts(projectId:filter:kind:keys:)``). `day` is since 1970. The people of each
    /// page and day are merged once, then into each of the three.
    func visitors(projectId: Int64, filter: ReportFilter)
        -> ClickHouseQuery<(count: VisitorCount, page: String, day: Int64, visitors: Int)>
    {
        let pages = peopleParts(
            projectId: projectId, filter: filter, kind: .pageViews, keys: nil, groups: ["key", "day"],
            state: "uniqExactState(\(Self.person))")
        let (perDay, perPage) = (VisitorCount.perDay.rawValue, VisitorCount.perPage.rawValue)
        let tags = VisitorCount.allCases.map { "toUInt8(\($0.rawValue))" }
            .joined(separator: ", ")
        let sql = """
            SELECT tag, of_page, of_day, uniqExactMerge(state) FROM (
                SELECT tag, if(tag = \(perDay), '', key) AS of_page, if(tag = \(perPage), toInt64(-1), day) AS of_day, state
                FROM (SELECT key, day, uniqExactMergeState(state) AS state FROM (\(pages)) GROUP BY key, day)
                ARRAY JOIN [\(tags)] AS tag)
            GROUP BY tag, of_page, of_day
            """
        return ClickHouseQuery(sql, fields: 4) { row throws(ServerError) in
            guard let count = VisitorCount(rawValue: try row.int64(0)) else {
                throw row.unreadable(0, as: "0, 1 or 2")
            }
            return (count, row.string(1), try row.int64(2), try row.int(3))
        }
    }

    /// Retention cohorts (``RollupReports/retention(active:returns:returnEvent:days:filter:)``):
    /// `first, n, people, returned` per first active day (an offset in the range) and day `n`
    /// (`0…days`) after it inside the range; `returned` counts those active again (or doing
    /// `returnEvent`, a track event) on that day. For ranges of at most ``maskedDays``.
    func retention(projectId: Int64, filter: ReportFilter, returnEvent: String?, days: Int)
        -> ClickHouseQuery<CohortRow>
    {
        let masks: String
        if let returnEvent {
            // Both masks of each person from one grouping of the rows of either kind.
            let (active, returns) = (RollupKind.anyEvent.rawValue, RollupKind.trackEvents.rawValue)
            let parts = peopleParts(
                projectId: projectId, filter: filter,
                items: [
                    "(kind = \(active) OR (kind = \(returns) AND key = \(ClickHouseFormat.literal(returnEvent))))"
                ],
                groups: ["person"],
                states: [
                    ("groupBitOrStateIf(\(Self.rangeDays), kind = \(active))", "active_state"),
                    ("groupBitOrStateIf(\(Self.rangeDays), kind = \(returns))", "returned_state"),
                ], rows: .of(filter, kinds: [.anyEvent, .trackEvents]))
            masks = """
                SELECT person, groupBitOrMerge(active_state) AS active, groupBitOrMerge(returned_state) AS returned
                FROM (\(parts)) GROUP BY person
                """
        } else {
            masks = """
                SELECT person, mask AS active, mask AS returned
                FROM (\(personMasks(projectId: projectId, filter: filter, kind: .anyEvent)))
                """
        }
        return Self.cohorts(of: masks, filter: filter, days: days)
    }

    /// A retention cohort's row: `first, n, people, returned` (see
    /// ``retention(projectId:filter:returnEvent:days:)``).
    typealias CohortRow = (first: Int, n: Int, people: Int, returned: Int)

    /// The cohorts of `masks` (a subquery of `active, returned`, one row one person, each the
    /// person's days of `filter`'s range, at most ``maskedDays``), per first active day and day
    /// `n` (`0…days`) after it inside the range.
    static func cohorts(of masks: String, filter: ReportFilter, days: Int) -> ClickHouseQuery<CohortRow> {
        let (_, count) = RollupReports.days(of: filter)
        // A mask's first day: the power of two of its lowest bit (exact in a double).
        let sql = """
            SELECT first, n, count(), sum(bitAnd(bitShiftRight(returned, first + n), 1)) FROM (
                SELECT toUInt64(log2(bitAnd(active, bitNot(active) + 1))) AS first, returned
                FROM (\(masks)) WHERE active != 0)
            ARRAY JOIN range(\(max(0, days) + 1)) AS n
            WHERE first + n < \(count)
            GROUP BY first, n
            """
        return ClickHouseQuery(sql, fields: 4) { row throws(ServerError) in
            (try row.int(0), try row.int(1), try row.int(2), try row.int(3))
        }
    }
}
