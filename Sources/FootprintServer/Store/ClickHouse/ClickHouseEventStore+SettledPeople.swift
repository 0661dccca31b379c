import FootprintWire

/// The people counts from a round's settled people (``ClickHouseSQL``'s `settled_people`, see
/// docs/ARCHITECTURE.md, *Settled people*).
extension ClickHouseEventStore {
    /// The round whose settled people a read of `filter` takes: one that still holds, has
    /// people that hold (``settledPeopleBlock(projectId:round:)``), for a range of 1…64 days with
    /// no page, app version or OS, or when `labelled` (a read of the kinds the round keeps per
    /// each, ``ClickHouseSQL/labelledKinds``) one of them (``SettledLabel``); `nil` otherwise
    /// (the read counts the person rows). With `lookups`, what it looks up is shared by the reads
    /// that share them.
    func settledPeopleRound(
        projectId: Int64, filter: ReportFilter, labelled: Bool = false, lookups: SettledLookups? = nil
    ) throws(ServerError) -> SettledRound? {
        let (_, count) = RollupReports.days(of: filter)
        guard !filter.namesPageVersionOrOS || (labelled && SettledLabel(filter) != nil),
            count >= 1, count <= ClickHouseSQL.maskedDays,
            var round = try settledRound(projectId: projectId, touchedDays: false, lookups: lookups)
        else { return nil }
        let held = round
        let check = { () throws(ServerError) in
            try self.shared(lookups?.people, .init(projectId: projectId, round: held.round)) {
                () throws(ServerError) in
                try self.settledPeopleBlock(projectId: projectId, round: held)
            }
        }
        // The links of the devices with rows written since, which every people read of the round
        // sends, are looked up beside the check of its people when they are shared (else each
        // read looks them up itself).
        let people =
            lookups == nil
            ? try check()
            : try atOnce(
                check,
                { () throws(ServerError) in _ = try self.linksSince(projectId: projectId, round: held) }
            )
            .0
        guard let people else { return nil }
        round.totals = people.totals
        return round
    }

    /// The first block of `round`'s people, and whether it has its totals, when they hold (a
    /// read or the next round can take them), else `nil`: the round has settled people, saw the
    /// copy records there are now, and its cutoff is at most ``ClickHouseSQL/touchedRead`` old
    /// unless nothing was touched since.
    func settledPeopleBlock(projectId: Int64, round: SettledRound) throws(ServerError) -> PeopleBlock? {
        guard
            let check = try client.rows(sql.settledPeopleCheck(projectId: projectId, round: round.round))
                .first,
            check.rows == 1, check.seen == check.now
        else { return nil }
        if check.time &- round.cutoff > ClickHouseSQL.touchedRead,
            try client.rows(sql.touchesAfter(projectId: projectId, cutoff: round.cutoff)).first ?? 0 > 0
        {
            return nil
        }
        return PeopleBlock(firstBlock: check.firstBlock, totals: check.totals == 1)
    }

    /// The members a settled read of `filter` from `round` groups per person: read once per
    /// report, whatever its reads. From the totals, the people who changed since and their
    /// linked devices in the round
    /// (``ClickHouseSQL/changedPeople(projectId:filter:round:cutoff:)``); else
    /// ``ClickHouseSQL/affectedMemberList(projectId:filter:round:cutoff:)``.
    private func affectedMembers(
        projectId: Int64, filter: ReportFilter, round: SettledRound, links: [ClickHouseSQL.SinceLink]?
    ) throws(ServerError) -> [String] {
        try shared(
            round.lookups?.affected,
            .init(projectId: projectId, filter: filter, round: round.round, totals: round.totals)
        ) { () throws(ServerError) in
            try changedMembers(projectId: projectId, filter: filter, round: round, links: links)
        }
    }

    /// ``affectedMembers(projectId:filter:round:links:)``, read.
    private func changedMembers(
        projectId: Int64, filter: ReportFilter, round: SettledRound, links: [ClickHouseSQL.SinceLink]?
    ) throws(ServerError) -> [String] {
        guard round.totals else {
            return try client.rows(
                sql.affectedMemberList(
                    projectId: projectId, filter: filter, round: round.round, cutoff: round.cutoff,
                    links: links))
        }
        let client = client
        let changed = Array(
            Set(
                try concurrently(
                    sql.changedPeople(
                        projectId: projectId, filter: filter, round: round.round, cutoff: round.cutoff,
                        links: links)
                ) { query throws(ServerError) in try client.rows(query) }
                .joined()))
        guard !changed.isEmpty else { return [] }
        let devices = try client.rows(
            sql.changedDevices(projectId: projectId, round: round.round, changed: changed))
        return Array(Set(changed).union(devices))
    }

