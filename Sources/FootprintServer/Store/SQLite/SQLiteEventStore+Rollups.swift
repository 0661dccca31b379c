import FootprintSQLite
import FootprintWire

extension SQLiteEventStore {
    /// The WHERE clause and values of a rollup query over `filter`'s dimensions, and its days
    /// when `dayColumn` is given.
    func rollupConditions(
        projectId: Int64, filter: ReportFilter, dayColumn: String? = "day", page: Bool = true
    ) -> (conditions: [String], values: [SQLiteValue]) {
        var conditions = ["project_id = ?1"]
        var values: [SQLiteValue] = [.integer(projectId)]
        func add(_ condition: String, _ value: SQLiteValue) {
            values.append(value)
            conditions.append(condition.replacingOccurrences(of: "?", with: "?\(values.count)"))
        }
        if let dayColumn, let from = filter.from { add("\(dayColumn) >= ?", .integer(from.dayNumber)) }
        if let dayColumn, let to = filter.to {
            add("\(dayColumn) < ?", .integer(to.adding(milliseconds: -1).dayNumber + 1))
        }
        if let version = filter.appVersion { add("app_version = ?", .text(version)) }
        if let os = filter.os { add("os = ?", .text(os)) }
        if page, let name = filter.page { add("page = ?", .text(name)) }
        return (conditions, values)
    }

    public func rollupCounts(projectId: Int64, filter: ReportFilter) throws(ServerError) -> [RollupCount] {
        try rollupCounts(projectId: projectId, filter: filter, kinds: Set(RollupKind.allCases))
    }

