import FootprintWire

/// What an event store that keeps its events apart from the metadata (ClickHouse) records in
/// the metadata store: which event store the metadata belongs to, the deletion log with the ids
/// it refuses, the retention horizons, and the snapshots a deletion, an export or retention
/// touches. ``SQLiteEventStore`` implements it for the metadata file it is in such a deployment,
/// ``PostgresMetadataStore`` for a PostgreSQL database.
protocol MetadataLedger: Sendable {
    /// Records that the metadata's events are kept at `location` from now on.
    func recordEventStore(_ location: ClickHouseLocation, at time: Timestamp) throws(ServerError)

    /// The ids of deleted people refused now.
    func deletedIds() throws(ServerError) -> DeletedIds

    /// Refuses a deleted person's ids and (when `logged`) logs the deletion and deletes the
    /// person's snapshots; `events`, `identityLinks` and `elapsedMilliseconds` are what the
    /// event store's deletion removed and took.
    func logPersonDeletion(
        _ selection: PersonSelection, id: String, projectId: Int64, request: PersonDeletion.Request,
        events: Int, identityLinks: Int, elapsedMilliseconds: Int64, logged: Bool
    ) throws(ServerError) -> PersonDeletion

    /// The person's snapshots, for an export.
    func exportSnapshots(of selection: PersonSelection, projectId: Int64) throws(ServerError) -> [JSONValue]

    /// The day (UTC days since 1970) before which each project with a retention (its own days,
    /// else `defaultDays`) deletes its events as of `now`.
    func retentionHorizons(defaultDays: Int?, now: Timestamp) throws(ServerError) -> [(
        project: Project, day: Int64
    )]

    /// Deletes a project's screen snapshots from before `horizonDay`; returns how many.
    func deleteSnapshots(projectId: Int64, beforeDay horizonDay: Int64) throws(ServerError) -> Int

    /// Records that a project holds every event from `day` on.
    func recordRetentionHorizon(projectId: Int64, day: Int64) throws(ServerError)
}
