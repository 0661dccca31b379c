import Dispatch
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The server over a real loopback socket.
struct HTTPIngestTests {
    @Test func batchIsStoredOnceAndAResendStoresNothingTwice() throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let body = Payloads.batch([Payloads.track("m-1"), Payloads.track("m-2"), Payloads.track("m-3")])
        let first = try fixture.client.post("/v1/batch", json: body, writeKey: fixture.writeKey)
        #expect(first.status == 200)
        let answer = try JSONParser().parse(first.body)
        #expect(answer["accepted"] == 3)
        #expect(answer["stored"] == 3)
        let again = try fixture.client.post("/v1/batch", json: body, writeKey: fixture.writeKey)
        #expect(again.status == 200)
        #expect(try JSONParser().parse(again.body)["duplicates"] == 3)
        #expect(try fixture.storedCount() == 3)
    }

    @Test func gzipBodiesAreInflated() throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let body = Gzip.compress(Array(Payloads.batch((0..<100).map { Payloads.track("g-\($0)") }).utf8))
        let response = try fixture.client.send(
            "POST", "/v1/batch",
            headers: ["Authorization": LoopbackClient.basic(fixture.writeKey), "Content-Encoding": "gzip"],
            body: body)
        #expect(response.status == 200)
        #expect(try fixture.storedCount() == 100)
    }

    @Test(arguments: [
        (
            "/v1/track",
            #"{"userId":"019mr8mf4r","event":"Item Purchased","properties":{"name":"Leap to Conclusions Mat","revenue":14.99},"context":{"ip":"24.5.68.47"},"timestamp":"2012-12-02T00:30:12.984Z"}"#
        ),
        (
            "/v1/identify",
            #"{"userId":"019mr8mf4r","traits":{"email":"pgibbons@example.com","name":"Peter Gibbons","industry":"Technology"},"context":{"ip":"24.5.68.47"},"timestamp":"2012-12-02T00:30:08.276Z"}"#
        ),
        (
            "/v1/page",
            #"{"userId":"019mr8mf4r","name":"Tracking HTTP API","timestamp":"2012-12-02T00:31:29.738Z"}"#
        ),
        ("/v1/screen", #"{"userId":"019mr8mf4r","name":"Home","timestamp":"2012-12-02T00:31:29.738Z"}"#),
        (
            "/v1/alias",
            #"{"previousId":"39239-239239-239239-23923","userId":"019mr8mf4r","timestamp":"2012-12-02T00:30:08.276Z"}"#
        ),
        (
            "/v1/group",
            #"{"userId":"019mr8mf4r","groupId":"8e9df332ac","traits":{"name":"Initech","employees":329},"timestamp":"2012-12-02T00:30:08.276Z"}"#
        ),
    ])
    func segmentSingleMessageExamplesAreAccepted(_ path: String, _ body: String) throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let response = try fixture.client.post(path, json: body, writeKey: fixture.writeKey)
        #expect(response.status == 200, "\(response.text)")
        #expect(try JSONParser().parse(response.body)["accepted"] == 1)
        #expect(try fixture.storedCount() == 1)
    }

    @Test func writeKeyMayBeInTheBody() throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let body = Payloads.batch([Payloads.track("b-1")], extra: ",\"writeKey\":\"\(fixture.writeKey)\"")
        #expect(try fixture.client.post("/v1/batch", json: body, writeKey: nil).status == 200)
        #expect(try fixture.storedCount() == 1)
    }

    @Test func missingOrUnknownKeysGet401AndStoreNothing() throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let body = Payloads.batch([Payloads.track("k-1")])
        let missing = try fixture.client.post("/v1/batch", json: body, writeKey: nil)
        #expect(missing.status == 401)
        #expect(missing.text.contains("missing_write_key"))
        #expect(try fixture.client.post("/v1/batch", json: body, writeKey: "fp_wrong").status == 401)
        let wrongInBody = Payloads.batch([Payloads.track("k-1")], extra: ",\"writeKey\":\"fp_wrong\"")
        #expect(try fixture.client.post("/v1/batch", json: wrongInBody, writeKey: nil).status == 401)
        #expect(try fixture.storedCount() == 0)
    }

    /// The write key sent as the HTTP Basic password (the user empty), as some clients do: a
    /// 401 whose message says where the key goes, on every endpoint that takes a write key.
    @Test(arguments: [
        ("POST", "/v1/batch", true), ("POST", "/v1/track", true), ("GET", "/v1/config", false),
        ("POST", "/v1/snapshots", false),
    ])
    func aKeySentAsTheBasicPasswordIsToldWhereTheKeyGoes(
        _ method: String, _ path: String, _ bodyKeyAccepted: Bool
    ) throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let password = "Basic " + Data(":\(fixture.writeKey)".utf8).base64EncodedString()
        let body = path == "/v1/batch" ? Payloads.batch([Payloads.track("p-1")]) : Payloads.track("p-1")
        let response = try fixture.client.send(
            method, path, headers: ["Authorization": password, "Content-Type": "application/json"],
            body: method == "POST" ? Array(body.utf8) : [])
        #expect(response.status == 401, "\(response.text)")
        let answer = try JSONParser().parse(response.body)
        #expect(answer["error"] == "missing_write_key")
        let message = try #require(answer["message"]?.stringValue)
        for place in ["password", "HTTP Basic user", "Authorization: Bearer KEY"] {
            #expect(message.contains(place), "\(path): \(message) lacks \(place)")
        }
        #expect(message.contains("\"writeKey\" in the body") == bodyKeyAccepted, "\(path): \(message)")
        #expect(try fixture.storedCount() == 0)
    }

    @Test(arguments: [
        ("truncated JSON", Array(#"{"batch":[{"type":"track","#.utf8)),
        ("empty body", []),
        (
            "invalid UTF-8",
            Array(#"{"batch":[{"type":"track","event":""#.utf8) + [0xC3, 0x28] + Array(#""}]}"#.utf8)
        ),
        ("not an object", Array("[1,2,3]".utf8)),
        ("batch not an array", Array(#"{"batch":{"type":"track"}}"#.utf8)),
    ])
    func unreadableBodiesGet400AndTheServerKeepsServing(_ name: String, _ body: [UInt8]) throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let response = try fixture.client.send(
            "POST", "/v1/batch", headers: ["Authorization": LoopbackClient.basic(fixture.writeKey)],
            body: body)
        #expect(response.status == 400, "\(name): \(response.text)")
        #expect(try JSONParser().parse(response.body)["message"]?.stringValue?.isEmpty == false)
        #expect(try fixture.client.send("GET", "/health").status == 200)
        #expect(try fixture.storedCount() == 0)
    }

    @Test func wrongTypesAndHugeStringsAreRejectedOneByOneBesideValidNeighbours() throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let huge = String(repeating: "é", count: 20_000)
        let body = Payloads.batch([
            Payloads.track("good-1"),
            #"{"type":"track","messageId":"bad-1","anonymousId":5.5,"event":"E"}"#,
            #"{"type":"track","messageId":"bad-2","anonymousId":"a","event":"E","properties":{"s":"\#(huge)"}}"#,
            #"{"type":"track","messageId":"bad-3","anonymousId":"a","event":["E"]}"#,
            Payloads.track("good-2"),
        ])
        let response = try fixture.client.post("/v1/batch", json: body, writeKey: fixture.writeKey)
        #expect(response.status == 200)
        let answer = try JSONParser().parse(response.body)
        #expect(answer["accepted"] == 2)
        let rejected = try #require(answer["rejected"]?.arrayValue)
        #expect(rejected.map { $0["messageId"] } == ["bad-1", "bad-2", "bad-3"])
        #expect(rejected.map { $0["index"] } == [1, 2, 3])
        #expect(rejected.allSatisfy { $0["reason"]?.stringValue?.isEmpty == false })
        #expect(try fixture.storedCount() == 2)
    }

    @Test func aTenMegabyteBodyGets413WithoutBeingRead() throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let body = [UInt8](repeating: UInt8(ascii: " "), count: 10 * 1024 * 1024)
        let response = try fixture.client.send(
            "POST", "/v1/batch", headers: ["Authorization": LoopbackClient.basic(fixture.writeKey)],
            body: body)
        #expect(response.status == 413)
        #expect(try fixture.client.send("GET", "/health").status == 200)
    }

    @Test func aBodyThatLiesAboutItsLengthIsCutOffAt413() throws {
        let fixture = try TestServer { $0.http.maximumBodyBytes = 64 * 1024 }
        defer { fixture.shutDown() }
        // Chunked: no Content-Length to refuse up front; the limit is enforced while reading.
        let connection = try fixture.client.connect()
        defer { close(connection) }
        var bytes = Array(
            "POST /v1/batch HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nAuthorization: \(LoopbackClient.basic(fixture.writeKey))\r\n\r\n"
                .utf8)
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 16 * 1024)
        for _ in 0..<8 { bytes += Array("4000\r\n".utf8) + chunk + Array("\r\n".utf8) }
        bytes += Array("0\r\n\r\n".utf8)
        try fixture.client.write(bytes, to: connection)
        #expect(try fixture.client.readResponse(from: connection).status == 413)
    }

    @Test func aGzipBombGets413() throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let bomb = Gzip.compress([UInt8](repeating: 0, count: 4 * 1024 * 1024), level: 9)
        let response = try fixture.client.send(
            "POST", "/v1/batch",
            headers: ["Authorization": LoopbackClient.basic(fixture.writeKey), "Content-Encoding": "gzip"],
            body: bomb)
        #expect(response.status == 413)
        #expect(response.text.contains("suspicious_compression"))
        let corrupt = try fixture.client.send(
            "POST", "/v1/batch",
            headers: ["Authorization": LoopbackClient.basic(fixture.writeKey), "Content-Encoding": "gzip"],
            body: Array("not gzip".utf8))
        #expect(corrupt.status == 400)
    }

    @Test func routingStatuses() throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        #expect(try fixture.client.send("GET", "/health").status == 200)
        #expect(try fixture.client.send("GET", "/v2/nothing").status == 404)
        let wrongMethod = try fixture.client.send("GET", "/v1/batch")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["allow"] == "POST")
        let brotli = try fixture.client.send(
            "POST", "/v1/batch",
            headers: ["Authorization": LoopbackClient.basic(fixture.writeKey), "Content-Encoding": "br"],
            body: [1])
        #expect(brotli.status == 415, "\(brotli.text)")
    }

    @Test func rateLimitGives429WithRetryAfter() throws {
        let fixture = try TestServer { $0.api.rateLimit = RateLimiter.Rate(requestsPerSecond: 0.1, burst: 2) }
        defer { fixture.shutDown() }
        let body = Payloads.batch([Payloads.track("r-1")])
        #expect(try fixture.client.post("/v1/batch", json: body, writeKey: fixture.writeKey).status == 200)
        #expect(try fixture.client.post("/v1/batch", json: body, writeKey: fixture.writeKey).status == 200)
        let limited = try fixture.client.post("/v1/batch", json: body, writeKey: fixture.writeKey)
        #expect(limited.status == 429)
        #expect(Int(limited.headers["retry-after"] ?? "") ?? 0 >= 1)
    }

    @Test func remoteConfigHasETagAnd304() throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let auth = ["Authorization": LoopbackClient.basic(fixture.writeKey)]
        #expect(try fixture.client.send("GET", "/v1/config").status == 401)
        #expect(try fixture.client.send("GET", "/v1/config", headers: auth).status == 404)
        let published = try fixture.server.stores.metadata.publishConfig(
            document: Array(#"{"version": 1, "pages": {"HomeViewController": {"name": "Home"}}}"#.utf8),
            projectId: fixture.projectId,
            at: Timestamp(millisecondsSince1970: 0))
        let response = try fixture.client.send("GET", "/v1/config", headers: auth)
        #expect(response.status == 200)
        #expect(response.headers["etag"] == published.etag)
        #expect(try JSONParser().parse(response.body)["pages"]?["HomeViewController"]?["name"] == "Home")
        var conditional = auth
        conditional["If-None-Match"] = published.etag
        let notModified = try fixture.client.send("GET", "/v1/config", headers: conditional)
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
    }

    @Test func aClientSendingOneByteAtATimeIsCutOffWhileOthersAreServed() throws {
        let fixture = try TestServer { $0.http.bodyDeadlineSeconds = 0.5 }
        defer { fixture.shutDown() }
        let connection = try fixture.client.connect()
        defer { close(connection) }
        let body = Array(Payloads.batch([Payloads.track("slow-1")]).utf8)
        try fixture.client.write(
            LoopbackClient.requestBytes(
                method: "POST", path: "/v1/batch",
                headers: [
                    "Authorization": LoopbackClient.basic(fixture.writeKey),
                    "Content-Length": "\(body.count)",
                ]),
            to: connection)
        let cutOffAfter = try fixture.client.trickle(body, on: connection, pause: 150_000) { () throws in
            #expect(try fixture.client.send("GET", "/health").status == 200)
        }
        // Cut off before the body was complete (about 4 bytes in on an idle machine; the whole
        // body would take 30 s): the deadline, not the machine's speed, ended it.
        let bytesSent = try #require(cutOffAfter)
        #expect(bytesSent < body.count)
        #expect(try fixture.storedCount() == 0)
    }

    @Test func aStalledClientIsDisconnected() throws {
        let fixture = try TestServer { $0.http.idleTimeoutSeconds = 1 }
        defer { fixture.shutDown() }
        let connection = try fixture.client.connect()
        defer { close(connection) }
        try fixture.client.write(Array("POST /v1/batch HTTP/1.1\r\nHost: x\r\n".utf8), to: connection)
        var byte: UInt8 = 0
        let received = recv(connection, &byte, 1, 0)
        let failure = errno
        // Closed by the server (end of stream or a reset), not by the client's own 20 s receive
        // timeout (EAGAIN), however long the machine took to get there.
        #expect(
            received == 0 || (received < 0 && failure == ECONNRESET), "recv \(received), errno \(failure)")
        #expect(try fixture.client.send("GET", "/health").status == 200)
    }

    @Test func stopIsGracefulAndIdempotent() throws {
        let fixture = try TestServer()
        let port = fixture.server.port
        #expect(
            try fixture.client.post(
                "/v1/batch", json: Payloads.batch([Payloads.track("s-1")]), writeKey: fixture.writeKey
            ).status == 200)
        fixture.server.stop()
        fixture.server.stop()
        #expect(throws: (any Error).self) { try LoopbackClient(port: port).send("GET", "/health") }
        let report = try Report.load(databasePath: fixture.directory + "/events.sqlite")
        #expect(report.totalEvents == 1)
        fixture.shutDown()
    }

    @Test func stopFinishesARequestInFlightBeforeClosing() throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let connection = try fixture.client.connect()
        defer { close(connection) }
        let body = Array(Payloads.batch([Payloads.track("inflight-1")]).utf8)
        let request = LoopbackClient.requestBytes(
            method: "POST", path: "/v1/batch",
            headers: ["Authorization": LoopbackClient.basic(fixture.writeKey)],
            body: body)
        // Send all but the last byte, so the request is in flight when stop() begins.
        try fixture.client.write(Array(request.dropLast()), to: connection)
        while fixture.server.requestsInFlight == 0 { usleep(1000) }
        let stopped = DispatchSemaphore(value: 0)
        let server = fixture.server
        Thread.detachNewThread {
            server.stop()
            stopped.signal()
        }
        usleep(100_000)
        #expect(stopped.wait(timeout: .now()) == .timedOut)
        try fixture.client.write([request.last!], to: connection)
        #expect(try fixture.client.readResponse(from: connection).status == 200)
        stopped.wait()
        #expect(try Report.load(databasePath: fixture.directory + "/events.sqlite").totalEvents == 1)
    }

    /// A server with two connection slots, and deadlines far beyond any test.
    static func twoSlotServer() throws -> TestServer {
        try TestServer {
            $0.http.connectionLimit = 2
            $0.http.idleTimeoutSeconds = 60
            $0.http.headerDeadlineSeconds = 60
        }
    }

    /// A table full of idle connections used to make a newcomer wait in the listen queue until
    /// one closed; now the newcomer evicts the connection idle longest and is answered at once.
    @Test func aConnectionPastTheLimitEvictsTheLongestIdleOne() throws {
        let fixture = try Self.twoSlotServer()
        defer { fixture.shutDown() }
        let first = try fixture.client.connect()
        defer { close(first) }
        try HTTPConnectionTests.waitUntil("the first connection accepted") {
            fixture.server.http.connectionsOpen == 1
        }
        let second = try fixture.client.connect()
        defer { close(second) }
        try HTTPConnectionTests.waitUntil("both connections accepted") {
            fixture.server.http.connectionsOpen == 2
        }
        let third = try fixture.client.connect()
        defer { close(third) }
        try fixture.client.write(LoopbackClient.requestBytes(method: "GET", path: "/health"), to: third)
        #expect(try fixture.client.readResponse(from: third).status == 200)
        try HTTPConnectionTests.waitUntil("the first connection closed") { LoopbackClient.wasClosed(first) }
        #expect(!LoopbackClient.wasClosed(second), "the younger idle connection stays")
        #expect(fixture.server.http.connectionsEvicted == 1)
    }

    /// A connection whose request is in flight is never evicted: with both slots sending a
    /// body, a newcomer is closed instead, and the two requests complete.
    @Test func aRequestInFlightIsNeverEvictedForANewcomer() throws {
        let fixture = try Self.twoSlotServer()
        defer { fixture.shutDown() }
        let body = Array(Payloads.batch([Payloads.track("in-flight")]).utf8)
        let request = LoopbackClient.requestBytes(
            method: "POST", path: "/v1/batch",
            headers: [
                "Content-Type": "application/json", "Authorization": LoopbackClient.basic(fixture.writeKey),
            ],
            body: body)
        var sending: [Int32] = []
        defer { sending.forEach { close($0) } }
        for _ in 0..<2 {
            let connection = try fixture.client.connect()
            sending.append(connection)
            // The head and all but the last byte of the body: the request is in flight.
            try fixture.client.write(Array(request.dropLast()), to: connection)
        }
        try HTTPConnectionTests.waitUntil("both requests in flight") { fixture.server.requestsInFlight == 2 }
        let newcomer = try fixture.client.connect()
        defer { close(newcomer) }
        try HTTPConnectionTests.waitUntil("the newcomer closed") { LoopbackClient.wasClosed(newcomer) }
        for connection in sending {
            #expect(!LoopbackClient.wasClosed(connection))
            try fixture.client.write([request.last!], to: connection)
            #expect(try fixture.client.readResponse(from: connection).status == 200)
        }
        #expect(try fixture.storedCount() == 1, "the same event twice, stored once")
    }

    @Test func aStoreThatCannotCommitGives503WithRetryAfter() throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        fixture.server.stores.close()
        let response = try fixture.client.post(
            "/v1/batch", json: Payloads.batch([Payloads.track("c-1")]), writeKey: fixture.writeKey)
        #expect(response.status == 503)
        #expect(response.headers["retry-after"] == "5")
    }
}
