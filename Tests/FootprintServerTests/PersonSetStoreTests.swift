import FootprintSQLite
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The SQLite store's per-day sets of person numbers: the reports that count people from them
/// equal the raw-event scan and the person rows, when links arrive days after the events, and
/// after deletions, retention, an upgrade from schema 6 and a damaged set.
@Suite(.serialized) struct PersonSetStoreTests {
    static let day: Int64 = 86_400_000

    /// Every figure that counts people, from `store` as it is configured.
    static func peopleFigures(_ store: SQLiteEventStore, _ project: Project, _ filter: ReportFilter) throws
        -> [String]
    {
        let activity = try store.activity(projectId: project.id, filter: filter)
        // Pages in order, without those with nobody in the range (the person rows may list them).
        let pages = activity.pages.filter { $0.value.people > 0 }.sorted { $0.key < $1.key }.map {
            "\($0.key): \($0.value.people) \($0.value.perDay)"
        }
        var figures = [
            "people \(activity.people), daily \(activity.daily), weekly \(activity.weekly)",
            "monthly \(activity.monthly), visitors \(activity.visitors), pages \(pages)",
        ]
        for kind in [RollupKind.pageViews, .trackEvents, .elementClicks, .similarElementClicks, .planEvents] {
            figures.append(
                "\(kind): \(try store.peopleCounts(projectId: project.id, filter: filter, kind: kind, keys: nil).filter { $0.value > 0 }.sorted { $0.key < $1.key })"
            )
        }
        figures.append(
            "\(try store.peopleCounts(projectId: project.id, filter: filter, kind: .trackEvents, keys: ["$element_click", "none"]).filter { $0.value > 0 })"
        )
        figures.append(
            "defined \(try store.peopleCounts(projectId: project.id, filter: filter, matches: definitionMatches(store, project, filter)))"
        )
        for returnEvent in [nil, "$element_click"] as [String?] {
            figures.append(
                "\(try store.retention(projectId: project.id, filter: filter, returnEvent: returnEvent, days: 7))"
            )
        }
        return figures
    }

    /// What each of ``RollupTests/definitions`` that rollups answer matches in the counts.
    static func definitionMatches(_ store: SQLiteEventStore, _ project: Project, _ filter: ReportFilter)
        throws -> [RollupReports.DefinitionMatch]
    {
        let counts = try store.rollupPageCounts(
            projectId: project.id, filter: filter, kinds: RollupReports.definitionCountKinds, texts: false)
        return RollupTests.definitions.filter(RollupReports.canAnswer).map {
            RollupReports.match($0, counts: counts)
        }
    }

    /// The figures from the sets (checking they answered) equal those from the person rows,
    /// read by a second, read-only store on the same file.
    static func expectSetsEqualRows(
        _ store: SQLiteEventStore, _ project: Project, _ filter: ReportFilter, _ comment: Comment,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(
            try store.daySets(projectId: project.id, filter: filter, of: [(.anyEvent, nil)]) != nil, comment,
            sourceLocation: sourceLocation)
        var configuration = SQLiteEventStore.Configuration()
        configuration.readOnly = true
        configuration.countsPeopleFromSets = false
        let rows = try SQLiteEventStore(path: store.path, configuration: configuration)
        defer { rows.close() }
        let fromSets = try peopleFigures(store, project, filter)
        let fromRows = try peopleFigures(rows, project, filter)
        for (got, wanted) in zip(fromSets, fromRows) where got != wanted {
            Issue.record("\(comment): sets \(got)\nrows \(wanted)", sourceLocation: sourceLocation)
        }
    }

    /// Every report equals the event scan's (``RollupTests/expectSameReports(_:sessions:dwell:_:)``),
    /// and the figures from the sets those from the person rows.
    static func expectEventScanAndRows(
        _ store: SQLiteEventStore, _ project: Project, _ filter: ReportFilter, _ comment: Comment,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try RollupTests.expectSameReports(
            RollupTests.both(store, project, filter), sessions: true, dwell: true, comment)
        try expectSetsEqualRows(store, project, filter, comment, sourceLocation: sourceLocation)
    }

    static func everything(_ end: Timestamp) -> ReportFilter {
        ReportFilter(from: end.adding(milliseconds: -11 * day), to: end.adding(milliseconds: day))
    }

