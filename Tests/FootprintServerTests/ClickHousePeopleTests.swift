import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// Deleting a person on the ClickHouse store: every report then equals the SQLite store's after
/// the same deletion, the deletion removes and logs what SQLite's does, and the person's later
/// events are refused.
@Suite(.serialized, .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHousePeopleTests {
    @Test(arguments: [UInt64(7)])
    func deletingAPersonGivesTheReportsOfSQLiteAfterTheSameDeletion(seed: UInt64) throws {
        let data = PeopleTests.DataSet(seed: seed)
        let id = try #require(data.linkedUser())
        let request = PersonDeletion.Request(requestedBy: "test", at: data.end)
        try withTemporaryStore("footprint-people-sqlite") { sqlite, sqliteProject in
            try data.write(into: sqlite, project: sqliteProject)
            let expected = try sqlite.deletePerson(id: id, projectId: sqliteProject.id, request: request)
            let reports = try ClickHouseAgreementTests.everyReport(sqlite, sqliteProject, data: data)
            try ClickHouseTesting.withStore { store, project throws in
                try ClickHouseTesting.stopMerges(store)
                // Twice: every event has a redundant copy and a record of it.
                try data.write(into: store, project: project)
                try data.write(into: store, project: project)
                let selection = PersonSelection(id: id, links: try store.identityLinks(projectId: project.id))
                let records = """
                    SELECT count() FROM \(store.location.database).duplicate_copies
                    WHERE project_id = \(project.id)
                        AND \(ClickHouseSQL.personCondition(person: selection.person, anonymousIds: selection.anonymousIds))
                    """
                let before = try ClickHouseTesting.redundantCopies(store, project: project)
                let personal = ClickHouseFormat.int64(
                    try #require(try store.client.rows(records).first?.first))
                #expect(personal > 0)
                try ClickHouseTesting.stopMerges(store, running: true)
                let deletion = try store.deletePerson(id: id, projectId: project.id, request: request)
                // The records of the person's copies went with them; the others stay.
                #expect(try store.client.rows(records).first?.first == "0")
                #expect(
                    try ClickHouseTesting.redundantCopies(store, project: project) == before - Int(personal))
                #expect(deletion.events == expected.events)
                #expect(deletion.events > 0)
                #expect(deletion.identityLinks == expected.identityLinks)
                #expect(deletion.refusedIds == expected.refusedIds)
                #expect(deletion.refusedUntil == expected.refusedUntil)
                #expect(try store.exportPerson(id: id, projectId: project.id).events.isEmpty)
                #expect(
                    try store.eventCount(projectId: project.id)
                        == sqlite.eventCount(projectId: sqliteProject.id))
                ClickHouseAgreementTests.expectSame(
                    try ClickHouseAgreementTests.everyReport(store, project, data: data), reports)
                #expect(
                    try #require(store.metadata as? SQLiteEventStore).personDeletions(projectId: project.id)
                        .count
                        == sqlite.personDeletions(projectId: sqliteProject.id).count)
                // The person's batches sent again: refused, as on SQLite.
                let batch = IngestBatch(
                    projectId: project.id, events: data.batches[0].events,
                    identityLinks: data.batches[0].links,
                    receivedAt: data.end)
                var sqliteBatch = batch
                sqliteBatch.projectId = sqliteProject.id
                let again = try store.write(batch)
                #expect(again == (try sqlite.write(sqliteBatch)))
                #expect(!again.refused.isEmpty)
            }
        }
    }

    /// A deleted person's click was the last of its element that day, and its text the one the
    /// element shows: after the deletion the element shows the text of the clicks left, on both
    /// stores. (`element_texts` keeps no person: the deletion builds those days' texts anew from
    /// the events left.) No event has a redundant copy, so the texts are read from that table.
    @Test func aDeletedPersonsClickTextGivesWayToTheTextOfTheClicksLeft() throws {
        try Self.expectClickTextsAfterDeletions(url: nil)
    }

    /// Three people deleted one after the other, as ``aDeletedPersonsClickTextGivesWayToTheTextOfTheClicksLeft()``
    /// says, on the ClickHouse at `url`: two whose clicks are not the last (each deletion builds
    /// the same rows anew, which a replicated table must not drop as a resend of the first), then
    /// the one whose click is. After each, both stores show the same texts.
    static func expectClickTextsAfterDeletions(url: String?) throws {
        let start = Timestamp(iso8601: "2026-11-03T12:00:00.000Z")!
        func click(_ id: String, device: String, user: String?, text: String, at offset: Int64) -> EventRecord
        {
            let time = start.adding(milliseconds: offset)
            return EventRecord(
                messageId: id, type: .track, name: "$element_click", time: time, clientTimestamp: time,
                sentAt: nil, receivedAt: time, anonymousId: device, userId: user, sessionId: "s-\(device)",
                page: "List", elementPath: "#buy:#UIButton#List", appVersion: "2.0", os: "iOS 17.2",
                payload: #"{"type":"track","event":"$element_click","properties":{}}"#,
                similarPath: "#buy:#UIButton#List", elementText: text)
        }
        // user-b's clicks come last, and their texts sort after the others': the last both ways.
        let batches = [
            [
                click("a1", device: "device-a", user: nil, text: "Before", at: 0),
                click("c1", device: "device-c", user: "user-c", text: "Aaa", at: 500),
                click("d1", device: "device-d", user: "user-d", text: "Abb", at: 600),
            ],
            [
                click("b1", device: "device-b", user: "user-b", text: "Mine", at: 1_000),
                click("b2", device: "device-b", user: nil, text: "Mine too", at: 2_000),
            ],
        ]
        let deleted = ["user-c", "user-d", "user-b"]
        let filter = ReportFilter(
            from: start.adding(milliseconds: -86_400_000), to: start.adding(milliseconds: 86_400_000))
        let request = PersonDeletion.Request(requestedBy: "test", at: start.adding(milliseconds: 60_000))
        func texts(_ store: any EventStore, _ project: Project) throws -> [String] {
            try store.rollupPageCounts(
                projectId: project.id, filter: filter, kinds: [.elementClicks, .similarElementClicks],
                texts: true
            )
            .map { "\($0.kind.rawValue) \($0.key) \($0.day) \($0.text ?? "none")" }.sorted()
        }
        func write(_ store: any EventStore, _ project: Project) throws {
            for batch in batches {
                // device-b is user-b's: its click without a user id goes with it.
                _ = try store.write(
                    IngestBatch(
                        projectId: project.id, events: batch,
                        identityLinks: [IdentityLink(anonymousId: "device-b", userId: "user-b")],
                        receivedAt: start))
            }
        }
        try withTemporaryStore("footprint-click-texts") { sqlite, sqliteProject in
            try write(sqlite, sqliteProject)
            var expected = [try texts(sqlite, sqliteProject)]
            for person in deleted {
                _ = try sqlite.deletePerson(id: person, projectId: sqliteProject.id, request: request)
                expected.append(try texts(sqlite, sqliteProject))
            }
            #expect(
                expected.dropLast().allSatisfy {
                    $0.count == 2 && $0.allSatisfy { $0.hasSuffix(" Mine too") }
                })
            #expect(
                expected.last?.count == 2 && expected.last?.allSatisfy { $0.hasSuffix(" Before") } == true)
            try ClickHouseTesting.withStore(url: url) { store, project throws in
                try write(store, project)
                #expect(try ClickHouseTesting.redundantCopies(store, project: project) == 0)
                var shown = [try texts(store, project)]
                for person in deleted {
                    _ = try store.deletePerson(id: person, projectId: project.id, request: request)
                    shown.append(try texts(store, project))
                }
                #expect(shown == expected)
            }
        }
    }
}

