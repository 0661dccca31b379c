import FootprintWire

extension ClickHouseEventStore {
    /// A view of this store whose reads share one ``SettledLookups``: the reads of one report
    /// take one round, and who changed since it, looked up once (see docs/ARCHITECTURE.md,
    /// *Settled people*).
    public func sharingLookups() -> any EventStore {
        SharedLookupReads(store: self, lookups: SettledLookups())
    }
}

/// ``ClickHouseEventStore/sharingLookups()``: every call goes to the store, the reads that take
/// a settled round with the view's lookups.
struct SharedLookupReads: EventStore {
    let store: ClickHouseEventStore
    let lookups: ClickHouseEventStore.SettledLookups

    func sharingLookups() -> any EventStore { self }

    func peopleCounts(projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?)
        throws(ServerError) -> [String: Int]
    {
        try store.peopleCounts(projectId: projectId, filter: filter, kind: kind, keys: keys, lookups: lookups)
    }

    func activity(projectId: Int64, filter: ReportFilter) throws(ServerError) -> PeopleActivity {
        try store.activity(projectId: projectId, filter: filter, lookups: lookups)
    }

    func retention(projectId: Int64, filter: ReportFilter, returnEvent: String?, days: Int)
        throws(ServerError) -> RetentionReport
    {
        try store.retention(
            projectId: projectId, filter: filter, returnEvent: returnEvent, days: days, lookups: lookups)
    }

    func sessionFigures(projectId: Int64, filter: ReportFilter) throws(ServerError) -> SessionFigures {
        try store.sessionFigures(projectId: projectId, filter: filter, lookups: lookups)
    }

    func rollupDwell(projectId: Int64, filter: ReportFilter) throws(ServerError) -> [String: DwellHistogram] {
        try store.rollupDwell(projectId: projectId, filter: filter, lookups: lookups)
    }

    func rollupMoves(projectId: Int64, filter: ReportFilter, from page: String?) throws(ServerError)
        -> [RollupMove]
    {
        try store.rollupMoves(projectId: projectId, filter: filter, from: page, lookups: lookups)
    }

    // Everything else is the store's own.

    func write(_ batch: IngestBatch) throws(ServerError) -> WriteOutcome { try store.write(batch) }

    func write(
        _ batch: IngestBatch, completion: @escaping @Sendable (Result<WriteOutcome, ServerError>) -> Void
    ) {
        store.write(batch, completion: completion)
    }

    func preparingWrite<T>(_ body: () throws -> T) rethrows -> T { try store.preparingWrite(body) }

    func eventCount(projectId: Int64) throws(ServerError) -> Int {
        try store.eventCount(projectId: projectId)
    }

    func lostEventCount(projectId: Int64) throws(ServerError) -> Int {
        try store.lostEventCount(projectId: projectId)
    }

    func eventTimeSpan(projectId: Int64) throws(ServerError) -> ClosedRange<Timestamp>? {
        try store.eventTimeSpan(projectId: projectId)
    }

    func analyticsEvents(projectId: Int64, filter: ReportFilter, properties: AnalyticsEvent.Properties)
        throws(ServerError) -> [AnalyticsEvent]
    {
        try store.analyticsEvents(projectId: projectId, filter: filter, properties: properties)
    }

    func funnelPeople(
        projectId: Int64, filter: ReportFilter, sources: FunnelSources, stepCount: Int,
        windowMilliseconds: Int64
    ) throws(ServerError) -> [Int] {
        try store.funnelPeople(
            projectId: projectId, filter: filter, sources: sources, stepCount: stepCount,
            windowMilliseconds: windowMilliseconds)
    }

    func rollupCounts(projectId: Int64, filter: ReportFilter) throws(ServerError) -> [RollupCount] {
        try store.rollupCounts(projectId: projectId, filter: filter)
    }

    func rollupCounts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>) throws(ServerError)
        -> [RollupCount]
    {
        try store.rollupCounts(projectId: projectId, filter: filter, kinds: kinds)
    }

    func rollupPageCounts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>, texts: Bool)
        throws(ServerError) -> [RollupPageCount]
    {
        try store.rollupPageCounts(projectId: projectId, filter: filter, kinds: kinds, texts: texts)
    }

    func rollupPersonDays(
        projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?,
        pages: RollupPersonDays.Pages
    ) throws(ServerError) -> [RollupPersonDays] {
        try store.rollupPersonDays(projectId: projectId, filter: filter, kind: kind, keys: keys, pages: pages)
    }

    func peopleCounts(
        projectId: Int64, filter: ReportFilter, selections: [Set<RollupReports.PeopleSelector>]
    ) throws(ServerError) -> [Int] {
        try store.peopleCounts(projectId: projectId, filter: filter, selections: selections)
    }

    func peopleCounts(projectId: Int64, filter: ReportFilter, matches: [RollupReports.DefinitionMatch])
        throws(ServerError) -> [Int]
    {
        try store.peopleCounts(projectId: projectId, filter: filter, matches: matches)
    }

    func identityLinks(projectId: Int64) throws(ServerError) -> [String: String] {
        try store.identityLinks(projectId: projectId)
    }

    func recentEvents(projectId: Int64, limit: Int, after: Int64?) throws(ServerError) -> [RecentEvent] {
        try store.recentEvents(projectId: projectId, limit: limit, after: after)
    }

    func deletePerson(id: String, projectId: Int64, request: PersonDeletion.Request) throws(ServerError)
        -> PersonDeletion
    {
        try store.deletePerson(id: id, projectId: projectId, request: request)
    }

    func exportPerson(id: String, projectId: Int64) throws(ServerError) -> PersonExport {
        try store.exportPerson(id: id, projectId: projectId)
    }

    @discardableResult
    func applyRetention(defaultDays: Int?, now: Timestamp, chunk: Int) throws(ServerError) -> [String: Int] {
        try store.applyRetention(defaultDays: defaultDays, now: now, chunk: chunk)
    }

    func clickCursor(projectId: Int64) throws(ServerError) -> Int64 {
        try store.clickCursor(projectId: projectId)
    }

    func deviceClicks(
        projectId: Int64, session: ConnectSession, devices: Set<String>, after: Int64, limit: Int
    ) throws(ServerError) -> DeviceClicks {
        try store.deviceClicks(
            projectId: projectId, session: session, devices: devices, after: after, limit: limit)
    }

    func planHealthReports(projectId: Int64, limit: Int) throws(ServerError) -> [PlanHealthReport] {
        try store.planHealthReports(projectId: projectId, limit: limit)
    }

    /// Does nothing: the store stays open for its other users.
    func close() {}
}
