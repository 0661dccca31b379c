import FootprintSQLite

extension GroupCommitWriter {
    /// Compresses the payloads stored as text before schema version 9 (``StoredPayload``),
    /// oldest first, `chunk` events per transaction, while ``SQLiteSchema/payloadsKey`` is
    /// present; progress is stored with each transaction, so an interrupted pass resumes where
    /// it stopped. The rows shrink inside their pages, which new events (appended in id order)
    /// do not fill: the file keeps its size until a `VACUUM`.
    /// - Returns: the payloads compressed.
    @discardableResult
    func compressStoredPayloads(chunk: Int = 5_000) throws(ServerError) -> Int {
        try perform { database in
            let progress = try database.prepare("SELECT value FROM store_state WHERE key = ?1").rows([
                .text(SQLiteSchema.payloadsKey)
            ]) { $0.int64(at: 0) }
            guard var last = progress.first else { return 0 }
            let select = try database.prepare(
                "SELECT id, \(StoredPayload.columns) FROM events WHERE id > ?1 AND typeof(payload) = 'text' ORDER BY id LIMIT ?2"
            )
            let update = try database.prepare("UPDATE events SET payload = ?2 WHERE id = ?1")
            let save = try database.prepare("UPDATE store_state SET value = ?2 WHERE key = ?1")
            var compressed = 0
            while true {
                let finished = try database.transaction { () throws -> Bool in
                    let rows = try select.rows([.integer(last), .integer(Int64(chunk))]) {
                        (
                            id: $0.int64(at: 0), json: $0.text(at: 1) ?? "",
                            columns: StoredPayload.Columns($0, at: 2)
                        )
                    }
                    guard let newest = rows.last else {
                        try database.prepare("DELETE FROM store_state WHERE key = ?1").run([
                            .text(SQLiteSchema.payloadsKey)
                        ])
                        return true
                    }
                    for row in rows {
                        let value = StoredPayload.value(row.json, columns: row.columns)
                        guard case .blob = value else { continue }
                        try update.run([.integer(row.id), value])
                        compressed += 1
                    }
                    last = newest.id
                    try save.run([.text(SQLiteSchema.payloadsKey), .integer(last)])
                    return false
                }
                if finished { return compressed }
            }
        }
    }
}
