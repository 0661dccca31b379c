import FootprintWire

extension EventStore {
    /// The report engine over a project's events that pass `filter`.
    /// - Parameters:
    ///   - projectId: the project.
    ///   - filter: time range and filters.
    ///   - needsProperties: read every property (definitions with attribute conditions).
    public func reportEngine(projectId: Int64, filter: ReportFilter, needsProperties: Bool = false)
        throws(ServerError) -> ReportEngine
    {
        ReportEngine(
            events: try analyticsEvents(projectId: projectId, filter: filter, properties: needsProperties),
            identityLinks: try identityLinks(projectId: projectId))
    }
}
