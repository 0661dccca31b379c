import FootprintSQLite
import FootprintServer
import FootprintWire
import Foundation
import Testing

/// A database written by an older version may hold sums past `Int64.max` (or the REALs SQLite
/// turned them into): every report, every dashboard page and further ingest still answer, with
/// the sums held at `Int64.max`.
struct StoredOverflowTests {
    static let range = ReportFixture.range
    static let reportPaths = [
        "/v1/reports/traffic?\(range)", "/v1/reports/events?\(range)", "/v1/reports/elements?\(range)",
        "/v1/reports/elements?\(range)&grouping=similar", "/v1/reports/items?\(range)",
        "/v1/reports/sessions?\(range)", "/v1/reports/sessions?\(range)&page=Detail",
        "/v1/reports/paths?\(range)",
        "/v1/reports/paths?\(range)&from_page=Home", "/v1/reports/paths?\(range)&page=Home&from_page=Home",
        "/v1/reports/funnel?\(range)&step1=page:Home&step2=page:Detail&step3=event:$element_click",
        "/v1/reports/funnel?\(range)&page=Home&step1=page:Home&step2=event:$screen_leave",
        "/v1/reports/retention?\(range)&days=2",
        "/v1/reports/retention?\(range)&days=2&return_event=$element_click",
        "/v1/events/recent",
    ]
    static let dashboardPaths = [
        "/?\(range)", "/pages?\(range)", "/pages?\(range)&from_page=Home", "/pages?\(range)&page=Home",
        "/events?\(range)", "/elements?\(range)", "/elements?\(range)&grouping=similar", "/items?\(range)",
        "/funnels?\(range)&step1=page:Home&step2=page:Detail", "/retention?\(range)&days=2", "/live",
        "/live.json",
        "/definitions", "/config",
    ]

    /// Sets every rollup sum of the fixture to `Int64.max` and adds a second row of each
    /// (another app version) so that every group sums past it (the totals over every version
    /// held at `Int64.max`, as their upsert holds them); sessions span the whole of
    /// `Int64`; dwell durations are `Int64.max`; one dwell total is the REAL an overflowing
    /// `+` leaves.
    static func writeOverflowingRows(into path: String, projectId: Int64) throws {
        let database = try SQLiteDatabase(path: path)
        let max = "9223372036854775807"
        let events =
            "project_id, message_id, type, name, time, client_timestamp, sent_at, received_at, anonymous_id, user_id, "
            + "session_id, page, element_path, app_version, os, payload, similar_path, element_text, item_id, plan_event, "
            + "client_offset, received_offset"
        try database.execute(
            """
            BEGIN IMMEDIATE;
            UPDATE rollup_counts SET count = \(max);
            INSERT INTO rollup_counts(project_id, day, kind, key, page, app_version, os, count, detail)
                SELECT project_id, day, kind, key, page, 'old', os, \(max), detail FROM rollup_counts;
            UPDATE rollup_totals SET count = \(max);
            UPDATE rollup_dwell SET count = 1, total = \(max);
            INSERT INTO rollup_dwell(project_id, day, page, app_version, os, bucket, count, total)
                SELECT project_id, day, page, 'old', os, bucket, \(max), 1e19 FROM rollup_dwell;
            UPDATE rollup_moves SET count = \(max);
            INSERT INTO rollup_moves(project_id, day, from_page, to_page, app_version, os, count)
                SELECT project_id, day, from_page, to_page, 'old', os, \(max) FROM rollup_moves;
            UPDATE sessions SET start_time = -\(max), page_views = \(max),
                marks = replace(marks, '5000]', '\(max)]');
            UPDATE session_pages SET start_time = -\(max), page_views = \(max);
            INSERT INTO lost_events(project_id, batch_key, count, received_at)
                VALUES (\(projectId), 'old-1', \(max), 0), (\(projectId), 'old-2', \(max), 0);
            UPDATE project_events SET stored = \(max);
            UPDATE events SET duration_ms = \(max) WHERE duration_ms IS NOT NULL;
            INSERT INTO events(\(events), duration_ms)
                SELECT \(events.replacingOccurrences(of: "message_id", with: "'old-' || message_id")), \(max)
                FROM events WHERE duration_ms IS NOT NULL;
            COMMIT;
            """)
    }

