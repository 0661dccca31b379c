import FootprintSQLite
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// Retention deletes whole days before the horizon and drops their rollups: the store then
/// answers every report as a store that only ever held the kept days.
@Suite(.serialized) struct RetentionTests {
    @Test(arguments: [(UInt64(1), 5), (2, 3)])
    func retentionGivesTheReportsOfTheKeptDaysOnly(seed: UInt64, days: Int) throws {
        let data = PeopleTests.DataSet(seed: seed)
        let horizon = Timestamp(millisecondsSince1970: (data.end.dayNumber - Int64(days)) * 86_400_000)
        let kept = data.filtered(events: { $0.time >= horizon }, links: { _ in true })
        try RollupTests.withStore { store, project in
            try data.write(into: store, project: project)
            let before = try store.eventCount(projectId: project.id)
            // Small chunks: many transactions, as on a large database.
            let deleted = try store.applyRetention(defaultDays: days, now: data.end, chunk: 97)
            let expected = kept.batches.map(\.events.count).reduce(0, +)
            #expect(expected < before && expected > 0)
            #expect(deleted[project.name] == before - expected)
            #expect(try store.eventCount(projectId: project.id) == expected)
            #expect(try store.retentionHorizon(projectId: project.id) == horizon)
            let after = try PeopleTests.everyReport(store, project, end: data.end)
            try RollupTests.withStore { reduced, reducedProject in
                try kept.write(into: reduced, project: reducedProject)
                let want = try PeopleTests.everyReport(reduced, reducedProject, end: data.end)
                #expect(after.count == want.count)
                for (got, wanted) in zip(after, want) where got != wanted {
                    Issue.record("after retention: \(got)\nkept days only: \(wanted)")
                }
            }
            // A second run the same day finds nothing more.
            #expect(try store.applyRetention(defaultDays: days, now: data.end)[project.name] == 0)
        }
    }

    /// A report over a range that starts before the horizon says so; one after it does not.
    @Test func aReportStartingBeforeTheHorizonSaysSo() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let store = try #require(fixture.fixture.server.stores.events as? SQLiteEventStore)
        // Keep 1 day before 2026-11-03: 2026-11-01 goes.
        let deleted = try store.applyRetention(defaultDays: 1, now: ReportFixture.now)
        #expect(deleted.values.reduce(0, +) == 7, "a1's seven events of 2026-11-01")
        let before = try fixture.get(
            "/v1/reports/traffic?\(ReportFixture.range)", token: fixture.access.readToken)
        #expect(before.headers["footprint-retention-horizon"] == "2026-11-02")
        let traffic = try JSONParser().parse(before.body)
        #expect(traffic["retention"]?["horizon"] == "2026-11-02")
        #expect(traffic["pageViews"] == 3)
        let after = try fixture.json("/v1/reports/traffic?from=2026-11-02&to=2026-11-03")
        #expect(after["retention"] == nil)
        #expect(after["pageViews"] == 3)
        let browser = try DashboardTests.signIn(fixture)
        #expect(
            try browser.get("/pages?\(ReportFixture.range)").text.contains(
                "Events before 2026-11-02 were deleted"))
        #expect(!(try browser.get("/pages?from=2026-11-02&to=2026-11-03").text.contains("were deleted")))
    }

    @Test func aProjectsOwnRetentionWinsOverTheServers() throws {
        try withTemporaryStore("footprint-retention") { store, project in
            #expect(try store.retentionDays(projectId: project.id) == nil)
            try store.setRetentionDays(400, projectId: project.id)
            #expect(try store.retentionDays(projectId: project.id) == 400)
            #expect(throws: ServerError.self) { try store.setRetentionDays(0, projectId: project.id) }
            let now = Timestamp(millisecondsSince1970: 1_796_083_200_000)
            let old = now.adding(milliseconds: -100 * 86_400_000)
            _ = try store.write(
                IngestBatch(
                    projectId: project.id,
                    events: [
                        EventRecord(
                            messageId: "m1", type: .track, name: "Opened", time: old, clientTimestamp: old,
                            sentAt: nil, receivedAt: old, anonymousId: "a", userId: nil, sessionId: nil,
                            page: nil,
                            elementPath: nil, appVersion: nil, os: nil, payload: "{}", similarPath: nil,
                            elementText: nil, itemId: nil, durationMilliseconds: nil, planEventName: nil)
                    ], receivedAt: old))
            #expect(try store.applyRetention(defaultDays: 30, now: now)[project.name] == 0)
            try store.setRetentionDays(nil, projectId: project.id)
            #expect(try store.applyRetention(defaultDays: 30, now: now)[project.name] == 1)
        }
    }

    /// Screen snapshots go with the events: one taken or received before the horizon's day is
    /// deleted with its image; one from the horizon's day on stays, and so do other projects'.
    @Test func snapshotsBeforeTheHorizonGoWithTheEvents() throws {
        try withTemporaryStore("footprint-retention-snapshots") { store, project in
            let day: Int64 = 86_400_000
            let now = Timestamp(millisecondsSince1970: 1_796_083_200_000 + 3_600_000)
            // 30 days: the horizon is the start of the day 30 days before today's.
            let horizon = Timestamp(millisecondsSince1970: 1_796_083_200_000 - 30 * day)
            let other = try store.createProject(named: "other")
            let sessions = ConnectSessions(stores: Stores(store))
            let session = try sessions.start(project: project, now: now).session
            let otherSession = try sessions.start(project: other, now: now).session
            func keep(
                _ project: Project, _ session: ConnectSession, taken: Timestamp, received: Timestamp,
                image: Int = 0
            ) throws -> Int64 {
                var record = SnapshotSamples.record(
                    projectId: project.id, sessionId: session.id, imageBytes: image, at: taken)
                record.receivedAt = received
                return try store.storeSnapshot(record, retention: SnapshotRetention()).id
            }
            let lastOldMillisecond = horizon.adding(milliseconds: -1)
            let oldWithImage = try keep(
                project, session, taken: lastOldMillisecond, received: now, image: 100)
            let receivedLongAgo = try keep(
                project, session, taken: horizon, received: horizon.adding(milliseconds: -5 * day))
            let onTheHorizon = try keep(project, session, taken: horizon, received: horizon)
            let recent = try keep(project, session, taken: now, received: now, image: 100)
            let otherProjects = try keep(other, otherSession, taken: lastOldMillisecond, received: now)

            try store.setRetentionDays(30, projectId: project.id)
            try store.applyRetention(defaultDays: nil, now: now)
            #expect(try store.snapshot(id: oldWithImage, projectId: project.id) == nil)
            #expect(try store.snapshotImage(id: oldWithImage, projectId: project.id) == nil)
            #expect(try store.snapshot(id: receivedLongAgo, projectId: project.id) == nil)
            #expect(try store.snapshot(id: onTheHorizon, projectId: project.id) != nil)
            #expect(try store.snapshotImage(id: recent, projectId: project.id)?.data.count == 100)
            #expect(try store.snapshot(id: otherProjects, projectId: other.id) != nil, "no retention")
            let kept = try store.screens(projectId: project.id).map(\.snapshotCount).reduce(0, +)
            #expect(kept == 2)
            // Nothing is left of the deleted snapshots' images either.
            let database = try SQLiteDatabase(path: store.path)
            let images = try database.prepare("SELECT snapshot FROM snapshot_images ORDER BY snapshot").rows(
                []) {
                    $0.int64(at: 0)
                }
            #expect(images == [recent])
        }
    }
}
