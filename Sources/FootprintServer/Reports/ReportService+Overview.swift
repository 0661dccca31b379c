import FootprintWire

extension ReportService {
    /// The overview report of `project` (`footprint report`, the demo's check): every figure
    /// over the parameters' range and filters, people counted across identify merges (see
    /// ``ReportEngine``), except ``Report/totalEvents`` and ``Report/lostEvents``, which are the
    /// project's whole counts.
    ///
    /// Pages (PV, UV, dwell), UV, users per day and the top events' counts come from
    /// ``traffic(project:parameters:dwell:pageVisitors:)`` and
    /// ``eventCounts(project:parameters:limit:)`` (daily rollups); each event's people, element
    /// paths and list items from ``engine(project:parameters:definitions:)``; the plan-named
    /// events from ``namedEvents(project:parameters:limit:)``.
    /// - Throws: ``ServerError`` `invalidQuery` when the range holds more events than a report
    ///   may read (`SQLiteEventStore.Configuration.maximumReportEvents`).
    public func overview(project: Project, parameters: ReportParameters) throws(ServerError) -> Report {
        let traffic = try traffic(project: project, parameters: parameters)
        let counts = try eventCounts(project: project, parameters: parameters, limit: Report.topEventLimit)
        let engine = try engine(project: project, parameters: parameters)
        let peoplePerEvent = Dictionary(
            engine.topEvents(limit: .max).map { ($0.event, $0.uniqueVisitors) },
            uniquingKeysWith: { first, _ in first })
        return Report(
            project: project.name, fromDay: parameters.fromDay, toDay: parameters.toDay,
            totalEvents: try store.eventCount(projectId: project.id), uniqueVisitors: traffic.people,
            lostEvents: try store.lostEventCount(projectId: project.id),
            pages: traffic.pages.map { page in
                PageStatistics(
                    page: page.page, pageViews: page.pageViews, uniqueVisitors: page.visitors,
                    averageDwellMilliseconds: page.averageDwellMilliseconds, dwellSamples: page.dwellSamples)
            },
            topEvents: counts.map {
                EventStatistics(
                    event: $0.event, count: $0.count, uniqueVisitors: peoplePerEvent[$0.event] ?? 0)
            },
            usersPerDay: traffic.days.filter { $0.dailyActive > 0 }.map {
                DailyUsers(day: $0.day, users: $0.dailyActive)
            },
            namedEvents: try namedEvents(
                project: project, parameters: parameters, limit: Report.topEventLimit),
            topElements: engine.elements(grouping: .exact, limit: Report.topElementLimit),
            items: engine.items(limit: Report.itemLimit))
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
        if given.from == nil || given.to == nil, let span = try store.eventTimeSpan(projectId: project.id) {
            let lastDay = given.to ?? max(span.upperBound.dayNumber, given.from ?? .min)
            let firstDay = given.from ?? min(lastDay, max(span.lowerBound.dayNumber, lastDay - 3659))
            query["from"] = Timestamp(millisecondsSince1970: firstDay * 86_400_000).dayString
            query["to"] = Timestamp(millisecondsSince1970: lastDay * 86_400_000).dayString
        }
        return try ReportParameters(query: query, now: now)
    }

    /// The events the tracking plan named (`$event_name`, which the SDK puts on the
    /// `$element_click` events a plan event matches), with their people, most frequent first.
    /// Reads only the range's clicks (the name is not in the rollups).
    public func namedEvents(project: Project, parameters: ReportParameters, limit: Int) throws(ServerError)
        -> [EventStatistics]
    {
        let links = try store.identityLinks(projectId: project.id)
        var named: [String: (count: Int, people: Set<String>)] = [:]
        for click in try store.namedClicks(projectId: project.id, filter: parameters.filter) {
            // The person, as ``ReportEngine`` defines it.
            let person = click.userId ?? click.anonymousId.flatMap { links[$0] } ?? click.anonymousId ?? ""
            named[click.eventName, default: (0, [])].count += 1
            named[click.eventName, default: (0, [])].people.insert(person)
        }
        return named.map {
            EventStatistics(event: $0.key, count: $0.value.count, uniqueVisitors: $0.value.people.count)
        }
        .sorted { ($0.count, $1.event) > ($1.count, $0.event) }.prefix(max(0, limit)).map { $0 }
    }
}
