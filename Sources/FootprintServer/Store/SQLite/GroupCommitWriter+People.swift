import Dispatch
import FootprintSQLite
import FootprintWire

extension GroupCommitWriter {
    /// The events a reader found for a person before the writer takes over: their ids, up to
    /// the newest event id at the time (``deletePerson(id:projectId:request:found:)`` reads only
    /// the events stored since, unless the person's links changed meanwhile).
    struct FoundEvents {
        var selection: PersonSelection
        var ids: [Int64]
        var throughId: Int64
        /// ``eventDeletions`` before the read.
        var deletions: Int
        /// The days the person clicked on up to ``throughId``, and the newest text of each click
        /// row of those days the person's clicks count in, among the other events up to it.
        var clickDays: Set<Int64>
        var clickTexts: [RollupDelta.CountKey: String]
    }

    /// Deletes a person's events and identity links in one transaction on the writer, updates
    /// every rollup they counted in, refuses the person's ids until the request's period ends,
    /// and logs the deletion (the person as a digest).
    ///
    /// Rollups: the person's members leave the day sets and funnel times their events were in
    /// (a member is all the events of one user id, or of one anonymous id without a user id, so
    /// all of them are the person's); the daily counts
    /// lose the deleted events' counts (rows reaching 0 are removed) and the clicks' texts are
    /// read again from the day's remaining events; each session that held a deleted event is
    /// rebuilt from its remaining events, its dwell and moves replaced.
    func deletePerson(id: String, projectId: Int64, request: PersonDeletion.Request, found: FoundEvents)
        throws(ServerError) -> PersonDeletion
    {
        try perform { database in
            guard let statements = self.statements else {
                throw ServerError(code: .closed, message: "the store is closed")
            }
            let started = DispatchTime.now().uptimeNanoseconds
            let project = SQLiteValue.integer(projectId)
            let until = request.refusedUntil
            var result = try database.transaction { () throws -> PersonDeletion in
                let links = Dictionary(
                    try database.prepare(SQLiteSchema.selectIdentityLinks).rows([project]) {
                        ($0.text(at: 0) ?? "", $0.text(at: 1) ?? "")
                    },
                    uniquingKeysWith: { first, _ in first })
                let selection = PersonSelection(id: id, links: links)
                let (condition, values) = selection.eventCondition(first: 3)
                // Links changed since the read: every event is looked at again.
                let fresh = selection == found.selection
                let from = fresh ? found.throughId : 0
                var ids = fresh ? found.ids : []
                ids += try database.prepare(
                    "SELECT id FROM events WHERE project_id = ?1 AND id > ?2 AND \(condition)"
                ).rows([project, .integer(from)] + values) { $0.int64(at: 0) }
                let idList = SQLiteValue.text(JSONWriter.string(.array(ids.map { .int($0) })))
                let rows = try database.prepare(
                    """
                    SELECT \(Self.rollupColumns) FROM events
                    WHERE id IN (SELECT value FROM json_each(?1)) AND project_id = ?2 ORDER BY id
                    """
                ).rows([idList, project], Self.rollupRow).filter {
                    selection.owns(anonymousId: $0.event.anonymousId, userId: $0.event.userId)
                }
                let deletedList = SQLiteValue.text(JSONWriter.string(.array(rows.map { .int($0.id) })))
                try database.prepare("DELETE FROM events WHERE id IN (SELECT value FROM json_each(?1))").run([
                    deletedList
                ])
                var removed = RollupDelta()
                for row in rows { removed.add(row.event, project: projectId) }
                // What the read found of the click texts holds unless events were deleted since.
                let unchanged = fresh && self.eventDeletions.withLock { $0 } == found.deletions
                try Self.subtractCounts(
                    removed, project: projectId, database: database, statements: statements,
                    read: unchanged ? (found.clickDays, found.clickTexts, found.throughId) : nil)
                var numbers: PersonSetWriter.Numbers = [:]
                try statements.people.remove(removed.personDays, numbers: &numbers)
                try statements.people.removeTimes(removed.personTimes, numbers: &numbers)
                try Self.rebuildSessions(
                    Array(removed.sessions.keys), database: database, statements: statements)
                var removedLinks = 0
                var unlinked: Set<String> = []
                let deleteLink = try database.prepare(
                    "DELETE FROM identities WHERE project_id = ?1 AND anonymous_id = ?2 AND user_id = ?3")
                for (anonymousId, userId) in try database.prepare(
                    "SELECT anonymous_id, user_id FROM identities WHERE project_id = ?1"
                ).rows([project], { ($0.text(at: 0) ?? "", $0.text(at: 1) ?? "") })
                where selection.owns(link: anonymousId, userId: userId) {
                    try deleteLink.run([project, .text(anonymousId), .text(userId)])
                    removedLinks += 1
                    unlinked.insert(anonymousId)
                }
                try statements.people.updateMerges(
                    project: projectId, anonymousIds: unlinked, numbers: &numbers)
                let refused = try self.logDeletion(
                    of: selection, id: id, projectId: projectId, request: request, until: until,
                    events: rows.count, identityLinks: removedLinks, database: database)
                return PersonDeletion(
                    events: rows.count, identityLinks: removedLinks, refusedIds: refused.count,
                    refusedUntil: until,
                    writerMilliseconds: 0)
            }
            self.eventDeletions.withLock { $0 += 1 }
            result.writerMilliseconds = Int64((DispatchTime.now().uptimeNanoseconds - started) / 1_000_000)
            return result
        }
    }

