import FootprintSQLite
import FootprintWire

/// Write keys: listed, created and revoked; the file's triggers bump its metadata revision, so
/// the cache of every server on the file (``MetadataCache``) sees the change.
extension SQLiteEventStore {
    public func writeKeys(projectId: Int64) throws(ServerError) -> [WriteKey] {
        try read { database in
            try database.prepare(MetadataSQL.writeKeys(project: "?1")).rows([.integer(projectId)]) {
                try $0.writeKey()
            }
        }
    }

    public func createWriteKey(projectId: Int64, at time: Timestamp) throws(ServerError) -> WriteKey {
        let key = WriteKey(key: Project.makeWriteKey(), projectId: projectId, createdAt: time)
        defer { cache.invalidate() }
        return try requireWriter().perform { database in
            try database.transaction {
                let found = try database.prepare("SELECT 1 FROM projects WHERE id = ?1").rows([
                    .integer(projectId)
                ]) {
                    _ in true
                }
                guard !found.isEmpty else { throw MetadataRules.noProject(projectId) }
                try database.prepare(
                    "INSERT INTO write_keys(key, project_id, created_at) VALUES (?1, ?2, ?3)"
                ).run([
                    .text(key.key), .integer(projectId), .integer(time.millisecondsSince1970),
                ])
                return key
            }
        }
    }

    @discardableResult
    public func revokeWriteKey(_ key: String) throws(ServerError) -> Bool {
        defer { cache.invalidate() }
        return try requireWriter().perform { database in
            try database.transaction {
                guard
                    let projectId = try database.prepare("SELECT project_id FROM write_keys WHERE key = ?1")
                        .rows(
                            [.text(key)], { $0.int64(at: 0) }
                        ).first
                else { return false }
                let remaining =
                    try database.prepare("SELECT count(*) FROM write_keys WHERE project_id = ?1").rows([
                        .integer(projectId)
                    ]) { $0.int64(at: 0) }.first ?? 0
                if let refusal = MetadataRules.lastWriteKeyRefusal(key, remaining: remaining) {
                    throw refusal
                }
                try database.prepare("DELETE FROM write_keys WHERE key = ?1").run([.text(key)])
                return database.changes > 0
            }
        }
    }

    /// What the write-key cache reads: nothing when the file's metadata revision is `known`,
    /// else every write key with its project, read after the revision (so at least as new as
    /// it; a change in between only makes the next refresh read again). Remote configs are read
    /// from the file at each request: ``MetadataSnapshot/latestConfigs`` stays empty.
    static func readKeys(_ readers: SQLiteReaders, known: Int64?) throws(ServerError) -> MetadataSnapshot? {
        try readers.read { database in
            let revision =
                try database.prepare("SELECT revision FROM metadata_revision WHERE id = 1").rows([]) {
                    $0.int64(at: 0)
                }.first ?? 0
            if revision == known { return nil }
            var snapshot = MetadataSnapshot(revision: revision)
            for project in try database.prepare(
                "SELECT p.id, p.name, k.key, p.created_at FROM write_keys k JOIN projects p ON p.id = k.project_id"
            ).rows([], { try $0.project() }) {
                snapshot.projectsByKey[project.writeKey] = project
                snapshot.projectIds.insert(project.id)
            }
            return snapshot
        }
    }
}
