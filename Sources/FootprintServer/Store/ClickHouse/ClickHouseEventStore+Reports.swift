import FootprintWire

/// The report reads: ClickHouse aggregates that return the rows the SQLite rollups return.
extension ClickHouseEventStore {
    public func rollupCounts(projectId: Int64, filter: ReportFilter) throws(ServerError) -> [RollupCount] {
        try client.rows(sql.rollupCounts(projectId: projectId, filter: filter))
    }

    /// Reads only `kinds` from `daily_counts` (the primary key starts with the project, then the
    /// day and kind), instead of every kind filtered afterwards.
    public func rollupCounts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>)
        throws(ServerError) -> [RollupCount]
    {
        guard !kinds.isEmpty else { return [] }
        return try client.rows(sql.rollupCounts(projectId: projectId, filter: filter, kinds: kinds))
    }

    public func rollupPageCounts(
        projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>, texts wanted: Bool
    )
        throws(ServerError) -> [RollupPageCount]
    {
        guard !kinds.isEmpty else { return [] }
        let clicks = wanted ? kinds.intersection([.elementClicks, .similarElementClicks]) : []
        var texts: [[Substring]: String] = [:]
        if !clicks.isEmpty {
            let copied =
                try client.rows(
                    sql.copiedClickGroupCount(projectId: projectId, filter: filter, kinds: clicks)
                )
                .first ?? 0 > 0
            for row in try client.rows(
                sql.elementTexts(projectId: projectId, filter: filter, kinds: clicks, copied: copied))
            {
                texts[row.key] = row.text
            }
        }
        return try client.rows(sql.rollupPageCounts(projectId: projectId, filter: filter, kinds: kinds)).map {
            var count = $0.count
            count.text = texts[$0.key]
            return count
        }
    }

    public func rollupPersonDays(
        projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?,
        pages: RollupPersonDays.Pages
    ) throws(ServerError) -> [RollupPersonDays] {
        if let keys, keys.isEmpty { return [] }
        let links = try identityLinks(projectId: projectId)
        return try client.rows(
            sql.rollupPersonDays(projectId: projectId, filter: filter, kind: kind, keys: keys, pages: pages)
        )
        .map { row in
            RollupPersonDays(
                key: row.key, firstDay: row.block << 6,
                person: row.userId.isEmpty ? links[row.anonymousId] ?? row.anonymousId : row.userId,
                page: row.page, days: row.days)
        }
    }

    public func peopleCounts(projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?)
        throws(ServerError) -> [String: Int]
    {
        try peopleCounts(projectId: projectId, filter: filter, kind: kind, keys: keys, lookups: nil)
    }

    /// ``peopleCounts(projectId:filter:kind:keys:)``, sharing `lookups` when given.
    func peopleCounts(
        projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?, lookups: SettledLookups?
    ) throws(ServerError) -> [String: Int] {
        if let keys, keys.isEmpty { return [:] }
        if ClickHouseSQL.settledPeopleKinds.contains(kind),
            let round = try settledPeopleRound(projectId: projectId, filter: filter, lookups: lookups)
        {
            return try settledPeopleCounts(
                projectId: projectId, filter: filter, kind: kind, keys: keys, round: round)
        }
        var people: [String: Int] = [:]
        for row in try client.rows(
            sql.peopleCounts(projectId: projectId, filter: filter, kind: kind, keys: keys))
        {
            people[row.key] = row.people
        }
        return people
    }

    public func peopleCounts(
        projectId: Int64, filter: ReportFilter, selections: [Set<RollupReports.PeopleSelector>]
    ) throws(ServerError) -> [Int] {
        var people = Array(repeating: 0, count: selections.count)
        guard selections.contains(where: { !$0.isEmpty }) else { return people }
        for row in try client.rows(
            sql.peopleCounts(projectId: projectId, filter: filter, selections: selections))
        {
            let index = row.selection - 1
            if people.indices.contains(index) { people[index] = row.people }
        }
        return people
    }

    /// Counted by ClickHouse for ranges of at most ``ClickHouseSQL/maskedDays`` days; longer ones
    /// from the person rows, as the SQLite store.
    public func activity(projectId: Int64, filter: ReportFilter) throws(ServerError) -> PeopleActivity {
        try activity(projectId: projectId, filter: filter, lookups: nil)
    }

    /// ``activity(projectId:filter:)``, sharing `lookups` when given.
    func activity(projectId: Int64, filter: ReportFilter, lookups: SettledLookups?) throws(ServerError)
        -> PeopleActivity
    {
        let (firstDay, dayCount) = RollupReports.days(of: filter)
        guard dayCount <= ClickHouseSQL.maskedDays else {
            return try activityOfPersonRows(projectId: projectId, filter: filter)
        }
        if let round = try settledPeopleRound(
            projectId: projectId, filter: filter, labelled: true, lookups: lookups)
        {
            return try settledActivity(projectId: projectId, filter: filter, round: round)
        }
        var activity = PeopleActivity(
            people: 0, daily: Array(repeating: 0, count: dayCount),
            weekly: Array(repeating: 0, count: dayCount),
            monthly: Array(repeating: 0, count: dayCount), visitors: Array(repeating: 0, count: dayCount),
            pages: [:])
        for row in try client.rows(sql.activePeople(projectId: projectId, filter: filter)) {
            guard row.day >= 0, row.day < dayCount else { continue }
            activity.people = row.people
            activity.daily[row.day] = row.daily
            activity.weekly[row.day] = row.weekly
            activity.monthly[row.day] = row.monthly
        }
        let unseen = PeopleActivity.Page(people: 0, perDay: Array(repeating: 0, count: dayCount))
        for row in try client.rows(sql.visitors(projectId: projectId, filter: filter)) {
            let day = Int(row.day - firstDay)
            switch row.count {
            case .perPage:
                activity.pages[row.page, default: unseen].people = row.visitors
            case .perPageAndDay where day >= 0 && day < dayCount:
                activity.pages[row.page, default: unseen].perDay[day] = row.visitors
            case .perDay where day >= 0 && day < dayCount:
                activity.visitors[day] = row.visitors
            default: continue
            }
        }
        return activity
    }

    /// Counted by ClickHouse for ranges of at most ``ClickHouseSQL/maskedDays`` days; longer ones
    /// from the person rows, as the SQLite store.
    public func retention(projectId: Int64, filter: ReportFilter, returnEvent: String?, days: Int)
        throws(ServerError) -> RetentionReport
    {
        try retention(
            projectId: projectId, filter: filter, returnEvent: returnEvent, days: days, lookups: nil)
    }

    /// ``retention(projectId:filter:returnEvent:days:)``, sharing `lookups` when given.
    func retention(
        projectId: Int64, filter: ReportFilter, returnEvent: String?, days: Int, lookups: SettledLookups?
    ) throws(ServerError) -> RetentionReport {
        let (_, dayCount) = RollupReports.days(of: filter)
        guard dayCount <= ClickHouseSQL.maskedDays else {
            return try retentionOfPersonRows(
                projectId: projectId, filter: filter, returnEvent: returnEvent, days: days)
        }
        let span = max(0, days)
        let rows =
            if let round = try settledPeopleRound(projectId: projectId, filter: filter, lookups: lookups) {
                try settledRetention(
                    projectId: projectId, filter: filter, returnEvent: returnEvent, days: span, round: round)
            } else {
                try client.rows(
                    sql.retention(projectId: projectId, filter: filter, returnEvent: returnEvent, days: span))
            }
        // A settled read's rows add up.
        var cohorts: [Int: RollupReports.Cohort] = [:]
        for row in rows {
            guard row.first >= 0, row.first < dayCount, row.n >= 0, row.n <= span else { continue }
            var cohort =
                cohorts[row.first]
                ?? RollupReports.Cohort(people: 0, returned: Array(repeating: 0, count: span + 1))
            if row.n == 0 { cohort.people.addSaturating(row.people) }
            cohort.returned[row.n].addSaturating(row.returned)
            cohorts[row.first] = cohort
        }
        return RollupReports.retention(cohorts: cohorts, returnEvent: returnEvent, days: span, filter: filter)
    }

    /// Counted by ClickHouse (``ClickHouseSQL/funnelPeople(projectId:filter:sources:stepCount:windowMilliseconds:)``).
    public func funnelPeople(
        projectId: Int64, filter: ReportFilter, sources: FunnelSources, stepCount: Int,
        windowMilliseconds: Int64
    ) throws(ServerError) -> [Int] {
        var reached = Array(repeating: 0, count: max(0, stepCount))
        guard stepCount > 0, !sources.stepSets.isEmpty,
            let row = try client.rows(
                sql.funnelPeople(
                    projectId: projectId, filter: filter, sources: sources, stepCount: stepCount,
                    windowMilliseconds: windowMilliseconds)
            ).first
        else { return reached }
        for (step, people) in zip(reached.indices, row) { reached[step] = people }
        return reached
    }

    public func sessionFigures(projectId: Int64, filter: ReportFilter) throws(ServerError) -> SessionFigures {
        try sessionFigures(projectId: projectId, filter: filter, lookups: nil)
    }

    /// ``sessionFigures(projectId:filter:)``, sharing `lookups` when given.
    func sessionFigures(projectId: Int64, filter: ReportFilter, lookups: SettledLookups?) throws(ServerError)
        -> SessionFigures
    {
        if let page = filter.page, page.isEmpty { return SessionFigures([]) }
        if filter.page == nil, let round = try settledRound(projectId: projectId, lookups: lookups) {
            return try settledSessionFigures(projectId: projectId, filter: filter, round: round)
        }
        let sessions = try sessionsToRead(projectId: projectId, filter: filter, page: filter.page)
        return try client.rows(sql.sessionFigures(projectId: projectId, filter: filter, sessions: sessions))
            .first
            ?? SessionFigures([])
    }

    public func rollupDwell(projectId: Int64, filter: ReportFilter) throws(ServerError) -> [String:
        DwellHistogram]
    {
        try rollupDwell(projectId: projectId, filter: filter, lookups: nil)
    }

    /// ``rollupDwell(projectId:filter:)``, sharing `lookups` when given.
    func rollupDwell(projectId: Int64, filter: ReportFilter, lookups: SettledLookups?) throws(ServerError)
        -> [String: DwellHistogram]
    {
        if let round = try settledRound(projectId: projectId, lookups: lookups) {
            return try settledDwell(projectId: projectId, filter: filter, round: round)
        }
        var histograms: [String: DwellHistogram] = [:]
        let sessions = try sessionsToRead(projectId: projectId, filter: filter, page: nil)
        for row in try client.rows(sql.rollupDwell(projectId: projectId, filter: filter, sessions: sessions))
        where row.count != 0 {
            histograms[row.page, default: DwellHistogram()].add(
                bucket: row.bucket, count: row.count, total: row.total)
        }
        return histograms
    }

    public func rollupMoves(projectId: Int64, filter: ReportFilter, from page: String?) throws(ServerError)
        -> [RollupMove]
    {
        try rollupMoves(projectId: projectId, filter: filter, from: page, lookups: nil)
    }

    /// ``rollupMoves(projectId:filter:from:)``, sharing `lookups` when given.
    func rollupMoves(projectId: Int64, filter: ReportFilter, from page: String?, lookups: SettledLookups?)
        throws(ServerError) -> [RollupMove]
    {
        if let onPage = filter.page {
            guard page == nil || page == onPage, !onPage.isEmpty else { return [] }
            let sessions = try sessionsToRead(projectId: projectId, filter: filter, page: onPage)
            guard
                let row = try client.rows(
                    sql.pageMoves(projectId: projectId, filter: filter, page: onPage, sessions: sessions)
                ).first
            else { return [] }
            return [
                RollupMove(from: onPage, to: onPage, count: Int(max(0, row.repeats))),
                RollupMove(from: onPage, to: nil, count: Int(row.ends)),
            ].filter { $0.count != 0 }
        }
        if let round = try settledRound(projectId: projectId, lookups: lookups) {
            return try settledMoves(projectId: projectId, filter: filter, from: page, round: round)
        }
        let sessions = try sessionsToRead(projectId: projectId, filter: filter, page: nil)
        return try client.rows(
            sql.rollupMoves(projectId: projectId, filter: filter, from: page, sessions: sessions)
        )
        .filter { $0.count != 0 }
    }

    public func analyticsEvents(
        projectId: Int64, filter: ReportFilter, properties: AnalyticsEvent.Properties
    ) throws(ServerError) -> [AnalyticsEvent] {
        let limit = configuration.maximumReportEvents
        let query = sql.analyticsEvents(
            projectId: projectId, filter: filter, properties: properties, limit: limit + 1)
        let rows = try client.rows(query.sql)
        guard rows.count <= limit else {
            throw ServerError(
                code: .invalidQuery,
                message: "the range holds more than \(limit) events; choose fewer days or add a filter")
        }
        return try rows.map { fields throws(ServerError) in try query.decode(fields) }
    }

    /// Which sessions a session read of `filter` (of `page`'s session rows) merges: only those
    /// with a row on its days when it has days and at most half of the rows are on them
    /// (``ClickHouseSQL/sessionRowsInRange(projectId:filter:page:)``). The answer is the same
    /// either way; only its cost differs.
    func sessionsToRead(projectId: Int64, filter: ReportFilter, page: String?) throws(ServerError)
        -> ClickHouseSQL.Sessions
    {
        guard filter.from != nil || filter.to != nil else { return .all }
        guard
            let row = try client.rows(
                sql.sessionRowsInRange(projectId: projectId, filter: filter, page: page)
            )
            .first
        else { return .inRange }
        return row.inRange <= row.all / 2 ? .inRange : .all
    }
}
