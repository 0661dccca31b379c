import FootprintWire

extension EventStore {
    /// ``rollupCounts(projectId:filter:)`` without the other kinds' rows: a store that reads
    /// only those kinds gives the same rows.
    public func rollupCounts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>)
        throws(ServerError) -> [RollupCount]
    {
        try rollupCounts(projectId: projectId, filter: filter).filter { kinds.contains($0.kind) }
    }

    /// ``RollupReports/people(_:filter:)`` of the person rows: a store that can count people
    /// itself gives the same numbers.
    public func peopleCounts(projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?)
        throws(ServerError) -> [String: Int]
    {
        if let keys, keys.isEmpty { return [:] }
        return RollupReports.people(
            try rollupPersonDays(
                projectId: projectId, filter: filter, kind: kind, keys: keys, pages: .merged),
            filter: filter)
    }

    /// ``RollupReports/people(of:rows:filter:)`` of the person rows of every selector: a store
    /// that can count people itself gives the same numbers.
    public func peopleCounts(
        projectId: Int64, filter: ReportFilter, selections: [Set<RollupReports.PeopleSelector>]
    ) throws(ServerError) -> [Int] {
        var keys: [RollupKind: Set<String>] = [:]
        for selector in selections.flatMap({ $0 }) { keys[selector.kind, default: []].insert(selector.key) }
        var rows: [RollupKind: [RollupPersonDays]] = [:]
        for (kind, wanted) in keys {
            rows[kind] = try rollupPersonDays(
                projectId: projectId, filter: filter, kind: kind, keys: kind == .anyEvent ? nil : wanted,
                pages: .each)
        }
        return RollupReports.people(of: selections, rows: rows, filter: filter)
    }

    /// The people of each match's selectors (``peopleCounts(projectId:filter:selections:)``): a
    /// store that counts people per key gives the same numbers.
    public func peopleCounts(
        projectId: Int64, filter: ReportFilter, matches: [RollupReports.DefinitionMatch]
    ) throws(ServerError) -> [Int] {
        try peopleCounts(projectId: projectId, filter: filter, selections: matches.map(\.people))
    }

    /// ``activityOfPersonRows(projectId:filter:)``: a store that can count people itself gives
    /// the same numbers.
    public func activity(projectId: Int64, filter: ReportFilter) throws(ServerError) -> PeopleActivity {
        try activityOfPersonRows(projectId: projectId, filter: filter)
    }

    /// ``retentionOfPersonRows(projectId:filter:returnEvent:days:)``: a store that can count
    /// people itself gives the same numbers.
    public func retention(projectId: Int64, filter: ReportFilter, returnEvent: String?, days: Int)
        throws(ServerError) -> RetentionReport
    {
        try retentionOfPersonRows(projectId: projectId, filter: filter, returnEvent: returnEvent, days: days)
    }

    /// ``RollupReports/retention(active:returns:returnEvent:days:filter:)`` of the person rows.
    func retentionOfPersonRows(projectId: Int64, filter: ReportFilter, returnEvent: String?, days: Int)
        throws(ServerError) -> RetentionReport
    {
        RollupReports.retention(
            active: try rollupPersonDays(
                projectId: projectId, filter: filter, kind: .anyEvent, keys: nil, pages: .merged),
            returns: try returnEvent.map { event throws(ServerError) in
                try rollupPersonDays(
                    projectId: projectId, filter: filter, kind: .trackEvents, keys: [event], pages: .merged)
            },
            returnEvent: returnEvent, days: days, filter: filter)
    }

    /// ``RollupReports/activity(active:viewers:filter:)`` of the person rows.
    func activityOfPersonRows(projectId: Int64, filter: ReportFilter) throws(ServerError) -> PeopleActivity {
        RollupReports.activity(
            active: try rollupPersonDays(
                projectId: projectId, filter: filter, kind: .anyEvent, keys: nil, pages: .merged),
            viewers: try rollupPersonDays(
                projectId: projectId, filter: filter, kind: .pageViews, keys: nil, pages: .merged),
            filter: filter)
    }

    /// The report engine over a project's events that pass `filter`.
    /// - Parameters:
    ///   - projectId: the project.
    ///   - filter: time range and filters.
    ///   - needsProperties: read every property (definitions with attribute conditions).
    public func reportEngine(projectId: Int64, filter: ReportFilter, needsProperties: Bool = false)
        throws(ServerError) -> ReportEngine
    {
        ReportEngine(
            events: try analyticsEvents(
                projectId: projectId, filter: filter, properties: needsProperties ? .included : .omitted),
            identityLinks: try identityLinks(projectId: projectId))
    }
}
