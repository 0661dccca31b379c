import FootprintSQLite

extension GroupCommitWriter {
    /// Deletes the snapshots (and their images) a person's devices uploaded or that name the
    /// person's user id, inside the person's deletion: a screenshot shows what the person saw.
    /// - Returns: how many were deleted.
    static func deleteSnapshots(of selection: PersonSelection, projectId: Int64, database: SQLiteDatabase)
        throws -> Int
    {
        let owned = try database.prepare(
            "SELECT id, anonymous_id, user_id FROM snapshots WHERE project_id = ?1"
        )
        .rows([.integer(projectId)]) { row in
            (id: row.int64(at: 0), anonymousId: row.text(at: 1) ?? "", userId: row.text(at: 2) ?? "")
        }
        .filter { selection.owns(link: $0.anonymousId, userId: $0.userId) }
        try deleteSnapshots(owned.map(\.id), database: database)
        return owned.count
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
