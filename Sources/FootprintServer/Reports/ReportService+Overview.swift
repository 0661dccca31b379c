import FootprintWire

extension ReportService {
    /// The overview report of `project` (`footprint report`, the demo's check): every figure
    /// over the parameters' range and filters, people counted across identify merges (see
    /// ``ReportEngine``), except ``Report/totalEvents`` and ``Report/lostEvents``, which are the
    /// project's whole counts. Built from the same service calls as the API and the dashboard,
    /// so from rollups when the range is whole days.
    ///
    /// The reads are split over two threads of about equal work (``atOnce(_:_:)``): traffic and
    /// events (over one read of their daily counts) on one, element paths, plan-named events and
    /// items on the other; traffic's dwell takes a thread of its own. The reads share what they
    /// look up about the store (``sharingLookups()``).
    public func overview(project: Project, parameters: ReportParameters) throws(ServerError) -> Report {
        let service = sharingLookups()
        // Traffic and events over one read of their daily counts, and the project's totals.
        func trafficAndEvents() throws(ServerError) -> (
            TrafficReport, [EventStatistics], Int, Int
        ) {
            let counts =
                RollupReports.canAnswer(parameters.filter)
                ? try service.events.rollupCounts(
                    projectId: project.id, filter: parameters.filter, kinds: RollupReports.trafficCountKinds)
                : nil
            return (
                try service.traffic(project: project, parameters: parameters, dwell: true, counts: counts),
                try service.topEvents(
                    project: project, parameters: parameters, limit: Report.topEventLimit, counts: counts),
                try service.events.eventCount(projectId: project.id),
                try service.events.lostEventCount(projectId: project.id)
            )
        }
        let ((traffic, topEvents, totalEvents, lostEvents), (topElements, namedEvents, items)) =
            try atOnce(
                trafficAndEvents,
                { () throws(ServerError) -> ([ElementStatistics], [EventStatistics], [ItemStatistics]) in
                    (
                        try service.elements(
                            project: project, parameters: parameters, grouping: .exact,
                            limit: Report.topElementLimit),
                        try service.namedEvents(
                            project: project, parameters: parameters, limit: Report.topEventLimit),
                        try service.items(project: project, parameters: parameters, limit: Report.itemLimit)
                    )
                })
        return Report(
            project: project.name, fromDay: parameters.fromDay, toDay: parameters.toDay,
            totalEvents: totalEvents, uniqueVisitors: traffic.people, lostEvents: lostEvents,
            pages: traffic.pages.map { page in
                PageStatistics(
                    page: page.page, pageViews: page.pageViews, uniqueVisitors: page.visitors,
                    averageDwellMilliseconds: page.averageDwellMilliseconds, dwellSamples: page.dwellSamples)
            },
            topEvents: topEvents,
            usersPerDay: traffic.days.filter { $0.dailyActive > 0 }.map {
                DailyUsers(day: $0.day, users: $0.dailyActive)
            },
            namedEvents: namedEvents, topElements: topElements, items: items)
    }

    /// Parameters whose range covers every event of `project`: from the UTC day of its oldest
    /// event to that of its newest (at most the ten years a range may hold, the newest kept),
    /// with the filters in `query`. A `from` or `to` in `query` wins over the events' day.
    /// - Parameters:
    ///   - query: report parameters as in a query string (`from`, `to`, `app_version`, ...).
    ///   - now: today, for a project without events (the 30 days ending today).
    /// - Throws: ``ServerError`` `invalidQuery` naming a bad parameter.
    public func parametersCoveringEveryEvent(
        project: Project, query: [String: String] = [:], now: Timestamp
    ) throws(ServerError) -> ReportParameters {
        var query = query
        let given = (
            from: try ReportParameters.day(query["from"], name: "from"),
            to: try ReportParameters.day(query["to"], name: "to")
        )
        if given.from == nil || given.to == nil, let span = try events.eventTimeSpan(projectId: project.id) {
            let lastDay = given.to ?? max(span.upperBound.dayNumber, given.from ?? .min)
            let firstDay = given.from ?? min(lastDay, max(span.lowerBound.dayNumber, lastDay - 3659))
            query["from"] = Timestamp(millisecondsSince1970: firstDay * 86_400_000).dayString
            query["to"] = Timestamp(millisecondsSince1970: lastDay * 86_400_000).dayString
        }
        return try ReportParameters(query: query, now: now)
    }

    /// `parameters` with their default range fitted to the data the range holds
    /// (``ReportParameters/fitted(toFirstDay:)``: from the first day with events, at least
    /// ``ReportParameters/minimumFittedDays``), and that range's daily counts of
    /// ``RollupReports/dayCountKinds``, read once for the reports that take them (traffic and
    /// event counts). Unchanged, without counts, when rollups cannot answer the range.
    func fittedToData(project: Project, parameters: ReportParameters) throws(ServerError) -> (
        parameters: ReportParameters, counts: [RollupCount]?
    ) {
        guard RollupReports.canAnswer(parameters.filter) else { return (parameters, nil) }
        let counts = try events.rollupCounts(
            projectId: project.id, filter: parameters.filter, kinds: RollupReports.dayCountKinds)
        let fitted = parameters.fitted(toFirstDay: counts.lazy.filter { $0.count > 0 }.map(\.day).min())
        guard fitted != parameters, let first = fitted.filter.from?.dayNumber else {
            return (parameters, counts)
        }
        return (fitted, counts.filter { $0.day >= first })
    }

    /// The events the tracking plan named (`$event_name`, which the SDK puts on the
    /// `$element_click` events a plan event matches), with their people, most frequent first.
    public func namedEvents(project: Project, parameters: ReportParameters, limit: Int) throws(ServerError)
        -> [EventStatistics]
    {
        let filter = parameters.filter
        let top = RollupReports.top(
            .planEvents,
            in: try events.rollupCounts(projectId: project.id, filter: filter, kinds: [.planEvents]),
            limit: limit)
        let people = try events.peopleCounts(
            projectId: project.id, filter: filter, kind: .planEvents, keys: Set(top.map(\.key)))
        return RollupReports.events(top: top, people: people)
    }
}
