import FootprintWire

/// The report reads: ClickHouse aggregates that return the rows the SQLite rollups return.
extension ClickHouseEventStore {
    public func rollupCounts(projectId: Int64, filter: ReportFilter) throws(ServerError) -> [RollupCount] {
        try client.rows(sql.rollupCounts(projectId: projectId, filter: filter)).compactMap { row in
            guard row.count == 4, let kind = RollupKind(rawValue: ClickHouseFormat.int64(row[1])) else {
                return nil
            }
            return RollupCount(
                day: ClickHouseFormat.int64(row[0]), kind: kind, key: ClickHouseFormat.text(row[2]) ?? "",
                count: Int(ClickHouseFormat.int64(row[3])))
        }
    }

    public func rollupPageCounts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>)
        throws(ServerError) -> [RollupPageCount]
    {
        guard !kinds.isEmpty else { return [] }
        let clicks = kinds.intersection([.elementClicks, .similarElementClicks])
        var texts: [[Substring]: String] = [:]
        if !clicks.isEmpty {
            for row in try client.rows(sql.elementTexts(projectId: projectId, filter: filter, kinds: clicks))
            where row.count == 5 {
                texts[Array(row[0..<4])] = ClickHouseFormat.text(row[4])
            }
        }
        return try client.rows(sql.rollupPageCounts(projectId: projectId, filter: filter, kinds: kinds))
            .compactMap { row in
                guard row.count == 5, let kind = RollupKind(rawValue: ClickHouseFormat.int64(row[0])) else {
                    return nil
                }
                return RollupPageCount(
                    kind: kind, key: ClickHouseFormat.text(row[1]) ?? "",
                    page: ClickHouseFormat.text(row[2]) ?? "",
                    day: ClickHouseFormat.int64(row[3]), count: Int(ClickHouseFormat.int64(row[4])),
                    text: texts[Array(row[0..<4])])
            }
    }

    public func rollupPersonDays(
        projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?, pages: Bool
    ) throws(ServerError) -> [RollupPersonDays] {
        if let keys, keys.isEmpty { return [] }
        let links = try identityLinks(projectId: projectId)
        return try client.rows(
            sql.rollupPersonDays(projectId: projectId, filter: filter, kind: kind, keys: keys, pages: pages)
        )
        .compactMap { row in
            guard row.count == 6 else { return nil }
            let anonymousId = ClickHouseFormat.text(row[2]) ?? ""
            let userId = ClickHouseFormat.text(row[3]) ?? ""
            return RollupPersonDays(
                key: ClickHouseFormat.text(row[0]) ?? "", firstDay: ClickHouseFormat.int64(row[1]) << 6,
                person: userId.isEmpty ? links[anonymousId] ?? anonymousId : userId,
                page: ClickHouseFormat.text(row[4]) ?? "", days: UInt64(row[5]) ?? 0)
        }
    }

    public func peopleCounts(projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?)
        throws(ServerError) -> [String: Int]
    {
        if let keys, keys.isEmpty { return [:] }
        var people: [String: Int] = [:]
        for row in try client.rows(
            sql.peopleCounts(projectId: projectId, filter: filter, kind: kind, keys: keys))
        where row.count == 2 {
            people[ClickHouseFormat.text(row[0]) ?? ""] = Int(ClickHouseFormat.int64(row[1]))
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
        where row.count == 2 {
            let index = Int(ClickHouseFormat.int64(row[0])) - 1
            if people.indices.contains(index) { people[index] = Int(ClickHouseFormat.int64(row[1])) }
        }
        return people
    }

    /// Counted by ClickHouse for ranges of at most ``ClickHouseSQL/maskedDays`` days; longer ones
    /// from the person rows, as the SQLite store.
    public func activity(projectId: Int64, filter: ReportFilter) throws(ServerError) -> PeopleActivity {
        let (firstDay, dayCount) = RollupReports.days(of: filter)
        guard dayCount <= ClickHouseSQL.maskedDays else {
            return try activityOfPersonRows(projectId: projectId, filter: filter)
        }
        var activity = PeopleActivity(
            people: 0, daily: Array(repeating: 0, count: dayCount),
            weekly: Array(repeating: 0, count: dayCount),
            monthly: Array(repeating: 0, count: dayCount), visitors: Array(repeating: 0, count: dayCount),
            pages: [:])
        for row in try client.rows(sql.activePeople(projectId: projectId, filter: filter))
        where row.count == 5 {
            let day = Int(ClickHouseFormat.int64(row[0]))
            guard day >= 0, day < dayCount else { continue }
            activity.people = Int(ClickHouseFormat.int64(row[1]))
            activity.daily[day] = Int(ClickHouseFormat.int64(row[2]))
            activity.weekly[day] = Int(ClickHouseFormat.int64(row[3]))
            activity.monthly[day] = Int(ClickHouseFormat.int64(row[4]))
        }
        let unseen = PeopleActivity.Page(people: 0, perDay: Array(repeating: 0, count: dayCount))
        for row in try client.rows(sql.visitors(projectId: projectId, filter: filter)) where row.count == 4 {
            let page = ClickHouseFormat.text(row[1]) ?? ""
            let visitors = Int(ClickHouseFormat.int64(row[3]))
            let day = Int(ClickHouseFormat.int64(row[2]) - firstDay)
            switch row[0] {
            case "2":
                activity.pages[page, default: unseen].people = visitors
            case "1" where day >= 0 && day < dayCount:
                activity.pages[page, default: unseen].perDay[day] = visitors
            case "0" where day >= 0 && day < dayCount:
                activity.visitors[day] = visitors
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
        let (_, dayCount) = RollupReports.days(of: filter)
        guard dayCount <= ClickHouseSQL.maskedDays else {
            return try retentionOfPersonRows(
                projectId: projectId, filter: filter, returnEvent: returnEvent, days: days)
        }
        let span = max(0, days)
        var cohorts: [Int: RollupReports.Cohort] = [:]
        for row in try client.rows(
            sql.retention(projectId: projectId, filter: filter, returnEvent: returnEvent, days: span))
        where row.count == 4 {
            let first = Int(ClickHouseFormat.int64(row[0]))
            let n = Int(ClickHouseFormat.int64(row[1]))
            guard first >= 0, first < dayCount, n >= 0, n <= span else { continue }
            var cohort =
                cohorts[first]
                ?? RollupReports.Cohort(people: 0, returned: Array(repeating: 0, count: span + 1))
            if n == 0 { cohort.people = Int(ClickHouseFormat.int64(row[2])) }
            cohort.returned[n] = Int(ClickHouseFormat.int64(row[3]))
            cohorts[first] = cohort
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
        for (step, field) in zip(reached.indices, row) {
            reached[step] = Int(max(0, ClickHouseFormat.int64(field)))
        }
        return reached
    }

    public func storedSessions(projectId: Int64, filter: ReportFilter) throws(ServerError) -> [StoredSession]
    {
        if let page = filter.page, page.isEmpty { return [] }
        let narrow = try narrowsSessions(projectId: projectId, filter: filter, page: filter.page)
        return try client.rows(sql.storedSessions(projectId: projectId, filter: filter, narrow: narrow))
            .compactMap { row in
                guard row.count == 2 else { return nil }
                return StoredSession(
                    lengthMilliseconds: ClickHouseFormat.int64(row[0]),
                    pageViews: Int(ClickHouseFormat.int64(row[1])))
            }
    }

    public func rollupDwell(projectId: Int64, filter: ReportFilter) throws(ServerError) -> [String:
        DwellHistogram]
    {
        var histograms: [String: DwellHistogram] = [:]
        let narrow = try narrowsSessions(projectId: projectId, filter: filter, page: nil)
        for row in try client.rows(sql.rollupDwell(projectId: projectId, filter: filter, narrow: narrow))
        where row.count == 5 {
            let count = ClickHouseFormat.int64(row[2])
            guard count != 0 else { continue }
            histograms[ClickHouseFormat.text(row[0]) ?? "", default: DwellHistogram()].add(
                bucket: ClickHouseFormat.int64(row[1]), count: count,
                total: Self.sum(exact: row[3], approximate: row[4]))
        }
        return histograms
    }

    public func rollupMoves(projectId: Int64, filter: ReportFilter, from page: String?) throws(ServerError)
        -> [RollupMove]
    {
        if let onPage = filter.page {
            guard page == nil || page == onPage, !onPage.isEmpty else { return [] }
            let narrow = try narrowsSessions(projectId: projectId, filter: filter, page: onPage)
            guard
                let row = try client.rows(
                    sql.pageMoves(projectId: projectId, filter: filter, page: onPage, narrow: narrow)
                ).first,
                row.count == 2
            else { return [] }
            return [
                RollupMove(from: onPage, to: onPage, count: Int(max(0, ClickHouseFormat.int64(row[0])))),
                RollupMove(from: onPage, to: nil, count: Int(ClickHouseFormat.int64(row[1]))),
            ].filter { $0.count != 0 }
        }
        let narrow = try narrowsSessions(projectId: projectId, filter: filter, page: nil)
        return try client.rows(
            sql.rollupMoves(projectId: projectId, filter: filter, from: page, narrow: narrow)
        )
        .compactMap { row in
            guard row.count == 3 else { return nil }
            let next = ClickHouseFormat.text(row[1]) ?? ""
            let move = RollupMove(
                from: ClickHouseFormat.text(row[0]) ?? "", to: next.isEmpty ? nil : next,
                count: Int(ClickHouseFormat.int64(row[2])))
            return move.count != 0 ? move : nil
        }
    }

    public func analyticsEvents(projectId: Int64, filter: ReportFilter, properties: Bool) throws(ServerError)
        -> [AnalyticsEvent]
    {
        let limit = configuration.maximumReportEvents
        let rows = try client.rows(
            sql.analyticsEvents(
                projectId: projectId, filter: filter, properties: properties, limit: limit + 1))
        guard rows.count <= limit else {
            throw ServerError(
                code: .invalidQuery,
                message: "the range holds more than \(limit) events; choose fewer days or add a filter")
        }
        return rows.compactMap { row in
            guard row.count == 15 else { return nil }
            var event = AnalyticsEvent(
                type: MessageType(rawValue: ClickHouseFormat.text(row[0]) ?? "") ?? .track,
                name: ClickHouseFormat.text(row[1]),
                time: Timestamp(millisecondsSince1970: ClickHouseFormat.int64(row[2])),
                anonymousId: ClickHouseFormat.text(row[3]), userId: ClickHouseFormat.text(row[4]),
                sessionId: ClickHouseFormat.text(row[5]), page: ClickHouseFormat.text(row[6]),
                elementPath: ClickHouseFormat.text(row[7]), similarPath: ClickHouseFormat.text(row[8]),
                elementText: ClickHouseFormat.text(row[9]), itemId: ClickHouseFormat.text(row[10]),
                durationMilliseconds: row[11] == "\\N" ? nil : ClickHouseFormat.int64(row[11]),
                appVersion: ClickHouseFormat.text(row[12]), os: ClickHouseFormat.text(row[13]))
            if properties, let payload = ClickHouseFormat.text(row[14]),
                let object = try? JSONParser().parse(Array(payload.utf8))["properties"]?.objectValue
            {
                event.properties = object
            }
            return event
        }
    }

    /// Whether a session read of `filter` (of `page`'s session rows) narrows to the sessions with
    /// a row on its days: when it has days and at most half of the rows are on them
    /// (``ClickHouseSQL/sessionRowsInRange(projectId:filter:page:)``). The answer is the same
    /// either way; only its cost differs.
    func narrowsSessions(projectId: Int64, filter: ReportFilter, page: String?) throws(ServerError) -> Bool {
        guard filter.from != nil || filter.to != nil else { return false }
        guard
            let row = try client.rows(
                sql.sessionRowsInRange(projectId: projectId, filter: filter, page: page)
            )
            .first, row.count == 2
        else { return true }
        let inRange = ClickHouseFormat.int64(row[0])
        return inRange <= ClickHouseFormat.int64(row[1]) / 2
    }
}
