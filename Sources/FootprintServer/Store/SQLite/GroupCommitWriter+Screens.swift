import FootprintSQLite

extension GroupCommitWriter {
    /// Deletes the snapshots (and their images) a person's devices uploaded or that name the
    /// person's user id, inside the person's deletion: a screenshot shows what the person saw.
    /// - Returns: how many were deleted.
    static func deleteSnapshots(of selection: PersonSelection, projectId: Int64, database: SQLiteDatabase)
        throws -> Int
    {
        let owned = try snapshotIds(of: selection, projectId: projectId, database: database)
        try deleteSnapshots(owned, database: database)
        return owned.count
    }

    /// The ids of the snapshots that are the person's (uploaded by one of its anonymous ids or
    /// naming its user id), oldest first: what a deletion removes and an export shows.
    static func snapshotIds(of selection: PersonSelection, projectId: Int64, database: SQLiteDatabase)
        throws -> [Int64]
    {
        try database.prepare(
            "SELECT id, anonymous_id, user_id FROM snapshots WHERE project_id = ?1 ORDER BY id"
        )
        .rows([.integer(projectId)]) { row in
            (id: row.int64(at: 0), anonymousId: row.text(at: 1) ?? "", userId: row.text(at: 2) ?? "")
        }
        .filter { selection.owns(link: $0.anonymousId, userId: $0.userId) }
        .map(\.id)
    }

    /// Deletes a project's snapshots taken or received before `horizonDay` (UTC days since
    /// 1970), with their images, in one transaction: retention drops them with the events.
    /// - Returns: how many were deleted.
    func deleteSnapshots(projectId: Int64, beforeDay horizonDay: Int64) throws(ServerError) -> Int {
        try perform { database in
            try database.transaction {
                let horizon = SQLiteValue.integer(horizonDay &* 86_400_000)
                let old = try database.prepare(
                    "SELECT id FROM snapshots WHERE project_id = ?1 AND (taken_at < ?2 OR received_at < ?2)"
                ).rows([.integer(projectId), horizon]) { $0.int64(at: 0) }
                try Self.deleteSnapshots(old, database: database)
                return old.count
            }
        }
    }

    /// Deletes snapshots and their images by id.
    static func deleteSnapshots(_ ids: [Int64], database: SQLiteDatabase) throws {
        let delete = try database.prepare("DELETE FROM snapshots WHERE id = ?1")
        let deleteImage = try database.prepare("DELETE FROM snapshot_images WHERE snapshot = ?1")
        for id in ids {
            try delete.run([.integer(id)])
            try deleteImage.run([.integer(id)])
        }
    }
}