    /// What a settled read counts: the people of `items`, per kind and key, of each of `spans`.
    private struct SettledCount {
        var items: [ClickHouseSQL.SettledPeopleItems]
        var spans: [ClickHouseSQL.SettledSpan]
    }

    /// The links of the devices with rows written since `round` (``ClickHouseSQL/linksSince(projectId:cutoff:limit:)``),
    /// looked up once per report and sent with its reads of those rows; `nil` past
    /// ``maximumLinksSent`` (the reads then look them up themselves).
    private func linksSince(projectId: Int64, round: SettledRound) throws(ServerError)
        -> [ClickHouseSQL.SinceLink]?
    {
        try shared(round.lookups?.linksSince, .init(projectId: projectId, round: round.round)) {
            () throws(ServerError) in
            let links = try client.rows(
                sql.linksSince(projectId: projectId, cutoff: round.cutoff, limit: Self.maximumLinksSent))
            return links.count > Self.maximumLinksSent ? nil : links
        }
    }

    /// The most links of the devices with rows written since a round that a read sends (about
    /// 80 bytes each): past it, each read looks them up in its statement.
    static let maximumLinksSent = 100_000

    /// `counts` from `round`, its affected members grouped per person: per count, per kind and
    /// key, the people of each of its spans. Every read of every count runs at once.
    private func settledPeople(
        projectId: Int64, filter: ReportFilter, round: SettledRound, counts: [SettledCount]
    ) throws(ServerError) -> [[(kind: Int, key: String, sums: [Int64])]] {
        let links = try linksSince(projectId: projectId, round: round)
        let affected = try affectedMembers(projectId: projectId, filter: filter, round: round, links: links)
        var reads: [(count: Int, query: ClickHouseQuery<(kind: Int, key: String, sums: [Int64])>)] = []
        for (index, count) in counts.enumerated() {
            for query in sql.settledPeople(
                projectId: projectId, filter: filter, round: round.round, cutoff: round.cutoff,
                items: count.items, spans: count.spans, affected: affected, totals: round.totals, links: links
            ) {
                reads.append((index, query))
            }
        }
        let client = client
        let answers = try concurrently(reads.map(\.query)) { query throws(ServerError) in
            try client.rows(query)
        }
        var sums: [[SettledKey: [Int64]]] = Array(repeating: [:], count: counts.count)
        for (read, rows) in zip(reads, answers) {
            for row in rows {
                // The kinds and keys it counts for (a labelled kind's row as its own kind's; a
                // page's page views on that page as those of any page too).
                for reported in counts[read.count].items.compactMap({
                    $0.reported(kind: row.kind, key: row.key)
                }) {
                    let key = SettledKey(kind: reported.kind, key: reported.key)
                    var total =
                        sums[read.count][key] ?? Array(repeating: 0, count: counts[read.count].spans.count)
                    for (index, value) in row.sums.enumerated() where total.indices.contains(index) {
                        total[index].addSaturating(value)
                    }
                    sums[read.count][key] = total
                }
            }
        }
        return sums.map { $0.map { (kind: $0.key.kind, key: $0.key.key, sums: $0.value) } }
    }

    /// A settled read's kind and key.
    private struct SettledKey: Hashable {
        var kind: Int
        var key: String
    }

    /// ``EventStore/peopleCounts(projectId:filter:kind:keys:)`` from `round`.
    func settledPeopleCounts(
        projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?, round: SettledRound
    ) throws(ServerError) -> [String: Int] {
        let (_, count) = RollupReports.days(of: filter)
        var people: [String: Int] = [:]
        let counts = try settledPeople(
            projectId: projectId, filter: filter, round: round,
            counts: [
                SettledCount(
                    items: [.init(kind: Int(kind.rawValue), keys: keys)],
                    spans: [ClickHouseSQL.SettledSpan(first: 0, last: count - 1)])
            ])
        for row in counts[0]
        where row.sums[0] > 0 {
            people[row.key] = Int(clamping: row.sums[0])
        }
        return people
    }

