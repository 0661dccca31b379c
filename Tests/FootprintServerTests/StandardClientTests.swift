import Footprint
import FootprintSQLite
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct StandardClientTests {
    /// Builds an SDK-shaped `/v1/batch` request: gzip, Basic auth, `sentAt`, evicted count.
    func batchRequest(_ messages: [Message], fixture: TestServer, sentAt: Timestamp, evicted: Int)
        -> HTTPRequest
    {
        var body: JSONObject = [
            "batch": .array(messages.map(\.json)), "sentAt": .string(sentAt.iso8601),
        ]
        if evicted > 0 { body["context"] = ["footprint": ["evicted": .int(Int64(evicted))]] }
        return HTTPRequest(
            method: "POST", url: fixture.server.baseURL + "/v1/batch",
            headers: [
                "Authorization": LoopbackClient.basic(fixture.writeKey), "Content-Type": "application/json",
                "Content-Encoding": "gzip",
            ],
            body: Gzip.compress(JSONWriter.bytes(.object(body))))
    }

    @Test func sdkShapedBatchesOverURLSessionAreStoredOnceAndReported() async throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let transport = URLSessionTestTransport()
        // The device clock is an hour behind the server's.
        let deviceNow = Timestamp(
            millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000)
        let context: JSONObject = [
            "sessionId": "s-1", "app": ["version": "1.2.0"], "os": ["name": "iOS", "version": "18.1"],
        ]
        let messages = [
            Message(
                type: .screen, messageId: UUIDv7.make(at: deviceNow), anonymousId: "device-1", name: "Home",
                timestamp: deviceNow.adding(milliseconds: -5000), context: context,
                properties: ["$screen_class": "HomeViewController"]),
            Message(
                type: .track, messageId: UUIDv7.make(at: deviceNow), anonymousId: "device-1",
                event: "$screen_leave",
                timestamp: deviceNow.adding(milliseconds: -1000), context: context,
                properties: [
                    "$page_name": "Home", "$screen_class": "HomeViewController", "duration_ms": 4000,
                ]),
            Message(
                type: .identify, messageId: UUIDv7.make(at: deviceNow), anonymousId: "device-1",
                userId: "user-9",
                timestamp: deviceNow, context: context, traits: ["plan": "pro"]),
        ]
        let request = batchRequest(messages, fixture: fixture, sentAt: deviceNow, evicted: 4)
        let first = try await transport.send(request)
        #expect(first.status == 200)
        let answer = try JSONParser().parse(first.body)
        #expect(answer["stored"] == 3)
        let resent = try await transport.send(request)
        #expect(resent.status == 200)
        #expect(try JSONParser().parse(resent.body)["duplicates"] == 3)

        let report = try fixture.server.report(project: "default")
        #expect(report.totalEvents == 3)
        #expect(report.lostEvents == 4)
        #expect(
            report.pages == [
                PageStatistics(
                    page: "Home", pageViews: 1, uniqueVisitors: 1, averageDwellMilliseconds: 4000,
                    dwellSamples: 1)
            ])
        // Skew-corrected: the screen view is stored about 5 s before the server received it, by
        // the server's clock, not an hour earlier.
        var options = SQLiteDatabase.Options()
        options.readOnly = true
        let database = try SQLiteDatabase(path: fixture.directory + "/events.sqlite", options: options)
        let times = try database.prepare(
            "SELECT time, \(SQLiteSchema.receivedAt) FROM events WHERE type = 'screen'"
        ).rows {
            ($0.int64(at: 0), $0.int64(at: 1))
        }
        let (time, receivedAt) = try #require(times.first)
        #expect(abs(receivedAt - 5000 - time) < 1000)
    }

    @Test func remoteConfigOverURLSessionHonoursTheETag() async throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let published = try fixture.server.stores.metadata.publishConfig(
            document: Array(#"{"version": 1, "pageMode": "all"}"#.utf8), projectId: fixture.projectId,
            at: Timestamp(millisecondsSince1970: 0))
        let transport = URLSessionTestTransport()
        let auth = ["Authorization": LoopbackClient.basic(fixture.writeKey)]
        let fetched = try await transport.send(
            HTTPRequest(method: "GET", url: fixture.server.baseURL + "/v1/config", headers: auth))
        #expect(fetched.status == 200)
        #expect(fetched.headers["etag"] == published.etag)
        var conditional = auth
        conditional["If-None-Match"] = published.etag
        let unchanged = try await transport.send(
            HTTPRequest(method: "GET", url: fixture.server.baseURL + "/v1/config", headers: conditional))
        #expect(unchanged.status == 304)
    }
}
