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
        let store = try #require(fixture.fixture.server.store as? SQLiteEventStore)
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
}
