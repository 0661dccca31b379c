import FootprintWire

/// Where the server keeps projects, events, identities and remote config. Every read and write
/// goes through this protocol, so that another database (ClickHouse) can take SQLite's place.
///
/// Implementations are safe to call from many threads; ``write(_:)`` returns only once the batch
/// is durably committed.
public protocol EventStore: AccessStore {
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

    /// The project a write key belongs to, or `nil`.
    func project(writeKey: String) throws(ServerError) -> Project?

    /// The project called `name`, or `nil`.
    func project(named name: String) throws(ServerError) -> Project?

    /// Creates a project with a new write key. Fails if the name is empty or taken.
    func createProject(named name: String) throws(ServerError) -> Project

    /// All projects, oldest first.
    func projects() throws(ServerError) -> [Project]

    /// Stores `document` (already validated) as a project's newest remote config; its version is
    /// one more than the latest.
    /// - Returns: the stored version.
    func storeConfig(projectId: Int64, document: String, at time: Timestamp) throws(ServerError)
        -> RemoteConfigVersion

    /// The latest remote config of a project, or `nil`.
    func latestConfig(projectId: Int64) throws(ServerError) -> RemoteConfigVersion?

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

    /// The daily counts of these kinds on the days of `filter`, with its other filters, summed
    /// per kind, key, page and day.
    func rollupPageCounts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>) throws(ServerError)
        -> [RollupPageCount]

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

    /// Who was active on the days of `filter`'s range (whole days), with its other filters: the
    /// people, DAU/WAU/MAU and visitors per day, and each page's visitors.
    func activity(projectId: Int64, filter: ReportFilter) throws(ServerError) -> PeopleActivity

    /// Retention over the days of `filter`'s range (whole days), with its other filters: cohorts
    /// by each person's first active day, and per day `0…days` after it those active again (or
    /// doing `returnEvent`, a track event's name).
    func retention(projectId: Int64, filter: ReportFilter, returnEvent: String?, days: Int)
        throws(ServerError) -> RetentionReport

    /// The sessions that started on the days of `filter`, with its app version and OS filters.
    /// With its page: each session's events on that page (their span and page views), counted
    /// on the day of the first.
    func storedSessions(projectId: Int64, filter: ReportFilter) throws(ServerError) -> [StoredSession]

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

    /// Every published remote config of a project, newest first.
    func configVersions(projectId: Int64) throws(ServerError) -> [RemoteConfigVersion]

    /// The event definitions of a project, by id.
    func eventDefinitions(projectId: Int64) throws(ServerError) -> [EventDefinition]

    /// Stores a definition, replacing the one with its id.
    func saveEventDefinition(_ definition: EventDefinition, projectId: Int64, at time: Timestamp)
        throws(ServerError)

    /// Deletes a definition; returns whether it existed.
    @discardableResult
    func deleteEventDefinition(id: String, projectId: Int64) throws(ServerError) -> Bool

    /// Deletes a person's events and identity links, updating every rollup; later events
    /// carrying one of the person's ids are refused for `request.refuseForDays`.
    /// - Parameter id: a user id or an anonymous id (the person it is linked to is deleted).
    func deletePerson(id: String, projectId: Int64, request: PersonDeletion.Request) throws(ServerError)
        -> PersonDeletion

    /// Every stored event and identity link of the person `id` names.
    func exportPerson(id: String, projectId: Int64) throws(ServerError) -> PersonExport

    /// The first day a project still holds every event of (retention deleted the days before),
    /// or `nil` when retention never deleted anything.
    func retentionHorizon(projectId: Int64) throws(ServerError) -> Timestamp?

    /// Finishes pending writes and closes the database. Later calls fail with `closed`.
    func close()
}

extension EventStore {
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