    /// ``EventStore/activity(projectId:filter:)`` from `round`: the active people (in the range,
    /// and per day that day, in the 7 and in the 30 days ending there), then the visitors (per
    /// page over the range, per page and day, per day of any page).
    func settledActivity(projectId: Int64, filter: ReportFilter, round: SettledRound) throws(ServerError)
        -> PeopleActivity
    {
        typealias Span = ClickHouseSQL.SettledSpan
        let (_, count) = RollupReports.days(of: filter)
        let days = Array(0..<count)
        var activity = PeopleActivity(
            people: 0, daily: Array(repeating: 0, count: count), weekly: Array(repeating: 0, count: count),
            monthly: Array(repeating: 0, count: count), visitors: Array(repeating: 0, count: count),
            pages: [:])
        let label = SettledLabel(filter)
        let counts = try settledPeople(
            projectId: projectId, filter: filter, round: round,
            counts: [
                SettledCount(
                    items: [.init(kind: Int(RollupKind.anyEvent.rawValue), keys: nil, label: label)],
                    spans: Span.range(count) + Span.windows(count, window: 7)
                        + Span.windows(count, window: 30)),
                SettledCount(
                    items: [
                        .init(kind: Int(RollupKind.pageViews.rawValue), keys: nil, label: label),
                        .init(kind: ClickHouseSQL.anyPageKind, keys: nil, label: label),
                    ],
                    spans: Span.range(count)),
            ])
        for row in counts[0] {
            activity.people = Int(clamping: row.sums[0])
            for day in days {
                activity.daily[day] = Int(clamping: row.sums[1 + day])
                activity.weekly[day] = Int(clamping: row.sums[1 + count + day])
                activity.monthly[day] = Int(clamping: row.sums[1 + 2 * count + day])
            }
        }
        for row in counts[1] {
            let perDay = days.map { Int(clamping: row.sums[1 + $0]) }
            if row.kind == ClickHouseSQL.anyPageKind {
                activity.visitors = perDay
            } else if row.sums[0] > 0 {
                activity.pages[row.key] = PeopleActivity.Page(
                    people: Int(clamping: row.sums[0]), perDay: perDay)
            }
        }
        return activity
    }

    /// ``EventStore/retention(projectId:filter:returnEvent:days:)``'s cohort rows from `round`,
    /// whose counts add up: its people per member on each shard and the affected grouped
    /// (``ClickHouseSQL/settledRetention(projectId:filter:round:cutoff:returnEvent:days:affected:)``),
    /// every read at once. Its totals are not read: they count spans, not first days.
    func settledRetention(
        projectId: Int64, filter: ReportFilter, returnEvent: String?, days: Int, round: SettledRound
    ) throws(ServerError) -> [ClickHouseSQL.CohortRow] {
        var withoutTotals = round
        withoutTotals.totals = false
        let links = try linksSince(projectId: projectId, round: round)
        let reads = sql.settledRetention(
            projectId: projectId, filter: filter, round: round.round, cutoff: round.cutoff,
            returnEvent: returnEvent, days: days,
            affected: try affectedMembers(
                projectId: projectId, filter: filter, round: withoutTotals, links: links),
            links: links)
        let client = client
        let runs: [(query: ClickHouseQuery<ClickHouseSQL.CohortRow>, node: ClickHouseLocation.Node?)] =
            location.shards.map { (reads.everyShard, $0) } + (reads.once.map { [($0, nil)] } ?? [])
        return try concurrently(runs) { run throws(ServerError) in try client.rows(run.query, on: run.node) }
            .flatMap { $0 }
    }

    /// Drops on every node the hours of `touched_rows` and `touched_links` no read takes
    /// (``ClickHouseSQL/staleTouchedHours``): the settling thread's turn, rounds or none. A node
    /// that does not answer is left for the next turn.
    func dropStaleTouchedHours() {
        for node in location.shards {
            guard let hours = try? client.rows(sql.staleTouchedHours, on: node) else { continue }
            for stale in hours {
                guard let drop = sql.dropTouchedHour(stale.hour, of: stale.table) else { continue }
                _ = try? client.execute(drop, on: node)
            }
        }
    }
}
