import FootprintWire

/// Answers report requests for the JSON API and the dashboard: finds the project, reads its
/// events through the store and runs the ``ReportEngine``.
public struct ReportService: Sendable {
    /// The store every query goes through.
    public let store: any EventStore

    /// Creates a service over `store`.
    public init(store: any EventStore) {
        self.store = store
    }

    /// The project called `name`, or the first project when `name` is `nil`.
    public func project(named name: String?) throws(ServerError) -> Project {
        if let name {
            guard let project = try store.project(named: name) else {
                throw ServerError(code: .project, message: "no project named \(name)")
            }
            return project
        }
        guard let first = try store.projects().first else {
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
        try store.reportEngine(
            projectId: project.id, filter: parameters.filter,
            needsProperties: definitions.contains(where: \.needsProperties))
    }

    /// PV, UV and DAU/WAU/MAU per day and PV, UV per page: from the daily rollups when the range
    /// is whole days (always, from the API and the dashboard), else from the events.
    /// - Parameters:
    ///   - dwell: add each page's dwell (reads the range's page views and leaves).
    ///   - pageVisitors: count each page's visitors (else 0; reads far fewer rollup rows).
    public func traffic(
        project: Project, parameters: ReportParameters, dwell: Bool = true, pageVisitors: Bool = true
    ) throws(ServerError) -> TrafficReport {
        let filter = parameters.filter
        guard RollupTraffic.canAnswer(filter) else {
            return try engine(project: project, parameters: parameters).traffic(days: filter)
        }
        let report = RollupTraffic.report(
            counts: try store.rollupCounts(projectId: project.id, filter: filter),
            people: try store.rollupPeople(projectId: project.id, filter: filter, byPage: pageVisitors),
            filter: filter)
        guard dwell else { return report }
        let visits = ReportEngine(
            events: try store.pageVisitEvents(projectId: project.id, filter: filter),
            identityLinks: try store.identityLinks(projectId: project.id))
        return report.with(dwell: visits.traffic(days: filter))
    }

    /// Track events by name with their counts from the daily rollups, most frequent first.
    public func eventCounts(project: Project, parameters: ReportParameters, limit: Int) throws(ServerError)
        -> [(event: String, count: Int)]
    {
        var totals: [String: Int] = [:]
        for count in try store.rollupCounts(projectId: project.id, filter: parameters.filter)
        where count.kind == .trackEvents {
            totals[count.key, default: 0] += count.count
        }
        return totals.map { (event: $0.key, count: $0.value) }.sorted {
            ($0.count, $1.event) > ($1.count, $0.event)
        }
        .prefix(max(0, limit)).map { $0 }
    }

    /// The funnel the parameters describe.
    public func funnel(project: Project, parameters: ReportParameters) throws(ServerError) -> FunnelReport {
        let definitions = try store.eventDefinitions(projectId: project.id)
        let steps = try parameters.funnelSteps(definitions: definitions)
        guard steps.count >= 2 else {
            throw ServerError(code: .invalidQuery, message: "step1, step2: a funnel has at least two steps")
        }
        let window = try parameters.integer("window_days", default: 14, in: 1...365)
        let used = steps.compactMap { step -> EventDefinition? in
            if case .defined(let definition) = step { return definition }
            return nil
        }
        return try engine(project: project, parameters: parameters, definitions: used).funnel(
            steps, windowMilliseconds: Int64(window) * 86_400_000)
    }

    /// The retention table the parameters describe (`return_event`, `days`).
    public func retention(project: Project, parameters: ReportParameters) throws(ServerError)
        -> RetentionReport
    {
        let days = try parameters.integer("days", default: 7, in: 1...60)
        let lastDay = parameters.filter.to.map { $0.adding(milliseconds: -1).dayNumber }
        return try engine(project: project, parameters: parameters).retention(
            returnEvent: parameters.text("return_event"), days: days, lastDay: lastDay)
    }
}