    /// Deletes the screen snapshots the person's devices uploaded, refuses the person's ids (and
    /// `id`) until `until` and (when `logged`) logs the deletion (the person as a salted digest),
    /// inside the caller's transaction on the writer.
    /// - Returns: the ids refused.
    func logDeletion(
        of selection: PersonSelection, id: String, projectId: Int64, request: PersonDeletion.Request,
        until: Timestamp, events: Int, identityLinks: Int, logged: Bool = true, database: SQLiteDatabase
    ) throws -> Set<String> {
        _ = try Self.deleteSnapshots(of: selection, projectId: projectId, database: database)
        let refused = MetadataRules.refusedIds(selection, id: id)
        try deletedIds.refuse(refused, project: projectId, until: until, database: database)
        guard logged else { return refused }
        try database.prepare(
            """
            INSERT INTO person_deletions(project_id, person_digest, requested_by, deleted_at, events,
                identity_links)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            """
        ).run([
            .integer(projectId), .blob(PersonIdDigest(of: selection.person, salt: deletedIds.salt).bytes),
            .text(request.requestedBy), .integer(request.at.millisecondsSince1970),
            .integer(Int64(events)), .integer(Int64(identityLinks)),
        ])
        return refused
    }

    /// Takes the removed events' counts off the daily counts, removes the rows left at 0, and
    /// sets each remaining click row's text to the newest one among the day's remaining events:
    /// those `read` found up to its event id and the ones stored since, or (without `read`) all.
    private static func subtractCounts(
        _ removed: RollupDelta, project: Int64, database: SQLiteDatabase, statements: Statements,
        read: (days: Set<Int64>, texts: [RollupDelta.CountKey: String], throughId: Int64)?
    ) throws {
        let key = """
            project_id = ?1 AND day = ?2 AND kind = ?3 AND key = ?4 AND page = ?5 AND app_version = ?6 AND os = ?7
            """
        let subtract = try database.prepare(
            "UPDATE rollup_counts SET count = max(0, count - ?8) WHERE \(key)")
        let dropEmpty = try database.prepare("DELETE FROM rollup_counts WHERE \(key) AND count <= 0")
        let setText = try database.prepare("UPDATE rollup_counts SET detail = ?8 WHERE \(key)")
        for (countKey, value) in removed.counts {
            let values = countKey.values
            try subtract.run(values + [.integer(value.count)])
            try dropEmpty.run(values)
        }
        let totalKey = "project_id = ?1 AND day = ?2 AND kind = ?3 AND key = ?4"
        let subtractTotal = try database.prepare(
            "UPDATE rollup_totals SET count = max(0, count - ?5) WHERE \(totalKey)")
        let dropEmptyTotal = try database.prepare(
            "DELETE FROM rollup_totals WHERE \(totalKey) AND count <= 0")
        for (key, count) in removed.totals {
            try subtractTotal.run(key.values + [.integer(count)])
            try dropEmptyTotal.run(key.values)
        }
        for (stored, count) in removed.stored {
            try statements.rollups.stored.run([.integer(stored), .integer(-count)])
        }
        // Days the read covered: its texts, then those of the clicks stored since; other days
        // (the person's clicks stored since the read) are read whole.
        let keys = removed.counts.keys.filter(\.kind.isClick)
        let covered = keys.filter { read?.days.contains($0.day) == true }
        var texts = read?.texts ?? [:]
        let newer = try clickTexts(
            of: covered, project: project, after: read?.throughId ?? 0, through: .max, excluding: [],
            database: database)
        texts.merge(newer) { _, later in later }
        let whole = try clickTexts(
            of: keys.filter { read?.days.contains($0.day) != true }, project: project, after: 0,
            through: .max,
            excluding: [], database: database)
        texts.merge(whole) { _, later in later }
        for countKey in keys {
            try setText.run(countKey.values + [.text(texts[countKey])])
        }
    }

