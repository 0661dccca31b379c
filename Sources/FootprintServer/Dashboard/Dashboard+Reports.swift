import FootprintWire

extension Dashboard {
    /// The overview. Without a `from`, its range starts at the first day with data of the
    /// default 30 days (at least ``ReportParameters/minimumFittedDays`` before its end), so a
    /// project with a week of data fills the charts.
    func overviewPage(_ context: Context) throws(ServerError) -> ServerResponse {
        let fitted = try context.reports.fittedToData(
            project: context.project, parameters: context.parameters)
        var context = context
        context.parameters = fitted.parameters
        let counts = fitted.counts
        let traffic = try context.reports.traffic(
            project: context.project, parameters: context.parameters, dwell: false, counts: counts)
        let last = traffic.days.last
        let cards = Self.cards([
            ("Page views", HTML.number(traffic.pageViews)), ("Visitors (UV)", HTML.number(traffic.people)),
            ("DAU (last day)", HTML.number(last?.dailyActive ?? 0)),
            ("WAU", HTML.number(last?.weeklyActive ?? 0)),
            ("MAU", HTML.number(last?.monthlyActive ?? 0)), ("Events", HTML.number(traffic.events)),
        ])
        let labels = traffic.days.map(\.day)
        let chart = SVGChart.lines(
            [
                .init(name: "Page views", values: traffic.days.map(\.pageViews)),
                .init(name: "Visitors", values: traffic.days.map(\.visitors)),
                .init(name: "Daily active", values: traffic.days.map(\.dailyActive)),
            ], labels: labels, title: "Per day")
        let active = SVGChart.lines(
            [
                .init(name: "DAU", values: traffic.days.map(\.dailyActive)),
                .init(name: "WAU", values: traffic.days.map(\.weeklyActive)),
                .init(name: "MAU", values: traffic.days.map(\.monthlyActive)),
            ], labels: labels, title: "Active people")
        let pages = HTML.table(
            ["Page", "Views"],
            traffic.pages.prefix(8).map { [HTML.escape($0.page), HTML.number($0.pageViews)] },
            numeric: [1], id: "top-pages")
        let events = HTML.table(
            ["Event", "Count"],
            try context.reports.eventCounts(
                project: context.project, parameters: context.parameters, limit: 8, counts: counts
            ).map {
                [HTML.escape($0.event), HTML.number($0.count)]
            }, numeric: [1], id: "top-events")
        return page(
            context, path: "/", title: "Overview",
            content: cards + chart + active
                + "<div class=\"columns\"><section><h2>Top pages</h2>\(pages)</section><section><h2>Top events</h2>\(events)</section></div>"
        )
    }

    func pagesPage(_ context: Context) throws(ServerError) -> ServerResponse {
        let traffic = try context.reports.traffic(project: context.project, parameters: context.parameters)
        let rows = traffic.pages.map { page in
            [
                "<a href=\"/pages\(filterQuery(context, extra: [("from_page", page.page)]))\">\(HTML.escape(page.page))</a>",
                HTML.number(page.pageViews), HTML.number(page.visitors),
                HTML.duration(milliseconds: page.averageDwellMilliseconds),
                HTML.duration(milliseconds: page.medianDwellMilliseconds), HTML.number(page.dwellSamples),
            ]
        }
        var content =
            "<section><h2>Views and dwell</h2>"
            + HTML.table(
                ["Page", "Views", "Visitors", "Avg. dwell", "Median dwell", "Visits timed"], rows,
                numeric: [1, 2, 3, 4, 5],
                id: "pages")
            + "<p class=\"hint\">Dwell is the <code>$screen_leave</code> duration, else the time to the next screen of the session (at most 30 minutes); the median is estimated to within 6.25 %.</p></section>"
        if let from = context.parameters.text("from_page") {
            let paths = try context.reports.paths(
                project: context.project, parameters: context.parameters, after: from, limit: 10)
            content +=
                "<section><h2>After \(HTML.escape(from)) (\(HTML.number(paths.visits)) visits)</h2>"
                + HTML.table(
                    ["Next page", "Times", "Share"],
                    paths.next.map {
                        [
                            HTML.escape($0.next ?? "(session ended)"), HTML.number($0.count),
                            HTML.percent($0.share),
                        ]
                    },
                    numeric: [1, 2], id: "next-pages")
                + (context.parameters.filter.page.map {
                    "<p class=\"hint\">With the page filter only views of \(HTML.escape($0)) count: “session ended” means no later view of it in the session.</p>"
                } ?? "") + "</section>"
        }
        let moves = try context.reports.transitions(
            project: context.project, parameters: context.parameters, limit: 15)
        content +=
            "<section><h2>Most common paths</h2>"
            + HTML.table(
                ["From", "To", "Times"],
                moves.map { [HTML.escape($0.from), HTML.escape($0.to), HTML.number($0.count)] }, numeric: [2],
                id: "paths")
            + "</section>"
        let sessions = try context.reports.sessions(project: context.project, parameters: context.parameters)
        content +=
            "<section><h2>Sessions</h2>"
            + Self.cards([
                ("Sessions", HTML.number(sessions.sessions)),
                ("Avg. length", HTML.duration(milliseconds: sessions.averageLengthMilliseconds)),
                ("Median length", HTML.duration(milliseconds: sessions.medianLengthMilliseconds)),
                ("Screens per session", HTML.decimal(sessions.screensPerSession)),
                ("Bounces", HTML.number(sessions.bounces)),
            ]) + "</section>"
        return page(context, path: "/pages", title: "Pages", content: content)
    }