    /// The 4 days before the one of `end`, and that day.
    static func lastDays(_ end: Timestamp) -> ReportFilter {
        ReportFilter(from: end.adding(milliseconds: -4 * day), to: end.adding(milliseconds: day))
    }

    static func event(
        _ id: String, anonymousId: String, userId: String? = nil, type: MessageType = .screen,
        name: String = "Home", at time: Timestamp
    ) -> EventRecord {
        EventRecord(
            messageId: id, type: type, name: name, time: time, clientTimestamp: time, sentAt: nil,
            receivedAt: time, anonymousId: anonymousId, userId: userId, sessionId: "s-" + anonymousId,
            page: type == .screen ? name : "Home", elementPath: nil, appVersion: "1.0", os: "iOS 18.1",
            payload: "{}")
    }

    /// Two devices' events, then days later an alias that links both to one user, then a
    /// smaller user id linked to one of them: after each, the reports equal the event scan's,
    /// and the people counted are those the links make.
    @Test func anAliasDaysAfterBothDevicesEventsMergesThemAsTheEventScanDoes() throws {
        try RollupTests.withStore { store, project in
            let end = Timestamp(millisecondsSince1970: 20_400 * Self.day)
            func at(_ daysBefore: Int64) -> Timestamp {
                end.adding(milliseconds: -daysBefore * Self.day + 3_600_000)
            }
            var events: [EventRecord] = []
            for daysBefore in Int64(5)...7 {
                events.append(Self.event("a\(daysBefore)", anonymousId: "device-a", at: at(daysBefore)))
                events.append(
                    Self.event(
                        "a-click\(daysBefore)", anonymousId: "device-a", type: .track, name: "$element_click",
                        at: at(daysBefore).adding(milliseconds: 1_000)))
            }
            for daysBefore in Int64(4)...6 {
                events.append(
                    Self.event("b\(daysBefore)", anonymousId: "device-b", name: "Cart", at: at(daysBefore)))
            }
            events.append(Self.event("c", anonymousId: "device-c", userId: "user-m", at: at(3)))
            _ = try store.write(IngestBatch(projectId: project.id, events: events, receivedAt: at(3)))
            let filter = Self.everything(end)
            let service = ReportService(stores: Stores(store))
            var parameters = try ReportParameters(query: [:], now: end)
            parameters.filter = filter
            #expect(try service.traffic(project: project, parameters: parameters).people == 3)
            try Self.expectEventScanAndRows(store, project, filter, "before the alias")

            // Days later: both devices are aliased to user-z (no event of its own).
            _ = try store.write(
                IngestBatch(
                    projectId: project.id, events: [],
                    identityLinks: [
                        IdentityLink(anonymousId: "device-a", userId: "user-z"),
                        IdentityLink(anonymousId: "device-b", userId: "user-z"),
                    ], receivedAt: at(0)))
            #expect(try service.traffic(project: project, parameters: parameters).people == 2)
            try Self.expectEventScanAndRows(store, project, filter, "after the alias")

            // Then device-b is linked to user-m too, a smaller id: it counts as user-m's.
            _ = try store.write(
                IngestBatch(
                    projectId: project.id, events: [],
                    identityLinks: [IdentityLink(anonymousId: "device-b", userId: "user-m")],
                    receivedAt: at(0)))
            #expect(try service.traffic(project: project, parameters: parameters).people == 2)
            let retention = try store.retention(
                projectId: project.id, filter: filter, returnEvent: nil, days: 7)
            #expect(retention.cohorts.map(\.people) == [1, 1], "user-z from day 7, user-m from day 6")
            try Self.expectEventScanAndRows(store, project, filter, "a smaller user id")
        }
    }

