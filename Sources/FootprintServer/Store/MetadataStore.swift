import FootprintWire

/// Where the server keeps what is not events: projects and their write keys, remote-config
/// revisions, event definitions, read tokens and dashboard sessions (``AccessStore``), connect
/// sessions and screen snapshots (``ScreenStore``), and the retention horizons. Small, read
/// often, written rarely; every collector sharing one deployment shares one metadata store.
///
/// ``SQLiteEventStore`` implements it (beside ``EventStore``, in one file); a deployment whose
/// events are in ClickHouse keeps its metadata in a SQLite file of its own, or in PostgreSQL
/// (``PostgresMetadataStore``), which collectors on several machines share. See ``Stores``.
public protocol MetadataStore: AccessStore, ScreenStore {
    /// The project a write key belongs to, or `nil`.
    func project(writeKey: String) throws(ServerError) -> Project?

    /// The project called `name`, or `nil`.
    func project(named name: String) throws(ServerError) -> Project?

    /// Creates a project with a new write key. Fails if the name is empty or taken.
    func createProject(named name: String) throws(ServerError) -> Project

    /// All projects, oldest first.
    func projects() throws(ServerError) -> [Project]

    /// A project's write keys, oldest first.
    func writeKeys(projectId: Int64) throws(ServerError) -> [WriteKey]

    /// Makes a new write key of a project; its other keys keep working until revoked (to rotate
    /// a key: create its successor, ship it, then revoke the old one).
    /// - Throws: ``ServerError`` `project` when there is no such project.
    func createWriteKey(projectId: Int64, at time: Timestamp) throws(ServerError) -> WriteKey

    /// Revokes a write key: ingest refuses it from now on (on other collectors, once their
    /// metadata cache confirms its copy). Returns whether the key existed.
    /// - Throws: ``ServerError`` `project` when it is its project's last key
    ///   (``MetadataRules/lastWriteKeyRefusal(_:remaining:)``).
    @discardableResult
    func revokeWriteKey(_ key: String) throws(ServerError) -> Bool

    /// Stores `document` (already validated) as a project's newest remote config; its version is
    /// one more than the latest.
    /// - Returns: the stored version.
    func storeConfig(projectId: Int64, document: String, at time: Timestamp) throws(ServerError)
        -> RemoteConfigVersion

    /// The latest remote config of a project, or `nil`.
    func latestConfig(projectId: Int64) throws(ServerError) -> RemoteConfigVersion?

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

    /// Whether some project has its own retention.
    func anyProjectHasRetention() throws(ServerError) -> Bool

    /// Sets a project's own retention: `days` of events kept, or `nil` for the server's.
    func setRetentionDays(_ days: Int?, projectId: Int64) throws(ServerError)

    /// The deletions logged for a project, newest first: who asked, when, and how much went.
    func personDeletions(projectId: Int64) throws(ServerError) -> [JSONValue]

    /// The first day a project still holds every event of (retention deleted the days before),
    /// or `nil` when retention never deleted anything.
    func retentionHorizon(projectId: Int64) throws(ServerError) -> Timestamp?

    /// Finishes pending writes and closes the database. Later calls fail with `closed`.
    func close()
}
