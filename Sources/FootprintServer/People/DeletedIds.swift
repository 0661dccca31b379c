import FootprintSQLite
import FootprintWire

/// The ids of deleted people that the writer refuses, each until its time: digests only
/// (``PersonIdDigest``), held in memory by the writer and kept in `deleted_ids`.
struct DeletedIds {
    /// The database's salt.
    let salt: [UInt8]
    /// Per project, each refused digest and until when (ms since 1970).
    private(set) var refused: [Int64: [PersonIdDigest: Int64]] = [:]

    /// The ids refused under `salt`: per project, each digest and until when (ms since 1970).
    init(salt: [UInt8], refused: [Int64: [PersonIdDigest: Int64]]) {
        self.salt = salt
        self.refused = refused
    }

    /// Reads the salt and the refused ids from `database`.
    init(database: SQLiteDatabase) throws {
        salt =
            try database.prepare("SELECT salt FROM people_salt WHERE id = 1").rows([]) { $0.blob(at: 0) }
            .first ?? []
        for (project, digest, until) in try database.prepare(
            "SELECT project_id, digest, refused_until FROM deleted_ids"
        ).rows([], { ($0.int64(at: 0), PersonIdDigest(stored: $0.blob(at: 1)), $0.int64(at: 2)) }) {
            refused[project, default: [:]][digest] = until
        }
    }

    /// Whether no id is refused (then nothing is hashed on ingest).
    var isEmpty: Bool { refused.isEmpty }

    /// Whether an event or link with these ids is refused at `time`.
    func refuses(anonymousId: String?, userId: String?, project: Int64, at time: Timestamp) -> Bool {
        guard let digests = refused[project] else { return false }
        for id in [anonymousId, userId] {
            guard let id, !id.isEmpty else { continue }
            if let until = digests[PersonIdDigest(of: id, salt: salt)], until > time.millisecondsSince1970 {
                return true
            }
        }
        return false
    }

    /// The indexes of a batch's events that carry a refused id, in order.
    func refusedEvents(of batch: IngestBatch) -> [Int] {
        guard !isEmpty else { return [] }
        return batch.events.indices.filter { index in
            refuses(
                anonymousId: batch.events[index].anonymousId, userId: batch.events[index].userId,
                project: batch.projectId, at: batch.receivedAt)
        }
    }

    /// A batch's identity links that carry no refused id.
    func acceptedLinks(of batch: IngestBatch) -> [IdentityLink] {
        guard !isEmpty else { return batch.identityLinks }
        return batch.identityLinks.filter { link in
            !refuses(
                anonymousId: link.anonymousId, userId: link.userId, project: batch.projectId,
                at: batch.receivedAt)
        }
    }

    /// Refuses `ids` of a project until `until`, here and in the database.
    mutating func refuse(
        _ ids: Set<String>, project: Int64, until: Timestamp, database: SQLiteDatabase
    ) throws(SQLiteError) {
        let insert = try database.prepare(
            """
            INSERT INTO deleted_ids(project_id, digest, refused_until) VALUES (?1, ?2, ?3)
            ON CONFLICT DO UPDATE SET refused_until = max(refused_until, excluded.refused_until)
            """)
        for id in ids {
            let digest = PersonIdDigest(of: id, salt: salt)
            try insert.run([.integer(project), .blob(digest.bytes), .integer(until.millisecondsSince1970)])
            note(digest, project: project, until: until.millisecondsSince1970)
        }
    }

    /// Refuses `digest` of a project until `until` (ms since 1970), or later if it already was.
    mutating func note(_ digest: PersonIdDigest, project: Int64, until: Int64) {
        refused[project, default: [:]][digest] = max(refused[project]?[digest] ?? .min, until)
    }
}
