import Dispatch
import FootprintWire

/// Answers report requests for the JSON API, the dashboard and the CLI: finds the project and
/// builds each report from the store's rollups (``RollupReports``), or from the range's events
/// (``ReportEngine``) when rollups cannot answer.
public struct ReportService: Sendable {
    /// The stores every query goes through.
    public let stores: Stores
    /// Where projects and definitions are.
    public var metadata: any MetadataStore { stores.metadata }
    /// Where the events are.
    public var events: any EventStore { stores.events }

    /// Creates a service over `stores`.
    public init(stores: Stores) {
        self.stores = stores
    }

    /// This service over a view of its events whose reads share what they look up about the
    /// store's own state (``EventStore/sharingLookups()``): for the reads of one report, or one
    /// request, so that they take one view of it. A later request takes a new one, and sees
    /// what was written before it.
    public func sharingLookups() -> ReportService {
        ReportService(stores: Stores(metadata: metadata, events: events.sharingLookups()))
    }

    /// The project called `name`, or the first project when `name` is `nil`.
    public func project(named name: String?) throws(ServerError) -> Project {
        if let name {
            guard let project = try metadata.project(named: name) else {
                throw ServerError(code: .project, message: "no project named \(name)")
            }
            return project
        }
        guard let first = try metadata.projects().first else {
            throw ServerError(code: .project, message: "the server has no project")
        }
        return first
    }

    /// The engine over the project's events that pass the parameters' filter.
    /// - Parameter definitions: definitions the report will match (their attribute conditions
    ///   make the store read every property).
    public func engine(
        project: Project, parameters: ReportParameters, definitions: [EventDefinition] = []
    ) throws(ServerError) -> ReportEngine {
        try events.reportEngine(
            projectId: project.id, filter: parameters.filter,
            needsProperties: definitions.contains(where: \.needsProperties))
    }

    /// `given` (which holds at least `kinds`), or else the range's daily counts of `kinds` read
    /// from the store.
    private func rollupCounts(
        _ project: Project, _ filter: ReportFilter, kinds: Set<RollupKind>, given: [RollupCount]?
    ) throws(ServerError) -> [RollupCount] {
        if let given { return given }
        return try events.rollupCounts(projectId: project.id, filter: filter, kinds: kinds)
    }

    // Every report below reads rollups when ``RollupReports/canAnswer(_:)`` (whole UTC days:
    // always from the API and the dashboard), else the range's events through the engine.

    /// PV, UV and DAU/WAU/MAU per day and PV, UV and dwell per page.
    /// - Parameter dwell: add each page's dwell.
    public func traffic(project: Project, parameters: ReportParameters, dwell: Bool = true)
        throws(ServerError)
        -> TrafficReport
    {
        try traffic(project: project, parameters: parameters, dwell: dwell, counts: nil)
    }

    /// ``traffic(project:parameters:dwell:)`` over the range's daily counts when already read
    /// (at least ``RollupReports/trafficCountKinds``).
    func traffic(project: Project, parameters: ReportParameters, dwell: Bool, counts: [RollupCount]?)
        throws(ServerError) -> TrafficReport
    {
        let filter = parameters.filter
        guard RollupReports.canAnswer(filter) else {
            return try engine(project: project, parameters: parameters).traffic(days: filter)
        }
        // The dwell (a merge of every session's marks), the counts and the people are read side
        // by side.
        let ((activity, counts), dwell) = try atOnce(
            { () throws(ServerError) in
                try atOnce(
                    { () throws(ServerError) in try events.activity(projectId: project.id, filter: filter) },
                    { () throws(ServerError) in
                        try rollupCounts(
                            project, filter, kinds: RollupReports.trafficCountKinds, given: counts)
                    })
            },
            { () throws(ServerError) in
                dwell ? try events.rollupDwell(projectId: project.id, filter: filter) : [:]
            })
        return RollupReports.traffic(counts: counts, activity: activity, dwell: dwell, filter: filter)
    }

    /// Track events by name with their counts from the daily rollups, most frequent first.
    public func eventCounts(project: Project, parameters: ReportParameters, limit: Int) throws(ServerError)
        -> [(event: String, count: Int)]
    {
        try eventCounts(project: project, parameters: parameters, limit: limit, counts: nil)
    }

