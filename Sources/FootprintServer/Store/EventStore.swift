import FootprintWire

/// Where the server keeps events and identity links: the write path, the reads reports make,
/// and the deletion and export of a person. Projects, keys, config and snapshots are the
/// ``MetadataStore``'s; a server runs on one of each (``Stores``). ``SQLiteEventStore`` and
/// ``ClickHouseEventStore`` implement it.
///
/// Implementations are safe to call from many threads; ``write(_:)`` returns only once the batch
/// is durably committed.
public protocol EventStore: Sendable {
    /// Stores a batch; events whose `messageId` the project already has are skipped.
    /// Blocks until the batch is durably committed.
    func write(_ batch: IngestBatch) throws(ServerError) -> WriteOutcome

    /// Stores a batch like ``write(_:)`` without blocking: `completion` runs once the batch is
    /// durably committed (or failed), on a thread of the store's choosing.
    func write(
        _ batch: IngestBatch, completion: @escaping @Sendable (Result<WriteOutcome, ServerError>) -> Void)

    /// Runs `body`, which prepares a batch (decodes a request) and hands it to
    /// ``write(_:completion:)``; a group commit about to start may wait a moment for it.
    func preparingWrite<T>(_ body: () throws -> T) rethrows -> T

    /// The number of events stored for a project.
    func eventCount(projectId: Int64) throws(ServerError) -> Int

    /// The events a project's devices reported evicting unsent (their queue was full), each
    /// batch's report counted once.
    func lostEventCount(projectId: Int64) throws(ServerError) -> Int

    /// The times of a project's oldest and newest events, or `nil` when it has none.
    func eventTimeSpan(projectId: Int64) throws(ServerError) -> ClosedRange<Timestamp>?

    /// The events of a project that pass `filter`, in any order, for ``ReportEngine``.
    /// - Parameter properties: whether to read every property too (for attribute conditions).
    func analyticsEvents(projectId: Int64, filter: ReportFilter, properties: AnalyticsEvent.Properties)
        throws(ServerError)
        -> [AnalyticsEvent]

    /// How many people (identity links applied) reached each of `stepCount` funnel steps in
    /// `filter`, as ``FunnelReport/reached(stepCount:people:windowMilliseconds:)`` counts them
    /// over each person's events that complete steps: those of the per-person event times of
    /// `sources` (each row's steps by its page).
    func funnelPeople(
        projectId: Int64, filter: ReportFilter, sources: FunnelSources, stepCount: Int,
        windowMilliseconds: Int64
    ) throws(ServerError) -> [Int]

    /// The daily rollup counts of a project on the days of `filter` (whole UTC days), with its
    /// other filters applied, summed per day, kind and key.
    func rollupCounts(projectId: Int64, filter: ReportFilter) throws(ServerError) -> [RollupCount]