    func eventsPage(_ context: Context) throws(ServerError) -> ServerResponse {
        let definitions = try service.metadata.eventDefinitions(projectId: context.project.id)
        let top = try context.reports.topEvents(
            project: context.project, parameters: context.parameters, limit: 100)
        let chart = SVGChart.bars(
            top.prefix(10).map { ($0.event, $0.count, "") }, title: "Most frequent events")
        let table = HTML.table(
            ["Event", "Count", "People"],
            top.map { [HTML.escape($0.event), HTML.number($0.count), HTML.number($0.uniqueVisitors)] },
            numeric: [1, 2],
            id: "events")
        let (figures, refusal) = try definedEventFigures(context, definitions)
        let defined =
            (refusal?.html ?? "")
            + HTML.table(
                ["Defined event", "Count", "People"],
                figures.map {
                    [HTML.escape($0.event), HTML.number($0.count), HTML.number($0.uniqueVisitors)]
                },
                numeric: [1, 2], id: "defined-events")
        return page(
            context, path: "/events", title: "Events",
            content: (top.isEmpty ? "" : chart) + "<section><h2>Captured events</h2>\(table)</section>"
                + "<section><h2>Defined events</h2>\(defined)<p class=\"hint\"><a href=\"/definitions\(filterQuery(context))\">Manage definitions</a></p></section>"
        )
    }

    func elementsPage(_ context: Context) throws(ServerError) -> ServerResponse {
        let grouping = try context.parameters.grouping()
        let elements = try context.reports.elements(
            project: context.project, parameters: context.parameters, grouping: grouping, limit: 100)
        let toggle = ElementGrouping.allCases.map { option in
            let label = option == .exact ? "Exact path" : "Similar path (all rows)"
            if option == grouping { return "<strong>\(label)</strong>" }
            return
                "<a href=\"/elements\(filterQuery(context, extra: [("grouping", option.rawValue)]))\">\(label)</a>"
        }.joined(separator: " · ")
        let rows = elements.map { element -> [String] in
            let define = HTML.query([
                ("project", context.parameters.project), ("path", element.path), ("match", grouping.rawValue),
                ("name", element.text), ("page", element.page),
            ])
            return [
                "<code class=\"path\">\(HTML.escape(element.path))</code>", HTML.escape(element.page ?? "–"),
                HTML.escape(element.text ?? "–"), HTML.number(element.clicks),
                HTML.number(element.uniqueVisitors),
                "<a href=\"/definitions\(define)\">Define an event</a>",
            ]
        }
        return page(
            context, path: "/elements", title: "Elements",
            content: "<p class=\"toggle\">Group by: \(toggle)</p>"
                + HTML.table(
                    ["Path", "Page", "Text", "Clicks", "People", ""], rows, numeric: [3, 4], id: "elements"))
    }

    func itemsPage(_ context: Context) throws(ServerError) -> ServerResponse {
        let items = try context.reports.items(
            project: context.project, parameters: context.parameters, limit: 200)
        let rows = items.map {
            [
                HTML.escape($0.itemId), HTML.number($0.exposures), HTML.number($0.skips),
                HTML.number($0.clicks),
                HTML.percent($0.clickThroughRate),
            ]
        }
        return page(
            context, path: "/items", title: "Exposures",
            content: HTML.table(
                ["Item", "Exposures", "Skips", "Clicks", "Click rate"], rows, numeric: [1, 2, 3, 4],
                id: "items")
                + "<p class=\"hint\">Exposures and skips come from list exposure; clicks are <code>$element_click</code> events with the same <code>$item_id</code>.</p>"
        )
    }