    /// ``eventCounts(project:parameters:limit:)`` over the range's daily counts when already read
    /// (at least track events).
    func eventCounts(project: Project, parameters: ReportParameters, limit: Int, counts: [RollupCount]?)
        throws(ServerError) -> [(event: String, count: Int)]
    {
        RollupReports.top(
            .trackEvents,
            in: try rollupCounts(project, parameters.filter, kinds: [.trackEvents], given: counts),
            limit: limit
        ).map { (event: $0.key, count: $0.count) }
    }

    /// Track events by name with their counts and people, most frequent first.
    public func topEvents(project: Project, parameters: ReportParameters, limit: Int) throws(ServerError)
        -> [EventStatistics]
    {
        try topEvents(project: project, parameters: parameters, limit: limit, counts: nil)
    }

    /// ``topEvents(project:parameters:limit:)`` over the range's daily counts when already read
    /// (at least track events).
    func topEvents(project: Project, parameters: ReportParameters, limit: Int, counts: [RollupCount]?)
        throws(ServerError) -> [EventStatistics]
    {
        let filter = parameters.filter
        guard RollupReports.canAnswer(filter) else {
            return try engine(project: project, parameters: parameters).topEvents(limit: limit)
        }
        let top = RollupReports.top(
            .trackEvents, in: try rollupCounts(project, filter, kinds: [.trackEvents], given: counts),
            limit: limit)
        let people = try events.peopleCounts(
            projectId: project.id, filter: filter, kind: .trackEvents, keys: Set(top.map(\.key)))
        return RollupReports.events(top: top, people: people)
    }

    /// The events each definition matches, with people, most frequent first. Definitions with
    /// attribute conditions (or mixing similar with other path rules) read the range's events;
    /// the others read rollups.
    public func definedEvents(project: Project, parameters: ReportParameters, definitions: [EventDefinition])
        throws(ServerError) -> [EventStatistics]
    {
        let filter = parameters.filter
        let wholeDays = RollupReports.canAnswer(filter)
        let fromRollups = wholeDays ? definitions.filter(RollupReports.canAnswer) : []
        let fromEvents = wholeDays ? definitions.filter { !RollupReports.canAnswer($0) } : definitions
        var statistics = try definedEventsFromRollups(
            project: project, filter: filter, definitions: fromRollups)
        if !fromEvents.isEmpty {
            statistics += try engine(project: project, parameters: parameters, definitions: fromEvents)
                .definedEvents(fromEvents)
        }
        return statistics.sorted(by: EventStatistics.mostFrequentFirst)
    }

    /// The events and people of definitions that ``RollupReports/canAnswer(_:)-swift.type.method``.
    private func definedEventsFromRollups(
        project: Project, filter: ReportFilter, definitions: [EventDefinition]
    )
        throws(ServerError) -> [EventStatistics]
    {
        guard !definitions.isEmpty else { return [] }
        let counts = try events.rollupPageCounts(
            projectId: project.id, filter: filter, kinds: RollupReports.definitionCountKinds, texts: false)
        let matches = definitions.map { RollupReports.match($0, counts: counts) }
        let people = try events.peopleCounts(projectId: project.id, filter: filter, matches: matches)
        return RollupReports.definedEvents(definitions, matches: matches, people: people)
    }

    /// `$element_click` paths with clicks, page, text and people, most clicked first.
    /// - Parameters:
    ///   - paths: only these paths (exact or similar, as `grouping` says), e.g. the elements
    ///     of one screen snapshot (default: every path).
    public func elements(
        project: Project, parameters: ReportParameters, grouping: ElementGrouping, limit: Int,
        paths: Set<String>? = nil
    )
        throws(ServerError) -> [ElementStatistics]
    {
        let filter = parameters.filter
        guard RollupReports.canAnswer(filter) else {
            let engine = try engine(project: project, parameters: parameters)
            guard let paths else { return engine.elements(grouping: grouping, limit: limit) }
            return engine.elements(grouping: grouping, limit: .max).filter { paths.contains($0.path) }
                .prefix(max(0, limit)).map { $0 }
        }
        let kind: RollupKind = grouping == .similar ? .similarElementClicks : .elementClicks
        var rows = try events.rollupPageCounts(
            projectId: project.id, filter: filter, kinds: [kind], texts: true)
        if let paths { rows.removeAll { !paths.contains($0.key) } }
        let top = RollupReports.elements(rows: rows, people: [:], limit: limit)
        let people = try events.peopleCounts(
            projectId: project.id, filter: filter, kind: kind, keys: Set(top.map(\.path)))
        return RollupReports.elements(rows: rows, people: people, limit: limit)
    }

