import FootprintWire

/// What the collector's ``MetadataCache`` reads: the metadata revision (`metadata_revision`,
/// bumped by a trigger in the transaction of every change to projects, write keys and
/// config versions), and, when it changed, every write key and each project's latest config.
extension PostgresMetadataStore {
    /// The metadata revision now.
    public func metadataRevision() throws(ServerError) -> Int64 {
        try pool.withConnection { connection in try Self.revision(connection) }
    }

    /// Reads the metadata when its revision is not `known` (one query when it is).
    static func readSnapshot(_ pool: PostgresPool, known: Int64?) throws(ServerError) -> MetadataSnapshot? {
        try pool.withConnection { connection in
            if let known, try revision(connection) == known { return nil }
            return try connection.transaction {
                // One snapshot of the revision and the rows it counts.
                try connection.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                var snapshot = MetadataSnapshot(revision: try revision(connection))
                for project in try connection.query(
                    """
                    SELECT p.id, p.name, k.key, p.created_at FROM write_keys k JOIN projects p ON p.id = k.project_id
                    """, [], { try $0.project() })
                {
                    snapshot.projectsByKey[project.writeKey] = project
                }
                snapshot.projectIds = Set(
                    try connection.query("SELECT id FROM projects") { try $0.int64(at: 0) })
                for (projectId, config) in try connection.query(
                    """
                    SELECT DISTINCT ON (project_id) project_id, version, document, published_at FROM config_versions
                    ORDER BY project_id, version DESC
                    """, [],
                    { (try $0.int64(at: 0), try $0.configVersion(at: 1)) })
                {
                    snapshot.latestConfigs[projectId] = config
                }
                return snapshot
            }
        }
    }

    private static func revision(_ connection: PostgresConnection) throws -> Int64 {
        try connection.query("SELECT revision FROM metadata_revision WHERE id = 1") { try $0.int64(at: 0) }
            .first ?? 0
    }
}

extension PostgresRow {
    /// A config version from `version, document, published_at` starting at `column`.
    func configVersion(at column: Int) throws -> RemoteConfigVersion {
        RemoteConfigVersion(
            version: try int64(at: column), document: try text(at: column + 1) ?? "{}",
            publishedAt: Timestamp(millisecondsSince1970: try int64(at: column + 2)))
    }
}