    /// The reads of ``countReads(projectId:filter:kinds:)``, the rows in day, kind and key order;
    /// from `rollup_totals` (a row per day, kind and key) unless `filter` names a page, app
    /// version or OS.
    public func rollupCounts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>)
        throws(ServerError) -> [RollupCount]
    {
        guard !kinds.isEmpty else { return [] }
        let (conditions, reads, _) = countReads(projectId: projectId, filter: filter, kinds: kinds)
        let table = filter.namesPageVersionOrOS ? "rollup_counts" : "rollup_totals"
        let sql = """
            SELECT day, kind, key, count FROM \(table) WHERE \(conditions.joined(separator: " AND "))
            ORDER BY day, kind, key
            """
        // Runs of the reads in order, in parallel: a group is never split between two reads.
        return try concurrently(Self.runs(of: reads)) { run throws(ServerError) in
            try dailyCounts(sql: sql, reads: run)
        }.flatMap { $0 }
    }

    /// The conditions and the values of each read that select the rows of `kinds` in `filter`,
    /// of `rollup_counts` or `rollup_totals`: one index range per day and kind when the range
    /// has both ends and at most ``seekedDays`` days (both tables are keyed by day, then kind, so
    /// the kinds not asked for are never read; `perDayAndKind`), else one range over the days
    /// that skips the other kinds.
    private func countReads(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>) -> (
        conditions: [String], reads: [[SQLiteValue]], perDayAndKind: Bool
    ) {
        let some = kinds.count < RollupKind.allCases.count
        var (conditions, values) = rollupConditions(projectId: projectId, filter: filter)
        if some, let from = filter.from?.dayNumber,
            let end = filter.to.map({ $0.adding(milliseconds: -1).dayNumber + 1 }),
            end - from <= Self.seekedDays
        {
            (conditions, values) = rollupConditions(projectId: projectId, filter: filter, dayColumn: nil)
            conditions += ["day = ?\(values.count + 1)", "kind = ?\(values.count + 2)"]
            let numbers = kinds.map(\.rawValue).sorted()
            let reads = (from..<max(from, end)).flatMap { day in
                numbers.map { values + [.integer(day), .integer($0)] }
            }
            return (conditions, reads, true)
        }
        if some { conditions.append(RollupKind.sqlCondition(kinds)) }
        return (conditions, [values], false)
    }

    /// The daily counts `sql` reads with each of `reads` bound in turn, in the order read.
    private func dailyCounts(sql: String, reads: [[SQLiteValue]]) throws(ServerError) -> [RollupCount] {
        try read { database in
            // In primary-key order a group's rows are adjacent: summed here as `total()` sums
            // them (``SQLiteTotal``), without SQLite's per-row grouping (5× the plain scan).
            let statement = try database.prepare(sql)
            var counts: [RollupCount] = []
            var group: (day: Int64, kind: Int64, sum: SQLiteTotal)?
            var key: [UInt8] = []
            func finish() {
                guard let group else { return }
                counts.append(
                    RollupCount(
                        day: group.day, kind: RollupKind(rawValue: group.kind) ?? .otherEvents,
                        key: String(decoding: key, as: UTF8.self), count: Int(group.sum.atLeastZero)))
            }
            for values in reads {
                try statement.bind(values)
                defer { statement.reset() }
                while try statement.step() {
                    let day = statement.int64(at: 0)
                    let kind = statement.int64(at: 1)
                    let same =
                        group.map { group in
                            group.day == day && group.kind == kind
                                && statement.withBlob(at: 2) { $0.elementsEqual(key) }
                        } ?? false
                    if !same {
                        finish()
                        group = (day, kind, SQLiteTotal())
                        key.removeAll(keepingCapacity: true)
                        statement.withBlob(at: 2) { key.append(contentsOf: $0) }
                    }
                    group?.sum.add(statement.int64(at: 3))
                }
            }
            finish()
            return counts
        }
    }

    public func rollupPageCounts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>, texts: Bool)
        throws(ServerError) -> [RollupPageCount]
    {
        guard !kinds.isEmpty else { return [] }
        let (conditions, reads, perDayAndKind) = countReads(
            projectId: projectId, filter: filter, kinds: kinds)
        // Within one day and kind, the groups follow the primary key: no sorting in SQLite.
        let sql = """
            SELECT kind, key, page, day, \(Self.countSum("count")), \(texts ? "max(detail)" : "NULL") FROM rollup_counts
            WHERE \(conditions.joined(separator: " AND ")) GROUP BY \(perDayAndKind ? "key, page" : "kind, key, page, day")
            """
        return try concurrently(Self.runs(of: reads)) { run throws(ServerError) in
            try read { database in
                let statement = try database.prepare(sql)
                return try run.flatMap { values in
                    try statement.rows(values) { row in
                        RollupPageCount(
                            kind: RollupKind(rawValue: row.int64(at: 0)) ?? .otherEvents,
                            key: row.text(at: 1) ?? "",
                            page: row.text(at: 2) ?? "", day: row.int64(at: 3), count: Int(row.int64(at: 4)),
                            text: row.text(at: 5))
                    }
                }
            }
        }.flatMap { $0 }
    }

    /// The person rows of the labelled day sets (`person_label_sets`): per key, 64-day block,
    /// person (a number, its links applied) and, with `pages` ``RollupPersonDays/Pages/each``,
    /// page.
    public func rollupPersonDays(
        projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?,
        pages: RollupPersonDays.Pages
    ) throws(ServerError) -> [RollupPersonDays] {
        if let keys, keys.isEmpty { return [] }
        var (conditions, values) = rollupConditions(projectId: projectId, filter: filter)
        values.append(.integer(kind.rawValue))
        conditions.append("kind = ?\(values.count)")
        // With keys: one index range per key, and the key (often a long path) is not read back.
        let keyParameter = values.count
        if keys != nil {
            values.append(.null)
            conditions.append("key = ?\(values.count)")
        }
        let sql = """
            SELECT key, day, role, members, page FROM person_label_sets
            WHERE \(conditions.joined(separator: " AND "))
            """
        let bound = values
        let eachPage = pages == .each
        struct Row: Hashable {
            var key: String, block: Int64, person: UInt32, page: String
        }
        // Several keys: runs of keys read in parallel, each run on its own connection.
        let runs = keys.map { Self.runs(of: $0.sorted().map(Optional.some)) } ?? [[nil]]
        return try concurrently(runs) { (run: [String?]) throws(ServerError) -> [RollupPersonDays] in
            var values = bound
            return try readSets(projectId: projectId) { database, merges in
                guard let merges else {
                    throw ServerError(
                        code: .storage, message: "the people's identity links are still being built")
                }
                let statement = try database.prepare(sql)
                var rows: [Row: UInt64] = [:]
                for key in run {
                    if let key { values[keyParameter] = .text(key) }
                    try statement.bind(values)
                    defer { statement.reset() }
                    while try statement.step() {
                        let day = statement.int64(at: 1)
                        guard let set = statement.withBlob(at: 3, { PersonSet(encoded: $0) }) else {
                            throw ServerError(
                                code: .storage,
                                message:
                                    "a stored set of people (day \(day)) cannot be read; the next event of that day counts it again"
                            )
                        }
                        let anonymous = statement.int64(at: 2) == 1
                        let rowKey = key ?? statement.text(at: 0) ?? ""
                        let page = eachPage ? statement.text(at: 4) ?? "" : ""
                        let bit = UInt64(1) << UInt64(day & 63)
                        for member in set.members {
                            let person = anonymous ? merges.person(ofAnonymous: member) : member
                            rows[Row(key: rowKey, block: day >> 6, person: person, page: page), default: 0] |=
                                bit
                        }
                    }
                }
                return rows.map { row, days in
                    RollupPersonDays(
                        key: row.key, firstDay: row.block << 6, person: String(row.person), page: row.page,
                        days: days)
                }
            }
        }.flatMap { $0 }
    }

    /// The most days ``rollupCounts(projectId:filter:kinds:)`` reads one by one: ten years.
    static let seekedDays: Int64 = 3_660

    /// The SQL sum of a count column over a group, never below 0: `total()` (a REAL, so that
    /// rows summing past `Int64.max` cannot fail the query as `sum()` would), read back with
    /// `int64(at:)`, which holds it within `Int64`.
    static func countSum(_ column: String) -> String { "max(0, total(\(column)))" }

    /// `items` in as many runs as there are cores, in order.
    private static func runs<Item>(of items: [Item]) -> [[Item]] {
        runs(count: items.count).map { Array(items[$0]) }
    }

    /// `0..<count` in as many runs as there are cores, in order.
    static func runs(count: Int) -> [Range<Int>] {
        let size = max(1, (count + concurrentReads - 1) / concurrentReads)
        return stride(from: 0, to: count, by: size).map { $0..<min(count, $0 + size) }
    }

    public func sessionFigures(projectId: Int64, filter: ReportFilter) throws(ServerError) -> SessionFigures {
        SessionFigures(try storedSessions(projectId: projectId, filter: filter))
    }

    /// The sessions ``sessionFigures(projectId:filter:)`` sums up. A range of at most
    /// ``seekedDays`` days is read in runs of days side by side (both indexes are keyed by day after
    /// the project, and page), each run on its own connection.
    func storedSessions(projectId: Int64, filter: ReportFilter) throws(ServerError) -> [StoredSession] {
        var (conditions, values) = rollupConditions(projectId: projectId, filter: filter, dayColumn: nil)
        let table =
            filter.page == nil
            ? "sessions INDEXED BY sessions_by_day" : "session_pages INDEXED BY session_pages_by_page"
        let first = filter.from?.dayNumber ?? .min
        let end = filter.to.map { $0.adding(milliseconds: -1).dayNumber + 1 } ?? .max
        guard first < end else { return [] }
        let (span, overflow) = end.subtractingReportingOverflow(first)
        let runs =
            !overflow && span <= Self.seekedDays
            ? Self.runs(of: Array(first..<end)).map { $0[0]..<$0[$0.count - 1] + 1 } : [first..<end]
        values += [.null, .null]
        conditions += ["day >= ?\(values.count - 1)", "day < ?\(values.count)"]
        let sql = """
            SELECT max(0, end_time - start_time), max(0, page_views) FROM \(table)
            WHERE \(conditions.joined(separator: " AND "))
            """
        let bound = values
        return try concurrently(runs) { (days: Range<Int64>) throws(ServerError) -> [StoredSession] in
            var values = bound
            values[values.count - 2] = .integer(days.lowerBound)
            values[values.count - 1] = .integer(days.upperBound)
            return try read { database in
                try database.prepare(sql).rows(values) { row in
                    StoredSession(lengthMilliseconds: row.int64(at: 0), pageViews: Int(row.int64(at: 1)))
                }
            }
        }.flatMap { $0 }
    }

    public func rollupDwell(projectId: Int64, filter: ReportFilter) throws(ServerError) -> [String:
        DwellHistogram]
    {
        let (conditions, values) = rollupConditions(projectId: projectId, filter: filter)
        // Summed here per page and bucket as `total()` sums them (``SQLiteTotal``), in the order
        // of the rows: a GROUP BY that does not follow the key sorts every row first.
        let sums = try read { database in
            let statement = try database.prepare(
                """
                SELECT page, bucket, count, total FROM rollup_dwell
                WHERE \(conditions.joined(separator: " AND ")) ORDER BY day, page, app_version, os, bucket
                """)
            try statement.bind(values)
            defer { statement.reset() }
            typealias Bin = (count: SQLiteTotal, total: SQLiteTotal)
            var sums: [String: [Int64: Bin]] = [:]
            // A page's rows of a day come one after another: its sums are taken out of `sums`
            // for the run and put back after it, so a row costs no text and no page lookup.
            var runPage: [UInt8]?
            var runSums: [Int64: Bin] = [:]
            func finish() {
                if let runPage { sums[String(decoding: runPage, as: UTF8.self)] = runSums }
            }
            func add(_ count: Int64, _ total: Int64, to bin: inout Bin) {
                bin.count.add(count)
                bin.total.add(total)
            }
            while try statement.step() {
                if !(runPage.map { page in statement.withBlob(at: 0) { $0.elementsEqual(page) } } ?? false) {
                    finish()
                    let page = statement.withBlob(at: 0) { Array($0) }
                    runSums = sums.removeValue(forKey: String(decoding: page, as: UTF8.self)) ?? [:]
                    runPage = page
                }
                add(
                    statement.int64(at: 2), statement.int64(at: 3),
                    to: &runSums[statement.int64(at: 1), default: (SQLiteTotal(), SQLiteTotal())])
            }
            finish()
            return sums
        }
        var histograms: [String: DwellHistogram] = [:]
        for (page, buckets) in sums {
            for (bucket, bin) in buckets.sorted(by: { $0.key < $1.key }) where bin.count.int64 != 0 {
                histograms[page, default: DwellHistogram()].add(
                    bucket: bucket, count: bin.count.int64, total: bin.total.int64)
            }
        }
        return histograms
    }

    public func rollupMoves(projectId: Int64, filter: ReportFilter, from page: String?) throws(ServerError)
        -> [RollupMove]
    {
        if let onPage = filter.page {
            guard page == nil || page == onPage else { return [] }
            // A session's views of the page follow one another, and the last ends it.
            let (conditions, values) = rollupConditions(projectId: projectId, filter: filter)
            let sums = try read { database in
                try database.prepare(
                    """
                    SELECT \(Self.countSum("page_views - 1")), count(*) FROM session_pages
                        INDEXED BY session_pages_by_page
                    WHERE \(conditions.joined(separator: " AND ")) AND page_views > 0
                    """
                ).rows(values) { (again: Int($0.int64(at: 0)), ends: Int($0.int64(at: 1))) }
            }
            guard let sums = sums.first else { return [] }
            return [
                RollupMove(from: onPage, to: onPage, count: sums.again),
                RollupMove(from: onPage, to: nil, count: sums.ends),
            ].filter { $0.count != 0 }
        }
        var (conditions, values) = rollupConditions(projectId: projectId, filter: filter, page: false)
        if let page {
            values.append(.text(page))
            conditions.append("from_page = ?\(values.count)")
        }
        return try read { database in
            try database.prepare(
                """
                SELECT from_page, to_page, \(Self.countSum("count")) FROM rollup_moves
                WHERE \(conditions.joined(separator: " AND ")) GROUP BY from_page, to_page
                """
            ).rows(values) { row in
                let next = row.text(at: 1) ?? ""
                return RollupMove(
                    from: row.text(at: 0) ?? "", to: next.isEmpty ? nil : next, count: Int(row.int64(at: 2)))
            }
        }.filter { $0.count != 0 }
    }
}

/// SQLite's `total()` over integer values, read back with `sqlite3_column_int64`: the values
/// summed as doubles in the order given, the result truncated toward zero and held within
/// `Int64` (SQLite's `doubleToInt64`), so a sum past the bounds saturates instead of trapping.
struct SQLiteTotal {
    private var sum = 0.0

    /// Adds a value.
    mutating func add(_ value: Int64) {
        sum += Double(value)
    }

    /// The sum as `sqlite3_column_int64` reads `total()`.
    var int64: Int64 {
        if sum <= Double(Int64.min) { return .min }
        if sum >= Double(Int64.max) { return .max }
        return Int64(sum)
    }

    /// `max(0, total(…))` read the same way.
    var atLeastZero: Int64 { sum > 0 ? int64 : 0 }
}