    /// The newest text of each click row of `keys`, among the clicks of their days stored after
    /// event `after` up to `through`, except `excluded`.
    static func clickTexts(
        of keys: [RollupDelta.CountKey], project: Int64, after: Int64, through: Int64,
        excluding excluded: Set<Int64>,
        database: SQLiteDatabase
    ) throws -> [RollupDelta.CountKey: String] {
        // Only the events stored since a read: a range of ids, not of the days' index.
        let source = after > 0 ? "events NOT INDEXED" : "events"
        let clicks = try database.prepare(
            """
            SELECT \(rollupColumns) FROM \(source)
            WHERE project_id = ?1 AND time >= ?2 AND time < ?3 AND id > ?4 AND id <= ?5 AND type = 'track'
                AND name = '$element_click' AND element_path IS NOT NULL AND element_text IS NOT NULL
            ORDER BY id
            """)
        var texts: [RollupDelta.CountKey: String] = [:]
        for day in Set(keys.map(\.day)) {
            var remaining = RollupDelta()
            for row in try clicks.rows(
                [
                    .integer(project), .integer(day &* 86_400_000), .integer((day &+ 1) &* 86_400_000),
                    .integer(after), .integer(through),
                ], rollupRow) where !excluded.contains(row.id)
            {
                remaining.add(row.event, project: project)
            }
            for key in keys where key.day == day {
                if let text = remaining.counts[key]?.detail { texts[key] = text }
            }
        }
        return texts
    }

    /// Rebuilds every session that held a removed event from its remaining events (all of them
    /// lie within the stored session's span): its row, its pages, and its dwell and moves.
    static func rebuildSessions(
        _ keys: [RollupDelta.SessionKey], database: SQLiteDatabase, statements: Statements
    ) throws {
        let inSpan = try database.prepare(
            "SELECT \(rollupColumns) FROM events WHERE project_id = ?1 AND time >= ?2 AND time <= ?3 ORDER BY id"
        )
        let deleteSession = try database.prepare(
            "DELETE FROM sessions WHERE project_id = ?1 AND session_key = ?2")
        let deletePages = try database.prepare(
            """
            DELETE FROM session_pages
            WHERE project_id = ?1 AND session = (SELECT number FROM sessions WHERE project_id = ?1 AND session_key = ?2)
            """)
        var change = RollupDelta()
        for key in keys {
            let values: [SQLiteValue] = [.integer(key.project), .text(key.key)]
            let select = statements.selectSession
            try select.bind(values)
            guard try select.step() else {
                select.reset()
                continue
            }
            let start = select.int64(at: 0)
            let end = select.int64(at: 1)
            let before = storedTimeline(select)
            let appVersion = select.text(at: 3) ?? ""
            let os = select.text(at: 4) ?? ""
            select.reset()
            change.replace(
                session: key, before: before, after: SessionTimeline(), appVersion: appVersion, os: os)
            try deletePages.run(values)
            try deleteSession.run(values)
            var remaining = RollupDelta()
            for row in try inSpan.rows([.integer(key.project), .integer(start), .integer(end)], rollupRow)
            where SessionTimeline.sessionKey(
                sessionId: row.event.sessionId, anonymousId: row.event.anonymousId, userId: row.event.userId,
                time: row.event.time) == key.key
            {
                remaining.add(row.event, project: key.project)
            }
            guard let added = remaining.sessions[key] else { continue }
            var timeline = SessionTimeline()
            for event in added.events {
                timeline.add(time: event.time, mark: event.mark, isPageView: event.isPageView)
            }
            change.replace(
                session: key, before: nil, after: timeline, appVersion: added.appVersion, os: added.os)
            guard let first = timeline.start, let last = timeline.end else { continue }
            try statements.upsertSession.run(
                values + [
                    .integer(Timestamp(millisecondsSince1970: first).dayNumber), .integer(first),
                    .integer(last),
                    .integer(Int64(timeline.pageViews)), .text(added.appVersion), .text(added.os),
                    .blob(timeline.storedMarks),
                ])
            for (pageKey, span) in remaining.sessionPages where pageKey.session == key.key {
                try statements.rollups.sessionPage.run([
                    .integer(pageKey.project), .text(pageKey.session), .text(pageKey.page),
                    .integer(Timestamp(millisecondsSince1970: span.start).dayNumber), .integer(span.start),
                    .integer(span.end), .integer(span.pageViews), .text(span.appVersion), .text(span.os),
                ])
            }
        }
        try change.write(statements.rollups)
    }
}

extension RollupKind {
    /// Whether rows of this kind count clicks and keep a text.
    var isClick: Bool { self == .elementClicks || self == .similarElementClicks }
}

extension RollupDelta.CountKey {
    /// The key's values as `?1`…`?7` of a `rollup_counts` statement.
    var values: [SQLiteValue] { total.values + [.text(page), .text(appVersion), .text(os)] }
}

extension RollupDelta.TotalKey {
    /// The key's values as `?1`…`?4` of a `rollup_totals` statement.
    var values: [SQLiteValue] { [.integer(project), .integer(day), .integer(kind.rawValue), .text(key)] }
}