    /// Synthetic traffic written without its links, then the links alone days later: the
    /// reports equal the event scan's before and after, over every filter.
    @Test(arguments: [UInt64(11), 12])
    func linksWrittenDaysAfterTheEventsGiveTheEventScansAnswers(seed: UInt64) throws {
        let data = PeopleTests.DataSet(seed: seed)
        try RollupTests.withStore { store, project in
            for batch in data.batches {
                _ = try store.write(
                    IngestBatch(projectId: project.id, events: batch.events, receivedAt: data.end))
            }
            let filter = Self.everything(data.end)
            // Definitions whose people are whole keys' (from the sets) and others (the rows).
            let matches = try Self.definitionMatches(store, project, filter)
            #expect(matches.contains { $0.wholeKeys != nil && !$0.people.isEmpty })
            #expect(matches.contains { $0.wholeKeys == nil && !$0.people.isEmpty })
            try Self.expectEventScanAndRows(store, project, filter, "without links")
            let links = data.batches.flatMap(\.links)
            #expect(!links.isEmpty)
            _ = try store.write(
                IngestBatch(
                    projectId: project.id, events: [], identityLinks: links,
                    receivedAt: data.end.adding(milliseconds: 3 * Self.day)))
            try Self.expectEventScanAndRows(store, project, filter, "links later")
            try Self.expectSetsEqualRows(store, project, Self.lastDays(data.end), "links later, last days")
        }
    }

    /// After a person's deletion and after retention, the sets still hold exactly the people
    /// of the person rows.
    @Test func deletionAndRetentionKeepTheSetsExact() throws {
        let shared = try #require(PeopleTests.DataSet(seed: 3).withSharedDevice())
        let data = shared.data
        try RollupTests.withStore { store, project in
            try data.write(into: store, project: project)
            let filter = Self.everything(data.end)
            try Self.expectSetsEqualRows(store, project, filter, "written")
            try Self.expectTotalsEqualCounts(store, "written")
            for id in [shared.smallest, try #require(data.unlinkedDevice())] {
                _ = try store.deletePerson(
                    id: id, projectId: project.id,
                    request: PersonDeletion.Request(requestedBy: "test", at: data.end))
                try Self.expectSetsEqualRows(store, project, filter, "\(id) deleted")
                try Self.expectTotalsEqualCounts(store, "\(id) deleted")
            }
            _ = try store.applyRetention(defaultDays: 4, now: data.end, chunk: 101)
            try Self.expectSetsEqualRows(store, project, filter, "after retention")
            try Self.expectTotalsEqualCounts(store, "after retention")
            try Self.expectSetsEqualRows(
                store, project, Self.lastDays(data.end), "after retention, kept days")
        }
    }

    /// `rollup_totals` holds `rollup_counts` summed over pages, app versions and OSes, row for
    /// row (none missing, none extra).
    static func expectTotalsEqualCounts(_ store: SQLiteEventStore, _ comment: Comment) throws {
        let (totals, differing) = try store.read { database in
            try database.prepare(
                """
                SELECT (SELECT count(*) FROM rollup_totals), count(*) FROM (
                    SELECT project_id, day, kind, key, sum(count) AS count FROM rollup_counts GROUP BY 1, 2, 3, 4
                ) c FULL OUTER JOIN rollup_totals t USING (project_id, day, kind, key)
                WHERE c.count IS NOT t.count
                """
            ).rows([]) { ($0.int64(at: 0), $0.int64(at: 1)) }.first ?? (0, -1)
        }
        #expect(totals > 0, comment)
        #expect(differing == 0, comment)
    }

    /// Writes `data` into a new store at `path` (project "old") and closes it.
    /// - Returns: every report of it (``PeopleTests/everyReport(_:_:end:)``), then its people
    ///   figures over each of `people`: what an upgrade of the file must answer again.
    static func answersOfAStoreWritten(
        with data: PeopleTests.DataSet, at path: String, _ configuration: SQLiteEventStore.Configuration,
        people filters: [ReportFilter] = []
    ) throws -> [String] {
        let store = try SQLiteEventStore(path: path, configuration: configuration)
        defer { store.close() }
        let project = try store.createProject(named: "old")
        try data.write(into: store, project: project)
        var answers = try PeopleTests.everyReport(store, project, end: data.end)
        for filter in filters { answers += try peopleFigures(store, project, filter) }
        return answers
    }