    /// Exposures, skips, clicks and exposure→click rate per list item, most exposed first.
    public func items(project: Project, parameters: ReportParameters, limit: Int) throws(ServerError)
        -> [ItemStatistics]
    {
        let filter = parameters.filter
        guard RollupReports.canAnswer(filter) else {
            return try engine(project: project, parameters: parameters).items(limit: limit)
        }
        return RollupReports.items(
            counts: try events.rollupCounts(
                projectId: project.id, filter: filter, kinds: RollupReports.itemCountKinds),
            limit: limit)
    }

    /// Session count, length and screens per session. With a page filter, over each session's
    /// events on that page.
    public func sessions(project: Project, parameters: ReportParameters) throws(ServerError) -> SessionReport
    {
        let filter = parameters.filter
        guard RollupReports.canAnswer(filter) else {
            return try engine(project: project, parameters: parameters).sessions()
        }
        return RollupReports.sessions(try events.sessionFigures(projectId: project.id, filter: filter))
    }

    /// The most common next pages after `page`.
    public func paths(project: Project, parameters: ReportParameters, after page: String, limit: Int)
        throws(ServerError) -> PathReport
    {
        let filter = parameters.filter
        guard RollupReports.canAnswer(filter) else {
            return try engine(project: project, parameters: parameters).paths(after: page, limit: limit)
        }
        return RollupReports.paths(
            after: page, moves: try events.rollupMoves(projectId: project.id, filter: filter, from: page),
            limit: limit)
    }

    /// The most common page-to-page moves.
    public func transitions(project: Project, parameters: ReportParameters, limit: Int) throws(ServerError)
        -> [PageMove]
    {
        let filter = parameters.filter
        guard RollupReports.canAnswer(filter) else {
            return try engine(project: project, parameters: parameters).topTransitions(limit: limit)
        }
        return RollupReports.transitions(
            try events.rollupMoves(projectId: project.id, filter: filter, from: nil), limit: limit)
    }

    /// The funnel the parameters describe, from its steps' event times (``FunnelSources``), or
    /// from the range's events when those cannot answer it.
    public func funnel(project: Project, parameters: ReportParameters) throws(ServerError) -> FunnelReport {
        let definitions = try metadata.eventDefinitions(projectId: project.id)
        let steps = try parameters.funnelSteps(definitions: definitions)
        guard steps.count >= 2 else {
            throw ServerError(code: .invalidQuery, message: "step1, step2: a funnel has at least two steps")
        }
        let window = try parameters.integer("window_days", default: 14, in: 1...365)
        let used = steps.compactMap { step -> EventDefinition? in
            if case .defined(let definition) = step { return definition }
            return nil
        }
        let windowMilliseconds = Int64(window) * 86_400_000
        let filter = parameters.filter
        // Defined steps are matched against the range's daily counts, so they need whole days.
        let counts =
            used.isEmpty || !RollupReports.canAnswer(filter)
            ? []
            : try events.rollupPageCounts(
                projectId: project.id, filter: filter,
                kinds: RollupReports.definitionCountKinds, texts: false)
        guard used.isEmpty || RollupReports.canAnswer(filter),
            let sources = FunnelSources(steps: steps, counts: counts)
        else {
            return try engine(project: project, parameters: parameters, definitions: used).funnel(
                steps, windowMilliseconds: windowMilliseconds)
        }
        // The steps' event times per person, not the range's events.
        return FunnelReport(
            steps: steps,
            reached: try events.funnelPeople(
                projectId: project.id, filter: filter, sources: sources, stepCount: steps.count,
                windowMilliseconds: windowMilliseconds),
            windowMilliseconds: windowMilliseconds)
    }

    /// The retention table the parameters describe (`return_event`, `days`).
    public func retention(project: Project, parameters: ReportParameters) throws(ServerError)
        -> RetentionReport
    {
        let days = try parameters.integer("days", default: 7, in: 1...60)
        let filter = parameters.filter
        let returnEvent = parameters.text("return_event")
        guard RollupReports.canAnswer(filter) else {
            let lastDay = filter.to.map { $0.adding(milliseconds: -1).dayNumber }
            return try engine(project: project, parameters: parameters).retention(
                returnEvent: returnEvent, days: days, lastDay: lastDay)
        }
        return try events.retention(
            projectId: project.id, filter: filter, returnEvent: returnEvent, days: days)
    }
}
