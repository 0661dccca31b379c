import FootprintWire

/// The funnel read: each person's step hits walked in array functions.
extension ClickHouseSQL {
    /// The people per step of a funnel (``EventStore/funnelPeople(projectId:filter:sources:stepCount:windowMilliseconds:)``):
    /// one row, `reached1, reached2, …`. Each person's hits are read from `step_times` (and for
    /// the devices with a redundant copy from their counted events) in `filter`'s exact range,
    /// each packed as `time * S + r`, `r` its step set's rank among the `S` of
    /// ``FunnelSources/stepSets``, so that one ascending sort puts them in funnel order
    /// (``FunnelHit/precedes(_:_:)``); ``funnelDepths(of:stepSets:stepCount:windowMilliseconds:)``
    /// then walks each person's. Ingest keeps times in `0…now + 1 day` and the sets are at most
    /// ``FunnelSources/maximumStepSets``, so the packing cannot overflow.
    func funnelPeople(
        projectId: Int64, filter: ReportFilter, sources: FunnelSources, stepCount: Int,
        windowMilliseconds window: Int64
    ) -> ClickHouseQuery<[Int]> {
        let sets = sources.stepSets
        var rank: [UInt64: Int] = [:]
        for (index, set) in sets.enumerated() { rank[set] = index }
        var branches: [String] = []
        for (source, steps) in sources.sources.sorted(by: {
            ($0.key.kind.rawValue, $0.key.key) < ($1.key.kind.rawValue, $1.key.key)
        }) {
            let match = "kind = \(source.kind.rawValue) AND key = \(ClickHouseFormat.literal(source.key))"
            // Each page named once: a defined step may match thousands.
            var pages: [Int: Set<String>] = [:]
            for (page, bits) in steps.onPage {
                if let index = rank[steps.onAnyPage | bits] { pages[index, default: []].insert(page) }
            }
            for (index, named) in pages.sorted(by: { $0.key < $1.key }) {
                branches.append("\(match) AND page IN (\(Self.list(named))), \(index)")
            }
            if let index = rank[steps.onAnyPage] { branches.append("\(match), \(index)") }
        }
        let ranked = branches.isEmpty ? "toInt64(-1)" : "multiIf(\(branches.joined(separator: ", ")), -1)"
        var range = Self.dayConditions(filter)
        if let from = filter.from { range.append("time >= \(from.millisecondsSince1970)") }
        if let to = filter.to { range.append("time < \(to.millisecondsSince1970)") }
        // The rank once per part (`AS ranked`); a row no step set takes (a page-limited source's
        // row on another page) is left out.
        let parts = peopleParts(
            projectId: projectId, filter: filter,
            items: [Self.keys(sources.sources.keys.map { ($0.kind, $0.key) })],
            groups: ["person"],
            states: [
                ("groupArrayIf(time * \(max(1, sets.count)) + (\(ranked) AS ranked), ranked >= 0)", "state")
            ],
            rows: .other(table: tables.stepTimes, role: 4, range: range))
        let hits = "SELECT arraySort(groupArrayArray(state)) AS hits FROM (\(parts)) GROUP BY person"
        let counts = (1...max(1, min(stepCount, 64))).map { "countIf(depth >= \($0))" }
        let sql = """
            SELECT \(counts.joined(separator: ", "))
            FROM (\(Self.funnelDepths(of: hits, stepSets: sets, stepCount: stepCount, windowMilliseconds: window)))
            """
        return ClickHouseQuery(sql, fields: max(1, min(stepCount, 64))) { row throws(ServerError) in
            try row.fields.indices.map { index throws(ServerError) in Int(max(0, try row.int64(index))) }
        }
    }

    /// Each person's deepest funnel step (`depth`, a count) beside the columns of `query`'s rows,
    /// each a person's packed hits ascending (`hits`, see
    /// ``funnelPeople(projectId:filter:sources:stepCount:windowMilliseconds:)``), as
    /// ``FunnelReport/depth(stepCount:hits:windowMilliseconds:)`` walks them.
    ///
    /// The walk keeps, for each step, the latest start of an attempt that has reached it so far
    /// (a later start leaves more of the window, so it is never worse), in arrays instead of a
    /// loop: for step `k`, `e_k` marks the hits that complete it for an attempt that reached step
    /// `k - 1` before them and is still in its window, `s_k` is per hit the start of the latest
    /// such attempt before it (`n_k` of them before it; the starts only grow, so the latest is
    /// the largest). The person reached step `k` when any hit is marked in `e_k`.
    /// - Parameter sets: the step sets the hits' ranks index, ascending.
    static func funnelDepths(
        of query: String, stepSets sets: [UInt64], stepCount: Int, windowMilliseconds window: Int64
    ) -> String {
        let count = max(1, sets.count)
        let span = min(max(window, -(1 << 61)), 1 << 61)
        var columns = [
            "arrayMap(h -> intDiv(h, \(count)), hits) AS t",
            "arrayMap(h -> [\((sets.isEmpty ? [0] : sets).map(String.init).joined(separator: ", "))][h % \(count) + 1], hits) AS b",
        ]
        let levels = max(1, min(stepCount, 64))
        for step in 0..<levels {
            let bit = "bitAnd(y, \(UInt64(1) << UInt64(step))) != 0"
            if step == 0 {
                columns += [
                    "arrayMap(y -> toUInt8(\(bit)), b) AS e0", "arrayFilter((x, e) -> e = 1, t, e0) AS v0",
                ]
            } else {
                columns += [
                    """
                    arrayMap((y, n, s, x) -> toUInt8(\(bit) AND n > 0 AND x <= s + \(span)), \
                    b, n\(step - 1), s\(step - 1), t) AS e\(step)
                    """,
                    "arrayFilter((s, e) -> e = 1, s\(step - 1), e\(step)) AS v\(step)",
                ]
            }
            if step + 1 < levels {
                columns += [
                    "arrayMap((c, e) -> c - e, arrayCumSum(e\(step)), e\(step)) AS n\(step)",
                    "arrayMap(n -> if(n > 0, v\(step)[n], 0), n\(step)) AS s\(step)",
                ]
            }
        }
        let depth = (0..<levels).map { "(arraySum(e\($0)) > 0)" }.joined(separator: " + ")
        return "SELECT *, \(columns.joined(separator: ",\n    ")),\n    \(depth) AS depth FROM (\(query))"
    }
}
