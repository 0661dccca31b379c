import FootprintWire

/// What a collector caches of the metadata (``MetadataCache``): every write key with its project
/// and each project's latest remote config, as of one revision of the metadata.
struct MetadataSnapshot: Sendable {
    /// The metadata revision it was read at.
    var revision: Int64
    /// Each write key's project (its ``Project/writeKey`` is that key).
    var projectsByKey: [String: Project] = [:]
    /// The ids of every project.
    var projectIds: Set<Int64> = []
    /// Each project's latest remote config; a project without one has none here.
    var latestConfigs: [Int64: RemoteConfigVersion] = [:]
}