    /// A file of schema version 6 (before the sets) opens, builds its sets from its person rows
    /// and links, and answers every report as it did.
    @Test func aSchema6DatabaseOpensAndAnswersAsBefore() throws {
        let data = PeopleTests.DataSet(seed: 5)
        try withTemporaryDatabase("footprint-person-sets-upgrade") { path in
            var configuration = SQLiteEventStore.Configuration()
            configuration.synchronous = "OFF"
            let before = try Self.answersOfAStoreWritten(with: data, at: path, configuration)
            do {
                // Back to schema 6: without the tables of migration 7, nor the revision of 8.
                let database = try SQLiteDatabase(path: path)
                try database.execute(
                    Self.beforeRollupTimes + """
                        DROP TABLE person_sets; DROP TABLE person_merges; DROP TABLE person_numbers;
                        DELETE FROM store_state WHERE key = 'person_sets_pending';
                        DROP TABLE metadata_revision;
                        """)
                for table in ["projects", "write_keys"] {
                    for change in ["insert", "update", "delete"] {
                        try database.execute("DROP TRIGGER \(table)_\(change)_bumps_metadata_revision")
                    }
                }
                try database.setUserVersion(6)
            }
            let store = try SQLiteEventStore(path: path, configuration: configuration)
            defer { store.close() }
            let project = try #require(try store.project(named: "old"))
            #expect(try PeopleTests.everyReport(store, project, end: data.end) == before)
            try Self.expectSetsEqualRows(store, project, Self.everything(data.end), "upgraded")
        }
    }

    /// Back to the funnel times of schema 9 (before `rollup_times`): one row per person and 8-day
    /// block keyed by the ids (left empty: the upgrade drops it and fills `rollup_times` from the
    /// events); and without the daily totals of schema 11 (the upgrade sums them from the daily
    /// counts).
    static let beforeRollupTimes =
        beforeLabelSets + """
            DROP TABLE rollup_totals;
            DROP TABLE rollup_times;
            DELETE FROM store_state WHERE key = '\(SQLiteSchema.timesKey)';
            """ + personRowsTable("rollup_person_times", value: "times BLOB")

    /// Back to the people of schema 11 (before `person_label_sets`): one row per person, 64-day
    /// block, page, app version and OS keyed by the ids (left empty: the upgrade drops it and
    /// fills both set tables from the events), and `person_sets` as it was.
    static let beforeLabelSets =
        beforeNarrowEvents + """
            DROP TABLE person_label_sets;
            DELETE FROM store_state WHERE key = '\(SQLiteSchema.labelSetsKey)';
            """ + personRowsTable("rollup_person_days", value: "days INTEGER")

    /// Back to the events rows of schema 13: both times whole, every similar path stored, no
    /// offset columns (the payloads stay in format 2, which reads the same values back); and the
    /// sessions' pages keyed by the session's key (without the keys and indexes, which the
    /// upgrade makes).
    static let beforeNarrowEvents = """
        UPDATE events SET client_timestamp = \(SQLiteSchema.clientTimestamp),
            received_at = \(SQLiteSchema.receivedAt), similar_path = \(SQLiteSchema.similarPath);
        ALTER TABLE events DROP COLUMN client_offset;
        ALTER TABLE events DROP COLUMN received_offset;
        CREATE TABLE keyed_sessions AS
            SELECT project_id, session_key, day, start_time, end_time, page_views, app_version, os, marks
            FROM sessions;
        CREATE TABLE keyed_session_pages AS
            SELECT p.project_id, s.session_key, p.page, p.day, p.start_time, p.end_time, p.page_views,
                p.app_version, p.os
            FROM session_pages p JOIN sessions s ON s.project_id = p.project_id AND s.number = p.session;
        DROP TABLE session_pages;
        DROP TABLE sessions;
        ALTER TABLE keyed_sessions RENAME TO sessions;
        ALTER TABLE keyed_session_pages RENAME TO session_pages;
        """

    /// An earlier schema's table of one row per person, block, page, app version and OS keyed by
    /// the ids, with one `value` column (its name and type).
    static func personRowsTable(_ name: String, value: String) -> String {
        """
        CREATE TABLE \(name)(
            project_id INTEGER NOT NULL, kind INTEGER NOT NULL, key TEXT NOT NULL, block INTEGER NOT NULL,
            anonymous_id TEXT NOT NULL, user_id TEXT NOT NULL, page TEXT NOT NULL, app_version TEXT NOT NULL,
            os TEXT NOT NULL, \(value) NOT NULL,
            PRIMARY KEY(project_id, kind, key, block, anonymous_id, user_id, page, app_version, os)
        ) WITHOUT ROWID;
        """
    }