    @Test func everyReportAndPageAnswersOverSumsPastInt64Max() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let server = fixture.fixture.server
        let project = try #require(server.defaultProject)
        try Self.writeOverflowingRows(
            into: fixture.fixture.directory + "/events.sqlite", projectId: project.id)

        // Ingest on top: the stored session's huge dwell is replaced, the counts are added to.
        let more = try fixture.client.post(
            "/v1/batch",
            json: Payloads.batch(
                [
                    ReportFixture.message(
                        "screen", "m11", anon: "a1", session: "s1", at: "2026-11-01T10:00:20.000Z",
                        extra: #""name":"Home""#),
                    ReportFixture.message(
                        "track", "m12", anon: "a1", session: "s1", at: "2026-11-01T10:00:21.000Z",
                        extra:
                            #""event":"$screen_leave","properties":{"$page_name":"Home","duration_ms":1000}"#),
                ], sentAt: "2026-11-03T12:00:00.000Z"),
            writeKey: fixture.fixture.writeKey)
        #expect(more.status == 200, "\(more.text)")
        #expect(try JSONParser().parse(more.body)["stored"] == 2)
        #expect(try server.stores.events.eventCount(projectId: project.id) == Int.max)

        var options = SQLiteDatabase.Options()
        options.readOnly = true
        let database = try SQLiteDatabase(
            path: fixture.fixture.directory + "/events.sqlite", options: options)
        let homeViews = try database.prepare(
            "SELECT typeof(count), count FROM rollup_counts WHERE kind = 0 AND key = 'Home' AND app_version = '2.0'"
        ).rows { ($0.text(at: 0), $0.int64(at: 1)) }
        #expect(homeViews.count == 2)
        #expect(homeViews.allSatisfy { $0 == ("integer", Int64.max) }, "\(homeViews)")
        let dwellTypes = try database.prepare(
            "SELECT DISTINCT typeof(count), typeof(total) FROM rollup_dwell"
        )
        .rows { [$0.text(at: 0), $0.text(at: 1)] }
        #expect(dwellTypes.allSatisfy { $0[0] == "integer" }, "\(dwellTypes)")

        for path in Self.reportPaths {
            let response = try fixture.get(path, token: fixture.access.readToken)
            #expect(response.status == 200, "\(path): \(response.status) \(response.text.prefix(300))")
            if response.status == 200 {
                EveryReport.expectSane(try JSONParser().parse(response.body), at: path)
            }
        }
        let traffic = try fixture.json("/v1/reports/traffic?\(Self.range)")
        #expect(traffic["pageViews"] == .int(Int64.max))
        #expect(traffic["events"] == .int(Int64.max))

        let browser = try DashboardTests.signIn(fixture)
        for path in Self.dashboardPaths {
            let response = try browser.get(path)
            #expect(response.status == 200, "\(path): \(response.status) \(response.text.prefix(300))")
        }
        #expect(try browser.get("/?\(Self.range)").text.contains(Int.max.grouped))

        // In process, through the rollups (whole days) and through the events (a range that
        // starts inside a day).
        let service = ReportService(stores: server.stores)
        var parameters = try ReportParameters(
            query: ["from": "2026-11-01", "to": "2026-11-03"], now: ReportFixture.now)
        let rollups = try EveryReport.run(
            service, project: project, parameters: parameters, pages: ["Home", "Detail"],
            events: ["$element_click", "$screen_leave"])
        #expect(!rollups.isEmpty)
        parameters.filter.from = parameters.filter.from?.adding(milliseconds: 1)
        let engine = try EveryReport.run(
            service, project: project, parameters: parameters, pages: ["Home", "Detail"],
            events: ["$element_click", "$screen_leave"])
        let home = engine.first { $0.0 == "traffic" }?.1["pages"]?.arrayValue?.first { $0["page"] == "Home" }
        #expect(home?["averageDwellMilliseconds"]?.int64Value ?? 0 > 0)
    }
}
