import FootprintSQLite
import FootprintWire

extension SQLiteEventStore {
    public func createReadToken(projectId: Int64, at time: Timestamp) throws(ServerError) -> (
        ProjectToken, String
    ) {
        let token = AccessConfiguration.makeToken(prefix: "fpr_")
        let hint = String(token.prefix(8))
        return try requireWriter().perform { database in
            try database.transaction {
                let names = try database.prepare("SELECT name FROM projects WHERE id = ?1").rows([
                    .integer(projectId)
                ]) { $0.text(at: 0) ?? "" }
                guard let name = names.first else {
                    throw MetadataRules.noProject(projectId)
                }
                try database.prepare(
                    "INSERT INTO read_tokens(hash, project_id, hint, created_at) VALUES (?1, ?2, ?3, ?4)"
                ).run([
                    .blob(SecretHash(of: token).bytes), .integer(projectId), .text(hint),
                    .integer(time.millisecondsSince1970),
                ])
                let description = ProjectToken(
                    id: database.lastInsertRowID, projectId: projectId, projectName: name, hint: hint,
                    createdAt: time)
                return (description, token)
            }
        }
    }

    public func readTokens() throws(ServerError) -> [ProjectToken] {
        try read { database in
            try database.prepare(
                """
                SELECT t.id, t.project_id, p.name, t.hint, t.created_at
                FROM read_tokens t JOIN projects p ON p.id = t.project_id ORDER BY t.id
                """
            ).rows { row in
                ProjectToken(
                    id: row.int64(at: 0), projectId: row.int64(at: 1), projectName: row.text(at: 2) ?? "",
                    hint: row.text(at: 3) ?? "", createdAt: Timestamp(millisecondsSince1970: row.int64(at: 4))
                )
            }
        }
    }

    @discardableResult
    public func revokeReadToken(id: Int64) throws(ServerError) -> Bool {
        try requireWriter().perform { database in
            try database.prepare("DELETE FROM read_tokens WHERE id = ?1").run([.integer(id)])
            return database.changes > 0
        }
    }

    public func project(readTokenHash hash: SecretHash) throws(ServerError) -> Project? {
        let found = try read { database in
            try database.prepare(
                """
                SELECT t.hash, p.id, p.name, (SELECT min(k.key) FROM write_keys k WHERE k.project_id = p.id),
                    p.created_at
                FROM read_tokens t JOIN projects p ON p.id = t.project_id WHERE t.hash = ?1
                """
            ).rows([.blob(hash.bytes)]) { row in
                (
                    SecretHash(stored: row.blob(at: 0)),
                    Project(
                        id: row.int64(at: 1), name: row.text(at: 2) ?? "", writeKey: row.text(at: 3) ?? "",
                        createdAt: Timestamp(millisecondsSince1970: row.int64(at: 4)))
                )
            }.first
        }
        guard let found, SecretHash.constantTimeEquals(found.0, hash) else { return nil }
        return found.1
    }

    public func startDashboardSession(
        _ hash: SecretHash, expires: Timestamp, now: Timestamp, maximumSessions: Int
    ) throws(ServerError) {
        try requireWriter().perform { database in
            try database.transaction {
                try database.prepare("DELETE FROM dashboard_sessions WHERE expires_at <= ?1").run([
                    .integer(now.millisecondsSince1970)
                ])
                try database.prepare(
                    """
                    DELETE FROM dashboard_sessions WHERE hash IN (
                        SELECT hash FROM dashboard_sessions ORDER BY expires_at
                        LIMIT max(0, (SELECT count(*) FROM dashboard_sessions) - ?1 + 1))
                    """
                ).run([.integer(Int64(max(1, maximumSessions)))])
                try database.prepare(
                    "INSERT OR REPLACE INTO dashboard_sessions(hash, expires_at, created_at) VALUES (?1, ?2, ?3)"
                ).run([
                    .blob(hash.bytes), .integer(expires.millisecondsSince1970),
                    .integer(now.millisecondsSince1970),
                ])
            }
        }
    }

    public func dashboardSessionExpiry(_ hash: SecretHash, now: Timestamp) throws(ServerError) -> Timestamp? {
        let found = try read { database in
            try database.prepare(
                "SELECT hash, expires_at FROM dashboard_sessions WHERE hash = ?1 AND expires_at > ?2"
            )
            .rows([.blob(hash.bytes), .integer(now.millisecondsSince1970)]) { row in
                (SecretHash(stored: row.blob(at: 0)), Timestamp(millisecondsSince1970: row.int64(at: 1)))
            }.first
        }
        guard let found, SecretHash.constantTimeEquals(found.0, hash) else { return nil }
        return found.1
    }

    public func endDashboardSession(_ hash: SecretHash) throws(ServerError) {
        try requireWriter().perform { database in
            try database.prepare("DELETE FROM dashboard_sessions WHERE hash = ?1").run([.blob(hash.bytes)])
        }
    }

    @discardableResult
    public func endEveryDashboardSession() throws(ServerError) -> Int {
        try requireWriter().perform { database in
            try database.prepare("DELETE FROM dashboard_sessions").run()
            return database.changes
        }
    }
}