    /// A file of schema version 11 opens, fills both set tables from its events (in chunks that
    /// resume), and answers every report as it did, with and without a page, app version or OS,
    /// and the deletion of a person; read-only, it is refused until then.
    @Test func aSchema11DatabaseFillsItsSetsFromItsEvents() throws {
        let data = PeopleTests.DataSet(seed: 12)
        try withTemporaryDatabase("footprint-label-sets-upgrade") { path in
            var configuration = SQLiteEventStore.Configuration()
            configuration.synchronous = "OFF"
            let filters = [Self.everything(data.end)] + Self.labelFilters(data.end)
            let before = try Self.answersOfAStoreWritten(with: data, at: path, configuration, people: filters)
            do {
                let database = try SQLiteDatabase(path: path)
                try database.execute(Self.beforeLabelSets)
                try database.setUserVersion(11)
            }
            do {
                let database = try SQLiteDatabase(path: path)
                try database.migrate(SQLiteSchema.migrations)
                let sets = try database.prepare("SELECT count(*) FROM person_sets").rows([]) {
                    $0.int64(at: 0)
                }
                #expect(sets == [0], "the migration empties the sets")
            }
            try Self.expectFilledOnTheFirstWritableOpen(path, configuration, data, chunk: 5) {
                try $0.fillPersonSets(chunk: $1)
            }
            let store = try SQLiteEventStore(path: path, configuration: configuration)
            defer { store.close() }
            let project = try #require(try store.project(named: "old"))
            var after = try PeopleTests.everyReport(store, project, end: data.end)
            for filter in filters { after += try Self.peopleFigures(store, project, filter) }
            #expect(after == before)
            try Self.expectEventScanAndRows(store, project, filters[0], "upgraded")
            for filter in filters.dropFirst() {
                try Self.expectSetsEqualRows(store, project, filter, "upgraded")
            }
        }
    }

