import FootprintWire

/// Write keys: listed, created and revoked in transactions; the trigger on `write_keys` bumps
/// the metadata revision, so every collector's cache (``MetadataCache``) sees the change.
extension PostgresMetadataStore {
    public func writeKeys(projectId: Int64) throws(ServerError) -> [WriteKey] {
        try perform { connection in
            try connection.query(MetadataSQL.writeKeys(project: "$1"), [.integer(projectId)]) {
                try $0.writeKey()
            }
        }
    }

    public func createWriteKey(projectId: Int64, at time: Timestamp) throws(ServerError) -> WriteKey {
        let key = WriteKey(key: Project.makeWriteKey(), projectId: projectId, createdAt: time)
        defer { cache.invalidate() }
        return try transaction { connection in
            let found = try connection.query("SELECT 1 FROM projects WHERE id = $1", [.integer(projectId)]) {
                _ in
                true
            }
            guard !found.isEmpty else { throw MetadataRules.noProject(projectId) }
            try connection.run(
                "INSERT INTO write_keys(key, project_id, created_at) VALUES ($1, $2, $3)",
                [.text(key.key), .integer(projectId), .integer(time.millisecondsSince1970)])
            return key
        }
    }

    @discardableResult
    public func revokeWriteKey(_ key: String) throws(ServerError) -> Bool {
        defer { cache.invalidate() }
        return try transaction { connection in
            guard
                let projectId = try connection.query(
                    "SELECT project_id FROM write_keys WHERE key = $1", [.text(key)], { try $0.int64(at: 0) }
                ).first
            else { return false }
            // Two revocations at once must not leave the project without a key.
            try Self.lock(connection, .writeKeys, id: projectId)
            let remaining =
                try connection.query(
                    "SELECT count(*) FROM write_keys WHERE project_id = $1", [.integer(projectId)]
                ) { try $0.int64(at: 0) }.first ?? 0
            if let refusal = MetadataRules.lastWriteKeyRefusal(key, remaining: remaining) { throw refusal }
            return try connection.run("DELETE FROM write_keys WHERE key = $1", [.text(key)]) > 0
        }
    }
}
