import FootprintServer
import FootprintWire
import Foundation
import Testing

/// What the Screens page, the live connect view and the config page read, over real HTTP: per
/// element figures from the rollups, a session's device live, and plan health.
@Suite struct ScreenQueriesTests {
    let fixture: ReportFixture
    var admin: [String: String] { ["Authorization": "Bearer \(fixture.access.adminToken)"] }

    init() throws {
        fixture = try ReportFixture()
    }

    /// One more event as the fixture sends them (app version `version`).
    static func event(
        _ id: String, anon: String, at time: String, version: String = "2.0", extra: String
    ) -> String {
        """
        {"type":"track","messageId":"\(id)","anonymousId":"\(anon)","timestamp":"\(time)",\
        "context":{"sessionId":"s-\(anon)","app":{"version":"\(version)"},"os":{"name":"iOS","version":"17.2"}},\(extra)}
        """
    }

    static func click(
        _ id: String, anon: String, at time: String, row: Int, version: String = "2.0", name: String? = nil
    ) -> String {
        let named = name.map { #","$event_name":"\#($0)","$event_id":"\#($0.lowercased())""# } ?? ""
        return event(
            id, anon: anon, at: time, version: version,
            extra:
                ##""event":"$element_click","properties":{"$page_name":"List","$element_path":"#didSelectRow#Cell[0:\##(row)]#List","$element_similar_path":"#didSelectRow#Cell[0:*]#List"\##(named)}"##
        )
    }

    func send(_ messages: [String]) throws {
        let response = try fixture.client.post(
            "/v1/batch", json: Payloads.batch(messages, sentAt: "2026-11-03T12:00:00.000Z"),
            writeKey: fixture.fixture.writeKey)
        try #require(response.status == 200 && !response.text.contains("\"rejected\":[{"), "\(response.text)")
    }

    func startSession() throws -> (id: Int64, token: String) {
        let response = try fixture.client.send("POST", "/v1/connect-sessions", headers: admin)
        try #require(response.status == 201, "\(response.text)")
        let json = try JSONParser().parse(response.body)
        return (try #require(json["session"]?["id"]?.int64Value), try #require(json["token"]?.stringValue))
    }

    func upload(_ snapshot: ScreenSnapshot) throws -> Int64 {
        let response = try fixture.client.send(
            "POST", "/v1/snapshots",
            headers: ["Authorization": LoopbackClient.basic(fixture.fixture.writeKey)],
            body: snapshot.jsonBytes)
        try #require(response.status == 201, "\(response.text)")
        return try #require(try JSONParser().parse(response.body)["id"]?.int64Value)
    }

    @Test func eachElementsClicksAndPeopleAreTheElementsReportsForItsPaths() throws {
        defer { fixture.shutDown() }
        try send([
            Self.click("c1", anon: "a1", at: "2026-11-01T10:05:00.000Z", row: 1),
            Self.click("c2", anon: "a3", at: "2026-11-02T11:05:00.000Z", row: 1),
            Self.click("c3", anon: "a3", at: "2026-11-02T11:06:00.000Z", row: 2),
            Self.click("c4", anon: "a3", at: "2026-11-02T11:07:00.000Z", row: 2),
            Self.click("c5", anon: "a2", at: "2026-11-02T11:08:00.000Z", row: 2, version: "2.1"),
        ])
        let session = try startSession()
        let elements = [
            SnapshotSamples.buy, SnapshotSamples.row(1), SnapshotSamples.row(2), SnapshotSamples.row(3),
        ]
        let id = try upload(SnapshotSamples.snapshot(token: session.token, elements: elements))

        for filters in ["", "&app_version=2.0", "&page=List"] {
            let range = ReportFixture.range + filters
            let figures =
                try fixture.json("/v1/snapshots/\(id)/elements?\(range)")["elements"]?.arrayValue ?? []
            #expect(figures.count == 4)
            var report: [String: [String: (Int64, Int64)]] = [:]
            for grouping in ["exact", "similar"] {
                let rows =
                    try fixture.json("/v1/reports/elements?\(range)&grouping=\(grouping)&limit=1000")
                    .arrayValue ?? []
                report[grouping] = Dictionary(
                    uniqueKeysWithValues: rows.map {
                        (
                            $0["path"]?.stringValue ?? "",
                            ($0["clicks"]?.int64Value ?? -1, $0["uniqueVisitors"]?.int64Value ?? -1)
                        )
                    })
            }
            for (index, element) in elements.enumerated() {
                let figure = try #require(figures.first { $0["index"]?.int64Value == Int64(index) })
                #expect(figure["path"] == .string(element.path))
                let exact = report["exact"]?[element.path] ?? (0, 0)
                let similar = report["similar"]?[element.similarPath] ?? (0, 0)
                #expect(figure["clicks"]?.int64Value == exact.0, "\(filters) \(element.path)")
                #expect(figure["people"]?.int64Value == exact.1, "\(filters) \(element.path)")
                #expect(figure["similarClicks"]?.int64Value == similar.0, "\(filters) \(element.similarPath)")
                #expect(figure["similarPeople"]?.int64Value == similar.1, "\(filters) \(element.similarPath)")
            }
            if filters.isEmpty {
                // The figures themselves: row 2 has 3 clicks by 2 people; every row together 5 by 3
                // (a1 is u1; a2's click carries no user id and a2 was never linked); the buy
                // button the fixture's one click; row 3 none.
                #expect(figures.map { $0["clicks"]?.int64Value ?? -1 } == [1, 2, 3, 0])
                #expect(figures.map { $0["similarClicks"]?.int64Value ?? -1 } == [1, 5, 5, 5])
                #expect(
                    figures[2]["people"]?.int64Value == 2 && figures[1]["similarPeople"]?.int64Value == 3,
                    "\(figures)")
            }
        }
    }

    @Test func theLiveViewFollowsTheSessionsDeviceFromItsStart() throws {
        defer { fixture.shutDown() }
        let session = try startSession()
        // Before the session: the fixture's click by a1. During it: device-1's and another device's.
        try send([
            Self.click("l1", anon: "device-1", at: "2026-11-03T11:59:10.000Z", row: 1),
            Self.click("l2", anon: "device-9", at: "2026-11-03T11:59:11.000Z", row: 2),
        ])
        let path = "/v1/connect-sessions/\(session.id)/live"
        // Until the device's first snapshot names it, nothing is shown and the cursor stays.
        let empty = try fixture.json(path)
        #expect(empty["clicks"] == .array([]) && empty["snapshots"] == .array([]))
        let start = try #require(empty["cursor"]?["event"]?.int64Value)

        let snapshotId = try upload(SnapshotSamples.snapshot(token: session.token, anonymousId: "device-1"))
        try send([Self.click("l3", anon: "device-1", at: "2026-11-03T11:59:20.000Z", row: 3)])
        let first = try fixture.json("\(path)?after_event=\(start)")
        #expect(first["session"]?["state"] == "open")
        #expect(first["snapshots"]?.arrayValue?.map { $0["id"]?.int64Value ?? 0 } == [snapshotId])
        let paths = first["clicks"]?.arrayValue?.map { $0["path"]?.stringValue ?? "" }
        #expect(paths == ["#didSelectRow#Cell[0:1]#List", "#didSelectRow#Cell[0:3]#List"])
        #expect(first["clicks"]?.arrayValue?.allSatisfy { $0["anonymousId"] == "device-1" } == true)

        // From the cursors on, only what is new.
        let snapshotCursor = try #require(first["cursor"]?["snapshot"]?.int64Value)
        let eventCursor = try #require(first["cursor"]?["event"]?.int64Value)
        let next = "\(path)?after_snapshot=\(snapshotCursor)&after_event=\(eventCursor)"
        let quiet = try fixture.json(next)
        #expect(quiet["clicks"] == .array([]) && quiet["snapshots"] == .array([]))
        #expect(quiet["cursor"]?["event"]?.int64Value == eventCursor)
        try send([Self.click("l4", anon: "device-1", at: "2026-11-03T11:59:30.000Z", row: 4)])
        let later = try fixture.json(next)
        #expect(
            later["clicks"]?.arrayValue?.map { $0["sequence"]?.int64Value ?? 0 }.allSatisfy {
                $0 > eventCursor
            } == true)
        #expect(later["clicks"]?.arrayValue?.count == 1)
        // A page of one at a time walks the same clicks.
        let paged = try fixture.json("\(path)?after_event=\(start)&limit=1")
        #expect(paged["clicks"]?.arrayValue?.count == 1)
        #expect(paged["cursor"]?["event"] == paged["clicks"]?[0]?["sequence"])
        #expect(
            try fixture.get("/v1/connect-sessions/999/live", token: fixture.access.readToken).status == 404)
    }

    @Test func planHealthShowsEachEntryPerAppVersionWithWhatItMatched() throws {
        defer { fixture.shutDown() }
        let plan = """
            {"version": 1, "events": [
              {"id": "buy", "name": "Buy", "triggers": [{"path": "#didSelectRow#Cell[0:*]#List", "match": "similar"}]},
              {"id": "share", "name": "Share", "triggers": [{"target": "ArticleViewController", "method": "goShare"}]},
              {"id": "gone", "name": "Gone", "triggers": [{"target": "OldViewController", "method": "gone"}]}]}
            """
        let published = try fixture.client.send("POST", "/v1/configs", headers: admin, body: Array(plan.utf8))
        try #require(published.status == 200, "\(published.text)")
        func health(_ id: String, at time: String, version: String, planVersion: Int, entries: String)
            -> String
        {
            Self.event(
                id, anon: "h-\(version)", at: time, version: version,
                extra:
                    #""event":"$plan_health","properties":{"plan_version":\#(planVersion),"entries":[\#(entries)]}"#
            )
        }
        try send([
            health(
                "h1", at: "2026-11-01T09:00:00.000Z", version: "2.0", planVersion: 1,
                entries: #"{"id":"buy","status":"missing_class","reason":"old"}"#),
            health(
                "h0", at: "2026-11-02T09:59:59.999Z", version: "2.0", planVersion: 1,
                entries: #"{"id":"buy","status":"refused_selector"}"#),
            health(
                "h2", at: "2026-11-02T10:00:00.000Z", version: "2.0", planVersion: 1,
                entries: #"""
                    {"id":"buy","status":"applied"},
                    {"id":"share","status":"missing_selector","reason":"ArticleViewController has no goShare"},
                    {"id":"legacy","status":"applied"},{"status":"applied"}
                    """#),
            health(
                "h3", at: "2026-11-02T12:00:00.000Z", version: "2.1", planVersion: 1,
                entries: #"{"id":"buy","status":"applied"},{"id":"share","status":"applied"}"#),
            Self.click("p1", anon: "a1", at: "2026-11-01T10:05:00.000Z", row: 1, name: "Buy"),
            Self.click("p2", anon: "a3", at: "2026-11-02T11:05:00.000Z", row: 2, name: "Buy"),
            Self.click("p3", anon: "a2", at: "2026-11-02T11:06:00.000Z", row: 2, version: "2.1", name: "Buy"),
            Self.click("p4", anon: "a2", at: "2026-11-02T11:07:00.000Z", row: 3, version: "2.1"),
            Self.event(
                "p5", anon: "a2", at: "2026-11-02T11:08:00.000Z", version: "2.1", extra: #""event":"Share""#),
            Self.event(
                "p6", anon: "a3", at: "2026-11-02T11:09:00.000Z", version: "2.1", extra: #""event":"Share""#),
        ])
        let table = try fixture.json("/v1/plan-health?\(ReportFixture.range)")
        #expect(table["appVersions"] == ["2.1", "2.0"])
        let entries = table["entries"]?.arrayValue ?? []
        #expect(entries.map { $0["id"]?.stringValue ?? "" } == ["buy", "share", "gone", "legacy"])
        func cell(_ entry: Int, _ version: Int) -> (String, Int64, String?) {
            let value = entries[entry]["versions"]?[version]
            return (
                value?["status"]?.stringValue ?? "", value?["matched"]?.int64Value ?? -1,
                value?["reason"]?.stringValue
            )
        }
        // 2.1 first, then 2.0 (its newest report, not the older ones of that day and the day before).
        #expect(cell(0, 0) == ("applied", 1, nil) && cell(0, 1) == ("applied", 2, nil))
        #expect(cell(1, 0) == ("applied", 2, nil))
        #expect(cell(1, 1) == ("missing_selector", 0, "ArticleViewController has no goShare"))
        #expect(cell(2, 0) == ("not_reported", 0, nil) && cell(2, 1) == ("not_reported", 0, nil))
        #expect(
            entries[3]["inPlan"] == false && cell(3, 1) == ("applied", 0, nil)
                && cell(3, 0).0 == "not_reported")
        // A narrower range counts less, and the reports stay the newest ones.
        let secondDay = try fixture.json("/v1/plan-health?from=2026-11-02&to=2026-11-02")
        #expect(secondDay["entries"]?[0]?["versions"]?[1]?["matched"]?.int64Value == 1)
    }
}
