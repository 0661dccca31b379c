import FootprintSQLite
import FootprintWire

extension SQLiteEventStore {
    /// Deletes a person of a project: every event whose person (by the reports' rule, see
    /// ``PersonSelection``) is the one `id` names, and the identity links of that person and of
    /// its anonymous ids; every rollup is updated in the same transaction, the deletion logged
    /// (who, when, how many events; the person only as a salted digest), and later events
    /// carrying one of the person's ids are refused (`deleted_person`) for
    /// ``PersonDeletion/Request/refuseForDays``.
    ///
    /// The events are first looked for on a read connection (a scan of the project's events),
    /// so the writer, and with it ingest, waits only for the deletion itself.
    public func deletePerson(id: String, projectId: Int64, request: PersonDeletion.Request)
        throws(ServerError)
        -> PersonDeletion
    {
        try Self.checkPersonId(id)
        let writer = try requireWriter()
        let found = try read { database in
            let deletions = writer.eventDeletions.withLock { $0 }
            let selection = PersonSelection(id: id, links: try self.identityLinks(projectId: projectId))
            let through =
                try database.prepare("SELECT coalesce(max(id), 0) FROM events").rows([]) { $0.int64(at: 0) }
                .first ?? 0
            let (condition, values) = selection.eventCondition(first: 3)
            let ids = try database.prepare(
                "SELECT id FROM events WHERE project_id = ?1 AND id <= ?2 AND \(condition)"
            ).rows([.integer(projectId), .integer(through)] + values) { $0.int64(at: 0) }
            // The person's clicks, and the texts their rows keep without them (read here, so
            // the writer reads only the clicks stored since).
            let idList = SQLiteValue.text(JSONWriter.string(.array(ids.map { .int($0) })))
            var removed = RollupDelta()
            for row in try database.prepare(
                "SELECT \(GroupCommitWriter.rollupColumns) FROM events WHERE id IN (SELECT value FROM json_each(?1))"
            ).rows([idList], GroupCommitWriter.rollupRow) {
                removed.add(row.event, project: projectId)
            }
            let clicks = removed.counts.keys.filter(\.kind.isClick)
            let texts = try GroupCommitWriter.clickTexts(
                of: clicks, project: projectId, after: 0, through: through, excluding: Set(ids),
                database: database)
            return GroupCommitWriter.FoundEvents(
                selection: selection, ids: ids, throughId: through, deletions: deletions,
                clickDays: Set(clicks.map(\.day)), clickTexts: texts)
        }
        return try writer.deletePerson(id: id, projectId: projectId, request: request, found: found)
    }

    /// Everything stored about the person `id` names in a project: each event (as stored, with
    /// its time and when it was received), each identity link of the person or its anonymous ids,
    /// and each screen snapshot its devices uploaded (the ones its deletion removes).
    public func exportPerson(id: String, projectId: Int64) throws(ServerError) -> PersonExport {
        try Self.checkPersonId(id)
        return try read { database in
            let selection = PersonSelection(id: id, links: try self.identityLinks(projectId: projectId))
            let (condition, values) = selection.eventCondition(first: 2)
            let events = try database.prepare(
                """
                SELECT message_id, time, \(SQLiteSchema.receivedAt), \(StoredPayload.columns) FROM events
                WHERE project_id = ?1 AND \(condition) ORDER BY id
                """
            ).rows([.integer(projectId)] + values) { row -> JSONValue in
                let payload = try StoredPayload.json(row, at: 3)
                return [
                    "messageId": .string(row.text(at: 0) ?? ""),
                    "time": .string(Timestamp(millisecondsSince1970: row.int64(at: 1)).iso8601),
                    "receivedAt": .string(Timestamp(millisecondsSince1970: row.int64(at: 2)).iso8601),
                    "message": (try? JSONParser().parse(Array(payload.utf8))) ?? .string(payload),
                ]
            }
            let links = try database.prepare(
                "SELECT anonymous_id, user_id, first_seen FROM identities WHERE project_id = ?1 ORDER BY first_seen"
            ).rows([.integer(projectId)]) { ($0.text(at: 0) ?? "", $0.text(at: 1) ?? "", $0.int64(at: 2)) }
                .filter { selection.owns(link: $0.0, userId: $0.1) }
                .map { link -> JSONValue in
                    [
                        "anonymousId": .string(link.0), "userId": .string(link.1),
                        "firstSeen": .string(Timestamp(millisecondsSince1970: link.2).iso8601),
                    ]
                }
            let snapshots = try Self.exportSnapshots(of: selection, projectId: projectId, database: database)
            return PersonExport(
                person: selection.person, events: events, identityLinks: links, snapshots: snapshots)
        }
    }

    /// The ids of deleted people refused now, for a store that keeps its events elsewhere and
    /// its metadata here (ClickHouse).
    func deletedIds() throws(ServerError) -> DeletedIds {
        try requireWriter().currentDeletedIds()
    }

    /// Refuses a deleted person's ids and (when `logged`) logs the deletion, for a store that
    /// deletes the events and links elsewhere (ClickHouse); `events`, `identityLinks` and
    /// `elapsedMilliseconds` are what that deletion removed and took.
    func logPersonDeletion(
        _ selection: PersonSelection, id: String, projectId: Int64, request: PersonDeletion.Request,
        events: Int, identityLinks: Int, elapsedMilliseconds: Int64, logged: Bool
    ) throws(ServerError) -> PersonDeletion {
        let writer = try requireWriter()
        let until = request.refusedUntil
        return try writer.perform { database in
            let refused = try database.transaction {
                try writer.logDeletion(
                    of: selection, id: id, projectId: projectId, request: request, until: until,
                    events: events,
                    identityLinks: identityLinks, logged: logged, database: database)
            }
            return PersonDeletion(
                events: events, identityLinks: identityLinks, refusedIds: refused.count, refusedUntil: until,
                writerMilliseconds: elapsedMilliseconds)
        }
    }

    /// The deletions logged for a project, newest first: who asked, when, and how much went.
    public func personDeletions(projectId: Int64) throws(ServerError) -> [JSONValue] {
        try read { database in
            try database.prepare(
                """
                SELECT \(MetadataSQL.personDeletionColumns) FROM person_deletions
                WHERE project_id = ?1 ORDER BY id DESC
                """
            ).rows([.integer(projectId)]) { try $0.personDeletion() }
        }
    }

    /// A person id must have 1 to 1,024 bytes and no NUL, like the ids ingest accepts.
    static func checkPersonId(_ id: String) throws(ServerError) {
        guard !id.isEmpty, id.utf8.count <= 1_024, !id.utf8.contains(0) else {
            throw ServerError(
                code: .invalidQuery, message: "a person id must have 1 to 1,024 bytes and no NUL")
        }
    }
}
