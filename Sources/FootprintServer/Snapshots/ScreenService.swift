import FootprintWire

/// The reads of the Screens page, the live connect view and the plan health table, for the JSON
/// API and the dashboard alike: snapshots from the ``ScreenStore``, figures from the rollups
/// through ``ReportService`` (no scan of their own).
public struct ScreenService: Sendable {
    /// The reports, over the event store.
    public let reports: ReportService
    /// Where sessions and snapshots are kept.
    public var screens: any ScreenStore { reports.metadata }

    /// Creates the service.
    public init(stores: Stores) {
        reports = ReportService(stores: stores)
    }

    /// The clicks and people of each element of `snapshot` over the parameters' range and
    /// filters, for its exact and its similar path: the figures the elements report shows for
    /// the same paths (exact and similar grouping).
    public func elementFigures(project: Project, snapshot: StoredSnapshot, parameters: ReportParameters)
        throws(ServerError) -> [ElementFigures]
    {
        let elements = ElementFigures.paths(ofDocument: snapshot.document)
        let exact = try figures(project, parameters, grouping: .exact, paths: Set(elements.map(\.path)))
        let similar = try figures(
            project, parameters, grouping: .similar, paths: Set(elements.map(\.similarPath)))
        return elements.map { element in
            ElementFigures(
                index: element.index, path: element.path, similarPath: element.similarPath,
                clicks: exact[element.path]?.clicks ?? 0, people: exact[element.path]?.uniqueVisitors ?? 0,
                similarClicks: similar[element.similarPath]?.clicks ?? 0,
                similarPeople: similar[element.similarPath]?.uniqueVisitors ?? 0)
        }
    }

    /// The elements report's rows for `paths` only.
    private func figures(
        _ project: Project, _ parameters: ReportParameters, grouping: ElementGrouping, paths: Set<String>
    ) throws(ServerError) -> [String: ElementStatistics] {
        guard !paths.isEmpty else { return [:] }
        let rows = try reports.elements(
            project: project, parameters: parameters, grouping: grouping, limit: paths.count, paths: paths)
        return Dictionary(rows.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// What the live connect view shows next: the session, its snapshots after `afterSnapshot`
    /// and its devices' taps after the event sequence `afterEvent`.
    /// - Returns: `nil` when the project has no such session.
    public func live(
        project: Project, connectSessionId: Int64, afterSnapshot: Int64, afterEvent: Int64, limit: Int
    ) throws(ServerError) -> LiveConnect? {
        guard let session = try screens.connectSession(id: connectSessionId, projectId: project.id) else {
            return nil
        }
        let snapshots = try screens.snapshots(
            projectId: project.id, connectSessionId: connectSessionId, after: afterSnapshot, limit: limit)
        let clicks = try reports.stores.deviceClicks(
            projectId: project.id, session: session, after: afterEvent, limit: limit)
        return LiveConnect(
            session: session, snapshots: snapshots, clicks: clicks.clicks,
            snapshotCursor: snapshots.last?.id ?? afterSnapshot, eventCursor: clicks.cursor)
    }

    /// The plan health table: the newest `$plan_health` report of each of the `versions` app
    /// versions that reported last, against the project's current plan, with what each entry
    /// matched on each app version over the parameters' range (their app version filter is
    /// replaced by each reporting version).
    public func planHealth(project: Project, parameters: ReportParameters, versions: Int = 20)
        throws(ServerError) -> PlanHealth
    {
        let config = try reports.metadata.latestConfig(projectId: project.id)
        let plan = config.flatMap { try? TrackingPlan(jsonBytes: Array($0.document.utf8)) }
        let healthReports = try reports.events.planHealthReports(
            projectId: project.id, limit: max(1, min(versions, 100)))
        var counts: [String: [RollupCount]] = [:]
        for report in healthReports {
            var filter = parameters.filter
            filter.appVersion = report.appVersion.isEmpty ? nil : report.appVersion
            counts[report.appVersion] = try reports.events.rollupCounts(projectId: project.id, filter: filter)
        }
        return PlanHealth(plan: plan, planVersion: config?.version, reports: healthReports, counts: counts)
    }
}
