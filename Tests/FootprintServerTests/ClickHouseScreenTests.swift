import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The live connect view and plan health on ClickHouse: a connect session's device clicks and
/// each app version's newest `$plan_health` report, read from the events in ClickHouse, equal
/// what the SQLite store gives for the same writes (but for the event sequence numbers, which
/// are the store's own).
@Suite(.serialized, .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHouseScreenTests {
    static let day: Int64 = 86_400_000
    static let start = Timestamp(iso8601: "2026-11-03T12:00:00.000Z")!

    static func event(
        _ id: String, anonymousId: String, name: String, at time: Timestamp, version: String? = "2.0",
        path: String? = nil, text: String? = nil, properties: String = "{}"
    ) -> EventRecord {
        EventRecord(
            messageId: id, type: .track, name: name, time: time, clientTimestamp: time, sentAt: nil,
            receivedAt: time, anonymousId: anonymousId, userId: nil, sessionId: "s-\(anonymousId)",
            page: path == nil ? "Home" : "List", elementPath: path, appVersion: version, os: "iOS 17.2",
            payload: #"{"type":"track","event":"\#(name)","properties":\#(properties)}"#,
            similarPath: path.map { _ in "#didSelectRow#Cell[0:*]#List" }, elementText: text)
    }

    static func click(_ id: String, anonymousId: String, row: Int, at time: Timestamp) -> EventRecord {
        event(
            id, anonymousId: anonymousId, name: "$element_click", at: time,
            path: "#didSelectRow#Cell[0:\(row)]#List", text: "Row \(row)")
    }

    static func health(_ id: String, version: String?, at time: Timestamp, status: String) -> EventRecord {
        event(
            id, anonymousId: "device-9", name: PlanHealthReport.eventName, at: time, version: version,
            properties: #"{"plan_version":3,"entries":[{"id":"buy","status":"\#(status)"}]}"#)
    }

    /// The writes, in order, in batches: clicks before the session starts, the session and its
    /// two devices' snapshots, then clicks of those devices and of another, events that are no
    /// clicks, and plan health reports of several app versions (one too old to count).
    static let before: [[EventRecord]] = [
        [click("early-1", anonymousId: "device-1", row: 1, at: start.adding(milliseconds: -60_000))]
    ]
    static let after: [[EventRecord]] = [
        [
            click("c1", anonymousId: "device-1", row: 1, at: start.adding(milliseconds: 1_000)),
            click("c2", anonymousId: "device-3", row: 2, at: start.adding(milliseconds: 2_000)),
            click("c3", anonymousId: "device-2", row: 3, at: start.adding(milliseconds: 3_000)),
        ],
        [
            event(
                "t1", anonymousId: "device-1", name: "Product Viewed", at: start.adding(milliseconds: 4_000)),
            event(
                "t2", anonymousId: "device-1", name: "$element_click", at: start.adding(milliseconds: 5_000)),
            click("c4", anonymousId: "device-2", row: 1, at: start.adding(milliseconds: -9_000)),
            click("c5", anonymousId: "device-1", row: 2, at: start.adding(milliseconds: 6_000)),
        ],
        [
            health("h1", version: "2.0", at: start.adding(milliseconds: -2 * day), status: "missing_class"),
            health("h2", version: "2.0", at: start.adding(milliseconds: -day), status: "applied"),
            health("h3", version: "2.1", at: start.adding(milliseconds: -3 * day), status: "applied"),
            health(
                "h4", version: "2.1", at: start.adding(milliseconds: -3 * day), status: "missing_selector"),
            health("h5", version: nil, at: start.adding(milliseconds: -3 * day), status: "refused_selector"),
            health("h6", version: "1.0", at: start.adding(milliseconds: -401 * day), status: "applied"),
            health("h7", version: "1.9", at: start.adding(milliseconds: -400 * day), status: "applied"),
        ],
        [click("c6", anonymousId: "device-2", row: 2, at: start.adding(milliseconds: 7_000))],
    ]

    /// What both stores answer for the writes.
    struct Answers: Equatable {
        var pages: [[DeviceClick]]
        var everything: [DeviceClick]
        var live: LiveConnect
        var health: [PlanHealthReport]
        var planHealth: PlanHealth
    }

    /// Writes the data to `store` and reads the session's clicks 2 at a time, the live view and
    /// plan health, with the sequences set to 0 (each store numbers its events its own way).
    static func answers(_ stores: Stores, _ project: Project) throws -> Answers {
        for events in before {
            _ = try stores.events.write(IngestBatch(projectId: project.id, events: events, receivedAt: start))
        }
        let session = try stores.startConnectSession(
            projectId: project.id, tokenHash: SecretHash(of: "token-\(project.id)"), hint: "abcd", now: start,
            lifetimeSeconds: 600, limits: ConnectSession.Limits())
        for device in ["device-1", "device-2"] {
            var record = SnapshotSamples.record(
                projectId: project.id, sessionId: session.id, id: "snapshot-\(device)", at: start)
            record.anonymousId = device
            _ = try stores.metadata.storeSnapshot(record, retention: SnapshotRetention())
        }
        for events in after {
            _ = try stores.events.write(IngestBatch(projectId: project.id, events: events, receivedAt: start))
        }
        var pages: [[DeviceClick]] = []
        var cursor: Int64 = 0
        while pages.count < 20 {
            let page = try stores.deviceClicks(
                projectId: project.id, session: session, after: cursor, limit: 2)
            #expect(page.cursor >= cursor)
            if page.cursor == cursor { break }
            #expect(page.clicks.allSatisfy { $0.sequence > cursor && $0.sequence <= page.cursor })
            cursor = page.cursor
            pages.append(page.clicks)
        }
        let everything = try stores.deviceClicks(
            projectId: project.id, session: session, after: 0, limit: 100)
        #expect(everything.clicks.map(\.sequence) == pages.joined().map(\.sequence))
        let service = ScreenService(stores: stores)
        var live = try #require(
            try service.live(
                project: project, connectSessionId: session.id, afterSnapshot: 0, afterEvent: 0, limit: 100))
        #expect(live.eventCursor == everything.cursor)
        live.session.firstEventSequence = 0
        live.eventCursor = 0
        live.clicks = live.clicks.map(withoutSequence)
        var parameters = try ReportParameters(query: [:], now: start)
        parameters.filter = ReportFilter(
            from: start.adding(milliseconds: -500 * day), to: start.adding(milliseconds: day))
        return Answers(
            pages: pages.map { $0.map(withoutSequence) }, everything: everything.clicks.map(withoutSequence),
            live: live, health: try stores.events.planHealthReports(projectId: project.id, limit: 20),
            planHealth: try service.planHealth(project: project, parameters: parameters))
    }

    static func withoutSequence(_ click: DeviceClick) -> DeviceClick {
        var click = click
        click.sequence = 0
        return click
    }

    @Test func deviceClicksAndPlanHealthEqualSQLites() throws {
        try withTemporaryStore("footprint-screens") { sqlite, sqliteProject in
            let expected = try Self.answers(Stores(sqlite), sqliteProject)
            // The data holds what each rule leaves out, and it is left out.
            #expect(expected.everything.map(\.text) == ["Row 1", "Row 3", "Row 1", "Row 2", "Row 2"])
            #expect(Set(expected.everything.map(\.anonymousId)) == ["device-1", "device-2"])
            #expect(expected.pages.map(\.count) == [2, 2, 1])
            #expect(expected.health.map(\.appVersion) == ["2.0", "2.1", "", "1.9"])
            #expect(expected.health.first?.entries.first?.status == "applied")
            try ClickHouseTesting.withStore(configure: { $0.liveClickSettle = 0 }) { store, project throws in
                let answers = try Self.answers(store.stores, project)
                #expect(answers.pages == expected.pages)
                #expect(answers.everything == expected.everything)
                #expect(answers.live == expected.live)
                #expect(answers.health == expected.health)
                #expect(answers.planHealth == expected.planHealth)
                #expect(answers.planHealth.jsonValue == expected.planHealth.jsonValue)
            }
        }
    }

    /// The data written to a ClickHouse store whose live view stays `settle` seconds behind, its
    /// connect session, and the session's clicks read from the start.
    static func withWrittenStore(
        settle: Double, _ body: (ClickHouseEventStore, Project, ConnectSession, DeviceClicks) throws -> Void
    ) throws {
        try ClickHouseTesting.withStore(configure: { $0.liveClickSettle = settle }) { store, project throws in
            _ = try answers(store.stores, project)
            let session = try #require(try store.metadata.connectSessions(projectId: project.id).first)
            let clicks = try store.stores.deviceClicks(
                projectId: project.id, session: session, after: 0, limit: 100)
            try body(store, project, session, clicks)
        }
    }

    @Test func aClickWrittenAfterTheCursorComesOnTheNextCallAndANewSessionStartsAfterIt() throws {
        try Self.withWrittenStore(settle: 0) { store, project, session, done in
            let late = Self.click(
                "c7", anonymousId: "device-1", row: 4, at: Self.start.adding(milliseconds: 8_000))
            _ = try store.write(IngestBatch(projectId: project.id, events: [late], receivedAt: Self.start))
            let next = try store.stores.deviceClicks(
                projectId: project.id, session: session, after: done.cursor, limit: 100)
            #expect(next.clicks.map(\.path) == [late.elementPath])
            #expect(next.cursor > done.cursor)

            // A session started now begins after every stored event.
            _ = try store.metadata.endConnectSession(id: session.id, projectId: project.id, at: Self.start)
            let second = try store.stores.startConnectSession(
                projectId: project.id, tokenHash: SecretHash(of: "second"), hint: "efgh", now: Self.start,
                lifetimeSeconds: 600, limits: ConnectSession.Limits())
            #expect(second.firstEventSequence == next.cursor)
            var record = SnapshotSamples.record(projectId: project.id, sessionId: second.id, at: Self.start)
            record.anonymousId = "device-1"
            _ = try store.metadata.storeSnapshot(record, retention: SnapshotRetention())
            let fresh = try store.stores.deviceClicks(
                projectId: project.id, session: second, after: 0, limit: 100)
            #expect(fresh.clicks.isEmpty)
            #expect(fresh.cursor == second.firstEventSequence)
        }
    }

    @Test func clicksNewerThanTheSettleTimeWaitForALaterCall() throws {
        try Self.withWrittenStore(settle: 3_600) { _, _, session, page in
            #expect(page.clicks.isEmpty)
            #expect(page.cursor == session.firstEventSequence)
        }
    }

    @Test func aServerOnClickHouseShowsTheSessionsTapsAndPlanHealth() throws {
        let server = try TestServer { configuration in
            configuration.clickHouse = try? ClickHouseTesting.newLocation()
            configuration.clickHouseStore.liveClickSettle = 0
            configuration.http.clock = FixedClock(time: Self.start)
        }
        let store = try #require(server.server.stores.events as? ClickHouseEventStore)
        defer {
            try? store.dropDatabase()
            server.shutDown()
        }
        let admin = ["Authorization": "Bearer \(server.server.access.adminToken)"]
        let read = ["Authorization": "Bearer \(server.server.access.readToken)"]
        func send(_ messages: [String]) throws {
            let response = try server.client.post(
                "/v1/batch", json: Payloads.batch(messages, sentAt: "2026-11-03T12:00:00.000Z"),
                writeKey: server.writeKey)
            try #require(response.status == 200, "\(response.text)")
        }
        try send([
            ScreenQueriesTests.click("before", anon: "device-1", at: "2026-11-03T11:58:00.000Z", row: 1)
        ])
        let started = try server.client.send("POST", "/v1/connect-sessions", headers: admin)
        try #require(started.status == 201, "\(started.text)")
        let json = try JSONParser().parse(started.body)
        let id = try #require(json["session"]?["id"]?.int64Value)
        let token = try #require(json["token"]?.stringValue)
        let upload = try server.client.send(
            "POST", "/v1/snapshots", headers: ["Authorization": LoopbackClient.basic(server.writeKey)],
            body: SnapshotSamples.snapshot(token: token, anonymousId: "device-1").jsonBytes)
        try #require(upload.status == 201, "\(upload.text)")
        try send([
            ScreenQueriesTests.click("tap", anon: "device-1", at: "2026-11-03T11:59:20.000Z", row: 3),
            ScreenQueriesTests.event(
                "health", anon: "device-1", at: "2026-11-03T11:59:21.000Z",
                extra:
                    #""event":"$plan_health","properties":{"plan_version":1,"entries":[{"id":"buy","status":"missing_class"}]}"#
            ),
        ])

        let live = try server.client.send("GET", "/v1/connect-sessions/\(id)/live", headers: read)
        #expect(live.status == 200, "\(live.text)")
        let clicks = try JSONParser().parse(live.body)["clicks"]?.arrayValue ?? []
        #expect(clicks.map { $0["path"]?.stringValue ?? "" } == ["#didSelectRow#Cell[0:3]#List"])
        let health = try server.client.send(
            "GET", "/v1/plan-health?from=2026-11-01&to=2026-11-04", headers: read)
        #expect(health.status == 200, "\(health.text)")
        #expect(health.text.contains("missing_class"), "\(health.text)")
    }
}
