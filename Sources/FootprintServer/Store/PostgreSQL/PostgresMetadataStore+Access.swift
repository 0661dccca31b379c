import FootprintWire

extension PostgresMetadataStore: AccessStore {
    public func createReadToken(projectId: Int64, at time: Timestamp) throws(ServerError) -> (
        ProjectToken, String
    ) {
        let token = AccessConfiguration.makeToken(prefix: "fpr_")
        let hint = String(token.prefix(8))
        return try transaction { connection in
            guard
                let name = try connection.query(
                    "SELECT name FROM projects WHERE id = $1", [.integer(projectId)],
                    {
                        try $0.text(at: 0) ?? ""
                    }
                ).first
            else { throw MetadataRules.noProject(projectId) }
            let id = try connection.query(
                "INSERT INTO read_tokens(hash, project_id, hint, created_at) VALUES ($1, $2, $3, $4) RETURNING id",
                [
                    .bytes(SecretHash(of: token).bytes), .integer(projectId), .text(hint),
                    .integer(time.millisecondsSince1970),
                ]
            ) { try $0.int64(at: 0) }[0]
            return (
                ProjectToken(id: id, projectId: projectId, projectName: name, hint: hint, createdAt: time),
                token
            )
        }
    }

    public func readTokens() throws(ServerError) -> [ProjectToken] {
        try perform { connection in
            try connection.query(
                """
                SELECT t.id, t.project_id, p.name, t.hint, t.created_at
                FROM read_tokens t JOIN projects p ON p.id = t.project_id ORDER BY t.id
                """
            ) { row in
                ProjectToken(
                    id: try row.int64(at: 0), projectId: try row.int64(at: 1),
                    projectName: try row.text(at: 2) ?? "",
                    hint: try row.text(at: 3) ?? "",
                    createdAt: Timestamp(millisecondsSince1970: try row.int64(at: 4)))
            }
        }
    }

    @discardableResult
    public func revokeReadToken(id: Int64) throws(ServerError) -> Bool {
        try perform { connection in
            try connection.run("DELETE FROM read_tokens WHERE id = $1", [.integer(id)]) > 0
        }
    }

    public func project(readTokenHash hash: SecretHash) throws(ServerError) -> Project? {
        let found = try perform { connection in
            try connection.query(
                """
                SELECT t.hash, p.id, p.name,
                    (SELECT k.key FROM write_keys k WHERE k.project_id = p.id ORDER BY k.key LIMIT 1), p.created_at
                FROM read_tokens t JOIN projects p ON p.id = t.project_id WHERE t.hash = $1
                """, [.bytes(hash.bytes)]
            ) { row in
                (
                    SecretHash(stored: try row.bytes(at: 0) ?? []),
                    Project(
                        id: try row.int64(at: 1), name: try row.text(at: 2) ?? "",
                        writeKey: try row.text(at: 3) ?? "",
                        createdAt: Timestamp(millisecondsSince1970: try row.int64(at: 4)))
                )
            }.first
        }
        guard let found, SecretHash.constantTimeEquals(found.0, hash) else { return nil }
        return found.1
    }

    public func startDashboardSession(
        _ hash: SecretHash, expires: Timestamp, now: Timestamp, maximumSessions: Int
    )
        throws(ServerError)
    {
        try transaction { connection in
            try Self.lock(connection, .dashboardSessions, id: 0)
            try connection.run(
                "DELETE FROM dashboard_sessions WHERE expires_at <= $1", [.integer(now.millisecondsSince1970)]
            )
            try connection.run(
                """
                DELETE FROM dashboard_sessions WHERE hash IN (
                    SELECT hash FROM dashboard_sessions ORDER BY expires_at, hash
                    LIMIT greatest(0, (SELECT count(*) FROM dashboard_sessions) - $1 + 1))
                """, [.integer(Int64(max(1, maximumSessions)))])
            try connection.run(
                """
                INSERT INTO dashboard_sessions(hash, expires_at, created_at) VALUES ($1, $2, $3)
                ON CONFLICT (hash) DO UPDATE SET expires_at = excluded.expires_at, created_at = excluded.created_at
                """,
                [
                    .bytes(hash.bytes), .integer(expires.millisecondsSince1970),
                    .integer(now.millisecondsSince1970),
                ])
        }
    }

    public func dashboardSessionExpiry(_ hash: SecretHash, now: Timestamp) throws(ServerError) -> Timestamp? {
        let found = try perform { connection in
            try connection.query(
                "SELECT hash, expires_at FROM dashboard_sessions WHERE hash = $1 AND expires_at > $2",
                [.bytes(hash.bytes), .integer(now.millisecondsSince1970)]
            ) { row in
                (
                    SecretHash(stored: try row.bytes(at: 0) ?? []),
                    Timestamp(millisecondsSince1970: try row.int64(at: 1))
                )
            }.first
        }
        guard let found, SecretHash.constantTimeEquals(found.0, hash) else { return nil }
        return found.1
    }

    public func endDashboardSession(_ hash: SecretHash) throws(ServerError) {
        _ = try perform { connection in
            try connection.run("DELETE FROM dashboard_sessions WHERE hash = $1", [.bytes(hash.bytes)])
        }
    }

    @discardableResult
    public func endEveryDashboardSession() throws(ServerError) -> Int {
        try perform { connection in try connection.run("DELETE FROM dashboard_sessions") }
    }
}