/// People counted from `person_blocks` over days of two 64-day blocks: every report equals the
/// SQLite store's.
@Suite(.serialized, .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHousePersonBlockTests {
    @Test func reportsOverTwoBlocksEqualTheSQLiteStores() throws {
        // Ten days ending on day 20,740: days 20,730 to 20,739, across the block that starts on
        // day 20,736 (324 × 64).
        let data = PeopleTests.DataSet(seed: 12, end: Timestamp(millisecondsSince1970: 20_740 * 86_400_000))
        #expect(data.end.adding(milliseconds: -10 * 86_400_000).dayNumber >> 6 == 323)
        #expect(data.end.adding(milliseconds: -1).dayNumber >> 6 == 324)
        try withTemporaryStore("footprint-blocks-sqlite") { sqlite, sqliteProject in
            try data.write(into: sqlite, project: sqliteProject)
            let reports = try ClickHouseAgreementTests.everyReport(sqlite, sqliteProject, data: data)
            try ClickHouseTesting.withStore { store, project throws in
                try data.write(into: store, project: project)
                #expect(try ClickHouseTesting.redundantCopies(store, project: project) == 0)
                ClickHouseAgreementTests.expectSame(
                    try ClickHouseAgreementTests.everyReport(store, project, data: data), reports)
                // The people of every kind, those `person_blocks` keeps and page views, which
                // it does not (their reads go to `person_days`), over the ten days and over one.
                let day: Int64 = 86_400_000
                for filter in [
                    ReportFilter(from: data.end.adding(milliseconds: -10 * day), to: data.end),
                    ReportFilter(
                        from: data.end.adding(milliseconds: -5 * day),
                        to: data.end.adding(milliseconds: -4 * day)),
                ] {
                    for kind in RollupKind.allCases {
                        let expected = try sqlite.peopleCounts(
                            projectId: sqliteProject.id, filter: filter, kind: kind, keys: nil)
                        #expect(
                            try store.peopleCounts(
                                projectId: project.id, filter: filter, kind: kind, keys: nil)
                                == expected, "\(kind)")
                        if kind == .pageViews || kind == .anyEvent { #expect(!expected.isEmpty) }
                    }
                }
            }
        }
    }
}

/// Retention on the ClickHouse store: the days before the horizon go, and every report then
/// equals the SQLite store's after the same retention. The horizon (day 20,784) is inside its
/// 64-day block, so `person_blocks` keeps only that block's days from the horizon on. Written
/// once, the people are counted from the aggregate tables; written twice, every device has a
/// redundant copy and its people are counted from its events.
@Suite(.serialized, .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHouseRetentionTests {
    @Test(arguments: [false, true])
    func retentionGivesTheReportsOfSQLiteAfterTheSameRetention(twice: Bool) throws {
        let data = PeopleTests.DataSet(seed: 8)
        let days = 4
        #expect((data.end.dayNumber - Int64(days)) & 63 != 0)
        try withTemporaryStore("footprint-retention-sqlite") { sqlite, sqliteProject in
            try data.write(into: sqlite, project: sqliteProject)
            let expected = try sqlite.applyRetention(defaultDays: days, now: data.end)
            let reports = try ClickHouseAgreementTests.everyReport(sqlite, sqliteProject, data: data)
            try ClickHouseTesting.withStore { store, project throws in
                try ClickHouseTesting.stopMerges(store)
                // Twice: every event has a redundant copy and a record of it.
                try data.write(into: store, project: project)
                if twice { try data.write(into: store, project: project) }
                try ClickHouseTesting.stopMerges(store, running: true)
                let deleted = try store.applyRetention(defaultDays: days, now: data.end)
                #expect(deleted[project.name] == expected[sqliteProject.name])
                #expect((deleted[project.name] ?? 0) > 0)
                // The records of the deleted copies went with them: one per event left.
                let horizon = try #require(try store.metadata.retentionHorizon(projectId: project.id))
                let old = try store.client.rows(
                    """
                    SELECT count() FROM \(store.location.database).duplicate_copies
                    WHERE project_id = \(project.id) AND time < \(horizon.millisecondsSince1970)
                    """)
                #expect(old.first?.first == "0")
                #expect(
                    try ClickHouseTesting.redundantCopies(store, project: project)
                        == (twice ? store.eventCount(projectId: project.id) : 0))
                #expect(
                    try store.metadata.retentionHorizon(projectId: project.id)
                        == sqlite.retentionHorizon(projectId: sqliteProject.id))
                #expect(
                    try store.eventCount(projectId: project.id)
                        == sqlite.eventCount(projectId: sqliteProject.id))
                ClickHouseAgreementTests.expectSame(
                    try ClickHouseAgreementTests.everyReport(store, project, data: data), reports)
                // A second run the same day finds nothing more.
                #expect(try store.applyRetention(defaultDays: days, now: data.end)[project.name] == 0)
            }
        }
    }
}