    /// ``rollupCounts(projectId:filter:)`` of these kinds only, for the reports that read a few
    /// of them (traffic reads 3 of the 10 kinds, while items' exposures are most of the rows).
    func rollupCounts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>) throws(ServerError)
        -> [RollupCount]

    /// The daily counts of these kinds on the days of `filter`, with its other filters, summed
    /// per kind, key, page and day (in no set order); with `texts`, each element click's (kinds 2 and 3) last
    /// stored text, else no text (matching definitions reads none, and on the cluster the texts
    /// are a read of their own over the person rows).
    func rollupPageCounts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>, texts: Bool)
        throws(ServerError) -> [RollupPageCount]

    /// Who did what on which days, in the 64-day blocks `filter`'s days touch (callers keep the
    /// days in range), with identity links applied and its other filters.
    /// - Parameters:
    ///   - keys: only these keys (`nil`: all).
    ///   - pages: each row's page, or (``RollupPersonDays/Pages/merged``) a store may give one row
    ///     per person over every page (its page `""`): far fewer rows, for the callers that only
    ///     count people.
    func rollupPersonDays(
        projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?,
        pages: RollupPersonDays.Pages
    ) throws(ServerError) -> [RollupPersonDays]

    /// The distinct people (identity links applied) per key of `kind` who did it on a day of
    /// `filter`'s range (whole days), with its other filters.
    /// - Parameter keys: only these keys (`nil`: all).
    func peopleCounts(projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?)
        throws(ServerError) -> [String: Int]

    /// The distinct people of each of `selections` (who did something a selector of it names)
    /// on a day of `filter`'s range (whole days), with its other filters; in order.
    func peopleCounts(
        projectId: Int64, filter: ReportFilter, selections: [Set<RollupReports.PeopleSelector>]
    ) throws(ServerError) -> [Int]

    /// ``peopleCounts(projectId:filter:selections:)`` of definitions' matches
    /// (``RollupReports/match(_:counts:)``), in order: a store may count a match that has
    /// ``RollupReports/DefinitionMatch/wholeKeys`` from its people per key instead.
    func peopleCounts(projectId: Int64, filter: ReportFilter, matches: [RollupReports.DefinitionMatch])
        throws(ServerError) -> [Int]

    /// Who was active on the days of `filter`'s range (whole days), with its other filters: the
    /// people, DAU/WAU/MAU and visitors per day, and each page's visitors.
    func activity(projectId: Int64, filter: ReportFilter) throws(ServerError) -> PeopleActivity

    /// Retention over the days of `filter`'s range (whole days), with its other filters: cohorts
    /// by each person's first active day, and per day `0…days` after it those active again (or
    /// doing `returnEvent`, a track event's name).
    func retention(projectId: Int64, filter: ReportFilter, returnEvent: String?, days: Int)
        throws(ServerError) -> RetentionReport

    /// The figures (``SessionFigures``) of the sessions that started on the days of `filter`, with
    /// its app version and OS filters. With its page: of each session's events on that page (their
    /// span and page views), counted on the day of the first.
    func sessionFigures(projectId: Int64, filter: ReportFilter) throws(ServerError) -> SessionFigures

    /// Each page's dwell histogram over the days of `filter`.
    func rollupDwell(projectId: Int64, filter: ReportFilter) throws(ServerError) -> [String: DwellHistogram]

    /// Page-to-page moves (and session ends) from views on the days of `filter`, summed. With
    /// its page, the moves among the sessions' events on that page (from its views to the next
    /// view of it, or to the session's end; see ``storedSessions(projectId:filter:)``).
    /// - Parameter page: only moves from this page.
    func rollupMoves(projectId: Int64, filter: ReportFilter, from page: String?) throws(ServerError)
        -> [RollupMove]

    /// The `anonymousId` → `userId` links identify and alias made: for an anonymous id linked to
    /// several user ids (a shared device), the smallest of them in byte order, so that the
    /// answer is the same whatever order, how often and through which collector the links
    /// arrived. Every report, deletion and export resolves people with it.
    func identityLinks(projectId: Int64) throws(ServerError) -> [String: String]

    /// The newest events of a project, newest first.
    /// - Parameters:
    ///   - limit: the most returned.
    ///   - after: only events stored after the one with this ``RecentEvent/sequence``.
    func recentEvents(projectId: Int64, limit: Int, after: Int64?) throws(ServerError) -> [RecentEvent]

    /// Deletes a person's events and identity links, updating every rollup; later events
    /// carrying one of the person's ids are refused for `request.refuseForDays`.
    /// - Parameter id: a user id or an anonymous id (the person it is linked to is deleted).
    func deletePerson(id: String, projectId: Int64, request: PersonDeletion.Request) throws(ServerError)
        -> PersonDeletion

    /// Every stored event and identity link of the person `id` names.
    func exportPerson(id: String, projectId: Int64) throws(ServerError) -> PersonExport

    /// Deletes every project's events older than its retention (its own days, else
    /// `defaultDays`; ``MetadataStore/anyProjectHasRetention()``) as of `now`, in chunks of
    /// `chunk` events where the store deletes in steps, and records each project's horizon.
    /// - Returns: the events deleted per project name.
    @discardableResult
    func applyRetention(defaultDays: Int?, now: Timestamp, chunk: Int) throws(ServerError) -> [String: Int]

    // MARK: Events the screens need

    /// Where a connect session started now begins to read device clicks: the sequence of the
    /// project's newest stored event, `0` when it has none.
    func clickCursor(projectId: Int64) throws(ServerError) -> Int64

    /// The `$element_click` events of `devices` (those that uploaded snapshots in `session`,
    /// ``ScreenStore/connectSessionDevices(connectSessionId:)``), stored since the session
    /// started and after the event sequence `after`, oldest first. Looks at a bounded stretch of
    /// stored events per call: call again from the returned cursor until it stops moving.
    func deviceClicks(
        projectId: Int64, session: ConnectSession, devices: Set<String>, after: Int64, limit: Int
    ) throws(ServerError) -> DeviceClicks

    /// The newest `$plan_health` report of each app version that reported in the 400 days up to
    /// the project's newest event, newest reports first.
    func planHealthReports(projectId: Int64, limit: Int) throws(ServerError) -> [PlanHealthReport]

    /// A view of this store for the reads of one report: what they look up about the store's
    /// own state, rather than about the events (the ClickHouse store's settled round and who
    /// changed since it), each is looked up once, by the first read that needs it, and the
    /// others take the same answer. Its writes and everything else are this store's; closing it
    /// does nothing. A store with nothing to share (SQLite) answers itself.
    func sharingLookups() -> any EventStore

    /// Finishes pending writes and closes the database. Later calls fail with `closed`.
    func close()
}

extension EventStore {
    /// This store: nothing it looks up is worth sharing between reads.
    public func sharingLookups() -> any EventStore { self }

    /// Runs `body`, for stores that do not group their writes.
    public func preparingWrite<T>(_ body: () throws -> T) rethrows -> T { try body() }

    /// Calls the blocking ``write(_:)`` and then `completion`, for stores without a queue of their own.
    public func write(
        _ batch: IngestBatch, completion: @escaping @Sendable (Result<WriteOutcome, ServerError>) -> Void
    ) {
        do {
            completion(.success(try write(batch)))
        } catch {
            completion(.failure(error))
        }
    }
}