    /// After a migration whose new rows are filled from the stored events: a read-only open is
    /// refused until they are, and `fill` (`chunk` events per transaction, each moving the
    /// progress on) counts every event of `data` once.
    static func expectFilledOnTheFirstWritableOpen(
        _ path: String, _ configuration: SQLiteEventStore.Configuration, _ data: PeopleTests.DataSet,
        chunk: Int, _ fill: (GroupCommitWriter, Int) throws -> Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var readOnly = configuration
        readOnly.readOnly = true
        let refused = #expect(
            throws: ServerError.self, "migrated, not filled yet", sourceLocation: sourceLocation
        ) {
            try SQLiteEventStore(path: path, configuration: readOnly)
        }
        #expect(refused?.message.contains("still being built") == true, sourceLocation: sourceLocation)
        let writer = try GroupCommitWriter(database: try SQLiteDatabase(path: path))
        defer { writer.close() }
        #expect(
            try fill(writer, chunk) == data.batches.map(\.events.count).reduce(0, +),
            sourceLocation: sourceLocation)
        #expect(try fill(writer, chunk) == 0, "done once", sourceLocation: sourceLocation)
    }

    /// Filters on one app version, OS or page of the data set (the labelled sets answer them).
    static func labelFilters(_ end: Timestamp) -> [ReportFilter] {
        var filters: [ReportFilter] = []
        for change in [
            { (filter: inout ReportFilter) in filter.appVersion = "2.4.0" },
            { (filter: inout ReportFilter) in filter.os = "iOS 18.1" },
            { (filter: inout ReportFilter) in filter.page = "Home" },
        ] {
            var filter = everything(end)
            change(&filter)
            filters.append(filter)
        }
        return filters
    }

    /// A file of schema version 9 opens, fills `rollup_times` from its events (in chunks that
    /// resume), and answers every report as it did, funnels and the deletion of a person
    /// included; read-only, it is refused until then.
    @Test func aSchema9DatabaseFillsItsFunnelTimesFromItsEvents() throws {
        let data = PeopleTests.DataSet(seed: 9)
        try withTemporaryDatabase("footprint-times-upgrade") { path in
            var configuration = SQLiteEventStore.Configuration()
            configuration.synchronous = "OFF"
            let before = try Self.answersOfAStoreWritten(with: data, at: path, configuration)
            do {
                let database = try SQLiteDatabase(path: path)
                try database.execute(Self.beforeRollupTimes)
                try database.setUserVersion(9)
            }
            var readOnly = configuration
            readOnly.readOnly = true
            #expect(throws: ServerError.self, "version 9") {
                try SQLiteEventStore(path: path, configuration: readOnly)
            }
            do {
                let database = try SQLiteDatabase(path: path)
                try database.migrate(SQLiteSchema.migrations)
            }
            try Self.expectFilledOnTheFirstWritableOpen(path, configuration, data, chunk: 7) {
                try $0.fillRollupTimes(chunk: $1)
            }
            let store = try SQLiteEventStore(path: path, configuration: configuration)
            defer { store.close() }
            let project = try #require(try store.project(named: "old"))
            #expect(try PeopleTests.everyReport(store, project, end: data.end) == before)
            let pending = try store.read { database in
                try database.prepare("SELECT count(*) FROM store_state WHERE key = ?1").rows([
                    .text(SQLiteSchema.timesKey)
                ]) { $0.int64(at: 0) }
            }
            #expect(pending == [0])
        }
    }

    /// A stored set that does not decode is never trusted: the reports count from the labelled
    /// sets, and the next write that touches it makes it again from the labelled sets of its day.
    @Test func aDamagedSetIsNotTrusted() throws {
        let data = PeopleTests.DataSet(seed: 6)
        try RollupTests.withStore { store, project in
            try data.write(into: store, project: project)
            let filter = Self.everything(data.end)
            let wanted = try Self.peopleFigures(store, project, filter)
            let day = try store.read { database in
                try database.prepare(
                    "SELECT max(day) FROM person_sets WHERE project_id = ?1 AND kind = ?2"
                ).rows([.integer(project.id), .integer(RollupKind.anyEvent.rawValue)]) { $0.int64(at: 0) }
                    .first
            }
            let damagedDay = try #require(day)
            try store.requireWriter().perform { database in
                try database.prepare(
                    """
                    UPDATE person_sets SET members = x'05FF'
                    WHERE project_id = ?1 AND kind = ?2 AND day = ?3 AND role = 1
                    """
                ).run([.integer(project.id), .integer(RollupKind.anyEvent.rawValue), .integer(damagedDay)])
            }
            #expect(try store.daySets(projectId: project.id, filter: filter, of: [(.anyEvent, nil)]) == nil)
            #expect(try Self.peopleFigures(store, project, filter) == wanted)
            // A new event of a device without a user on that day makes the set again.
            _ = try store.write(
                IngestBatch(
                    projectId: project.id,
                    events: [
                        Self.event(
                            "late", anonymousId: "device-late",
                            at: Timestamp(millisecondsSince1970: damagedDay * Self.day + 1))
                    ], receivedAt: data.end))
            try Self.expectSetsEqualRows(store, project, filter, "rebuilt")
        }
    }

    /// A labelled set that does not decode is never trusted: a report that needs it fails with a
    /// reason, and the next write that touches it counts it again from its day's events.
    @Test func aDamagedLabelledSetIsCountedAgainFromItsDaysEvents() throws {
        let data = PeopleTests.DataSet(seed: 7)
        try RollupTests.withStore { store, project in
            try data.write(into: store, project: project)
            let day = (data.end.millisecondsSince1970 - 1) / Self.day
            func late(_ id: String) throws {
                _ = try store.write(
                    IngestBatch(
                        projectId: project.id,
                        events: [
                            Self.event(
                                id, anonymousId: "device-" + id,
                                at: Timestamp(millisecondsSince1970: day * Self.day + 1))
                        ], receivedAt: data.end))
            }
            try late("late-1")
            var filter = Self.everything(data.end)
            filter.appVersion = "1.0"
            try store.requireWriter().perform { database in
                try database.prepare(
                    """
                    UPDATE person_label_sets SET members = x'05FF'
                    WHERE project_id = ?1 AND kind = ?2 AND day = ?3 AND app_version = '1.0'
                    """
                ).run([.integer(project.id), .integer(RollupKind.anyEvent.rawValue), .integer(day)])
                #expect(database.changes == 1)
            }
            #expect(try store.daySets(projectId: project.id, filter: filter, of: [(.anyEvent, nil)]) == nil)
            let refused = #expect(throws: ServerError.self) {
                try store.activity(projectId: project.id, filter: filter)
            }
            #expect(refused?.message.contains("cannot be read") == true)
            try late("late-2")
            try Self.expectEventScanAndRows(store, project, filter, "counted again")
            #expect(try store.activity(projectId: project.id, filter: filter).people == 2)
            try Self.expectEventScanAndRows(store, project, Self.everything(data.end), "the others")
        }
    }
}