    func funnelsPage(_ context: Context) throws(ServerError) -> ServerResponse {
        let parameters = context.parameters
        var inputs = ""
        for index in 1...5 {
            inputs +=
                "<label>Step \(index) <input name=\"step\(index)\" placeholder=\"event:NAME, page:NAME or defined:ID\" value=\"\(HTML.escape(parameters.text("step\(index)") ?? ""))\"></label>"
        }
        inputs +=
            "<label>Window (days) <input type=\"number\" min=\"1\" max=\"365\" name=\"window_days\" value=\"\(HTML.escape(parameters.text("window_days") ?? "14"))\"></label>"
        var content = filterForm(
            context, path: "/funnels", extra: "<fieldset class=\"steps\">\(inputs)</fieldset>")
        if parameters.text("step1") != nil {
            let report = try context.reports.funnel(project: context.project, parameters: parameters)
            content += SVGChart.bars(
                report.steps.map { ($0.label, $0.people, HTML.percent($0.conversion)) },
                title: "People per step")
            content += HTML.table(
                ["Step", "People", "Conversion", "Drop-off"],
                report.steps.map {
                    [
                        HTML.escape($0.label), HTML.number($0.people), HTML.percent($0.conversion),
                        HTML.number($0.dropOff),
                    ]
                }, numeric: [1, 2, 3], id: "funnel")
            content +=
                "<p>Overall conversion: <strong id=\"conversion\">\(HTML.percent(report.conversion))</strong></p>"
        } else {
            content +=
                "<p class=\"hint\">Give at least two steps, e.g. <code>page:Home</code>, <code>event:$element_click</code>, <code>defined:buy</code>.</p>"
        }
        return page(context, path: "/funnels", title: "Funnels", content: content, filters: false)
    }

    func retentionPage(_ context: Context) throws(ServerError) -> ServerResponse {
        let parameters = context.parameters
        let extra = """
            <label>Return event <input name="return_event" placeholder="any event" value="\(HTML.escape(parameters.text("return_event") ?? ""))"></label>
            <label>Days <input type="number" min="1" max="60" name="days" value="\(HTML.escape(parameters.text("days") ?? "7"))"></label>
            """
        let report = try context.reports.retention(project: context.project, parameters: parameters)
        let headers = ["First seen", "People"] + (0...report.days).map { "Day \($0)" }
        let rows = report.cohorts.map { cohort in
            [HTML.escape(cohort.day), HTML.number(cohort.people)]
                + (0...report.days).map { day -> String in
                    guard let rate = cohort.rate(day: day) else { return "" }
                    let level = min(9, Int(saturating: (rate * 10).rounded(.down)))
                    return "<span class=\"heat h\(level)\">\(HTML.percent(rate))</span>"
                }
        }
        return page(
            context, path: "/retention", title: "Retention",
            content: filterForm(context, path: "/retention", extra: extra)
                + HTML.table(headers, rows, numeric: Set(1..<headers.count), id: "retention")
                + "<p class=\"hint\">Cohorts by the day of each person's first event in the range; day N: people who did the return event N days later.</p>",
            filters: false)
    }

    func livePage(_ context: Context) -> ServerResponse {
        let project = context.parameters.project.map { HTML.escape($0) } ?? ""
        let content = """
            <p class="hint">The newest events as they arrive (refreshed every 2 seconds). <span id="live-status"></span></p>
            <table id="live" data-project="\(project)"><thead><tr><th>Received</th><th>Type</th><th>Name</th><th>Page</th><th>Person</th><th>Message</th></tr></thead><tbody></tbody></table>
            <script src="/assets/live.js"></script>
            """
        return page(context, path: "/live", title: "Live events", content: content, filters: false)
    }

    func liveEvents(_ context: Context) throws(ServerError) -> ServerResponse {
        let after = try context.parameters.integer("after", default: 0, in: 0...Int.max)
        let events = try service.events.recentEvents(
            projectId: context.project.id, limit: 100, after: Int64(after))
        return .json(
            200,
            [
                "events": .array(
                    events.map { event in
                        [
                            "sequence": .int(event.sequence), "type": .string(event.type.rawValue),
                            "name": .string(event.name ?? ""), "page": .string(event.page ?? ""),
                            "person": .string(event.person ?? ""),
                            "receivedAt": .string(event.receivedAt.iso8601),
                            "message": .string(event.payload),
                        ]
                    })
            ])
    }
}
