import FootprintServer
import FootprintWire
import Foundation
import Testing

/// `POST /v1/snapshots` and the connect-session API over real HTTP on loopback, with a real
/// SQLite file and the request clock under the test's control.
@Suite struct SnapshotUploadTests {
    static let now = Timestamp(iso8601: "2026-11-03T12:00:00.000Z")!

    /// A server whose request clock the test moves, with a session open on its default project.
    final class Fixture {
        let server: TestServer
        let clock = ManualClock(SnapshotUploadTests.now)
        var client: LoopbackClient { server.client }
        var admin: [String: String] { ["Authorization": "Bearer \(server.server.access.adminToken)"] }
        var read: [String: String] { ["Authorization": "Bearer \(server.server.access.readToken)"] }

        init(configure: (inout AnalyticsServer.Configuration) -> Void = { _ in }) throws {
            let clock = clock
            server = try TestServer { configuration in
                configuration.http.clock = clock
                configure(&configuration)
            }
        }

        /// Starts a session through the API; returns its id and token.
        func startSession(project: String? = nil, body: String = "") throws -> (id: Int64, token: String) {
            let query = project.map { "?project=\($0)" } ?? ""
            let response = try client.send(
                "POST", "/v1/connect-sessions\(query)", headers: admin, body: Array(body.utf8))
            try #require(response.status == 201, "\(response.text)")
            let json = try JSONParser().parse(response.body)
            return (
                try #require(json["session"]?["id"]?.int64Value), try #require(json["token"]?.stringValue)
            )
        }

        func upload(
            _ body: [UInt8], writeKey: String?, headers: [String: String] = [:]
        ) throws -> LoopbackClient.Response {
            var headers = headers
            headers["Content-Type"] = "application/json"
            if let writeKey { headers["Authorization"] = LoopbackClient.basic(writeKey) }
            return try client.send("POST", "/v1/snapshots", headers: headers, body: body)
        }

        func upload(_ snapshot: ScreenSnapshot, headers: [String: String] = [:]) throws
            -> LoopbackClient.Response
        {
            try upload(snapshot.jsonBytes, writeKey: server.writeKey, headers: headers)
        }

        /// Snapshots kept in every project.
        func storedSnapshots() throws -> Int {
            try server.server.stores.metadata.projects().reduce(0) { total, project in
                total
                    + (try server.server.stores.metadata.screens(projectId: project.id).map(\.snapshotCount)
                        .reduce(
                            0, +))
            }
        }

        func json(_ path: String, headers: [String: String]? = nil) throws -> JSONValue {
            let response = try client.send("GET", path, headers: headers ?? read)
            try #require(response.status == 200, "\(path): \(response.text)")
            return try JSONParser().parse(response.body)
        }
    }

    @Test func aValidSnapshotIsStoredListedAndFetchedAndItsResendChangesNothing() throws {
        let fixture = try Fixture()
        defer { fixture.server.shutDown() }
        let session = try fixture.startSession()
        let image = ScreenSnapshot.Image(
            format: .png, width: 1170, height: 2532, data: SnapshotSamples.png(size: 5000))
        let snapshot = SnapshotSamples.snapshot(
            token: session.token, elements: [SnapshotSamples.buy, SnapshotSamples.row(1)], image: image)
        let response = try fixture.upload(snapshot)
        #expect(response.status == 201, "\(response.text)")
        let id = try #require(try JSONParser().parse(response.body)["id"]?.int64Value)

        let screens = try fixture.json("/v1/screens")["screens"]?.arrayValue ?? []
        #expect(screens.count == 1)
        #expect(screens.first?["page"] == "Detail" && screens.first?["appVersion"] == "2.0")
        #expect(screens.first?["latest"]?["id"]?.int64Value == id)
        #expect(screens.first?["latest"]?["image"]?["url"] == .string("/v1/snapshots/\(id)/image"))

        let fetched = try fixture.json("/v1/snapshots/\(id)")
        let document = try #require(fetched["document"])
        #expect(document["connect_token"] == nil, "the stored document keeps no token")
        #expect(document["image"]?["data"] == nil && document["image"]?["bytes"]?.int64Value == 5000)
        #expect(document["elements"]?.arrayValue?.count == 2)
        #expect(document["elements"]?[1]?["similar_path"] == "#didSelectRow#Cell[0:*]#List")
        #expect(fetched["snapshot"]?["connectSession"]?.int64Value == session.id)
        #expect(fetched["snapshot"]?["takenAt"] == "2026-11-03T11:59:00.000Z")
        #expect(fetched["snapshot"]?["receivedAt"] == .string(Self.now.iso8601))

        let picture = try fixture.client.send("GET", "/v1/snapshots/\(id)/image", headers: fixture.read)
        #expect(picture.status == 200)
        #expect(picture.headers["content-type"] == "image/png")
        #expect(picture.headers["cache-control"]?.contains("max-age") == true)
        #expect(picture.body == image.data)

        // The same snapshot again (a retry): the same id, nothing new.
        let resend = try fixture.upload(snapshot)
        #expect(resend.status == 200, "\(resend.text)")
        #expect(try JSONParser().parse(resend.body)["id"]?.int64Value == id)
        #expect(try fixture.storedSnapshots() == 1)
    }

    @Test func theTokenMayComeInTheHeaderAlone() throws {
        let fixture = try Fixture()
        defer { fixture.server.shutDown() }
        let session = try fixture.startSession()
        var body = SnapshotSamples.snapshot(token: session.token).jsonValue.objectValue ?? [:]
        body["connect_token"] = nil
        let response = try fixture.upload(
            JSONWriter.bytes(.object(body)), writeKey: fixture.server.writeKey,
            headers: ["Footprint-Connect-Token": session.token])
        #expect(response.status == 201, "\(response.text)")
        #expect(try fixture.storedSnapshots() == 1)
    }

    @Test func anUploadMayBeGzippedAndIsOnlyEverPosted() throws {
        let fixture = try Fixture()
        defer { fixture.server.shutDown() }
        let session = try fixture.startSession()
        let body = SnapshotSamples.snapshot(token: session.token, elements: (0..<40).map(SnapshotSamples.row))
            .jsonBytes
        let compressed = Gzip.compress(body)
        #expect(compressed.count < body.count / 4)
        let response = try fixture.upload(
            compressed, writeKey: fixture.server.writeKey, headers: ["Content-Encoding": "gzip"])
        #expect(response.status == 201, "\(response.text)")
        let listed = try fixture.json("/v1/screens")["screens"]?[0]?["latest"]?["elements"]
        #expect(listed?.int64Value == 40)
        let get = try fixture.client.send("GET", "/v1/snapshots", headers: fixture.read)
        #expect(get.status == 405 && get.headers["allow"] == "POST")
        #expect(try fixture.client.send("PUT", "/v1/snapshots/1", headers: fixture.admin).status == 405)
        #expect(try fixture.client.send("GET", "/v1/snapshots/999", headers: fixture.read).status == 404)
        #expect(try fixture.client.send("GET", "/v1/snapshots/x/image", headers: fixture.read).status == 404)
        #expect(try fixture.client.send("GET", "/v1/snapshots/1/image").status == 401)
    }

    /// Each refusal: its status and code, and nothing stored.
    func expectRefused(
        _ fixture: Fixture, _ response: LoopbackClient.Response, status: Int, code: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
        #expect(
            (try? JSONParser().parse(response.body))?["error"] == .string(code), "\(response.text)",
            sourceLocation: sourceLocation)
        #expect(
            try fixture.storedSnapshots() == 0, "a refused snapshot was stored",
            sourceLocation: sourceLocation)
    }

    @Test func aBadWriteKeyOrTokenIsRefusedAndNothingIsStored() throws {
        let fixture = try Fixture()
        defer { fixture.server.shutDown() }
        let session = try fixture.startSession()
        let body = SnapshotSamples.snapshot(token: session.token).jsonBytes
        try expectRefused(
            fixture, try fixture.upload(body, writeKey: nil), status: 401, code: "missing_write_key")
        try expectRefused(
            fixture, try fixture.upload(body, writeKey: "fp_unknown"), status: 401, code: "unknown_write_key")

        var withoutToken = SnapshotSamples.snapshot(token: session.token).jsonValue.objectValue ?? [:]
        withoutToken["connect_token"] = nil
        try expectRefused(
            fixture,
            try fixture.upload(JSONWriter.bytes(.object(withoutToken)), writeKey: fixture.server.writeKey),
            status: 403, code: "missing_connect_token")
        try expectRefused(
            fixture,
            try fixture.upload(SnapshotSamples.snapshot(token: "fpc_0123456789abcdef0123456789abcdef")),
            status: 403, code: "unknown_connect_token")
        try expectRefused(
            fixture,
            try fixture.upload(
                SnapshotSamples.snapshot(token: session.token),
                headers: ["Footprint-Connect-Token": "fpc_other"]),
            status: 400, code: "conflicting_connect_token")

        // Another project's session: its token does not open this project.
        let other = try fixture.server.server.stores.metadata.createProject(named: "other")
        let foreign = try fixture.startSession(project: "other")
        try expectRefused(
            fixture, try fixture.upload(SnapshotSamples.snapshot(token: foreign.token)), status: 403,
            code: "unknown_connect_token")
        // ...and this project's token does not open it.
        try expectRefused(
            fixture, try fixture.upload(body, writeKey: other.writeKey), status: 403,
            code: "unknown_connect_token")
    }

    /// The checks run in the order HTTP-API.md gives (write key, encoding and size, JSON, token,
    /// session, upload rate, fields): a request that fails two of them gets the first one's
    /// answer, and nothing is stored.
    @Test func aRequestFailingTwoChecksGetsTheFirstOnesAnswer() throws {
        let fixture = try Fixture { configuration in
            configuration.snapshots.uploadsPerSession = RateLimiter.Rate(requestsPerSecond: 0.01, burst: 1)
        }
        defer { fixture.server.shutDown() }
        let open = try fixture.startSession()
        let ended = try fixture.startSession()
        let end = try fixture.client.send(
            "DELETE", "/v1/connect-sessions/\(ended.id)", headers: fixture.admin)
        try #require(end.status == 200, "\(end.text)")
        let key = fixture.server.writeKey
        let unknown = "fpc_0123456789abcdef0123456789abcdef"
        let notJSON = Array("{\"connect_token\":".utf8)
        let badId = { (token: String) in SnapshotSamples.snapshot(token: token, id: "not-a-uuid") }
        var tokenless = badId(open.token).jsonValue.objectValue ?? [:]
        tokenless["connect_token"] = nil
        let bigImage = ScreenSnapshot.Image(
            format: .png, width: 10, height: 10, data: SnapshotSamples.png(size: (1 << 20) + 1))
        let cases: [(String, () throws -> LoopbackClient.Response, Int, String)] = [
            (
                "an unknown write key and an unknown encoding",
                { try fixture.upload(notJSON, writeKey: "fp_unknown", headers: ["Content-Encoding": "br"]) },
                401, "unknown_write_key"
            ),
            (
                "an unknown encoding and a body that is not JSON",
                { try fixture.upload(notJSON, writeKey: key, headers: ["Content-Encoding": "br"]) },
                415, "unsupported_encoding"
            ),
            (
                "a body over 4 MiB that is not JSON",
                {
                    try fixture.upload(
                        [UInt8](repeating: UInt8(ascii: "x"), count: (4 << 20) + 1), writeKey: key)
                },
                413, "request_too_large"
            ),
            (
                "a body that is not JSON and no token",
                { try fixture.upload(notJSON, writeKey: key) }, 400, "invalid_json"
            ),
            (
                "a body that is not an object and an open session's token",
                {
                    try fixture.upload(
                        Array("[1]".utf8), writeKey: key, headers: ["Footprint-Connect-Token": open.token])
                }, 400, "invalid_snapshot"
            ),
            (
                "two tokens that differ, neither known",
                {
                    try fixture.upload(
                        SnapshotSamples.snapshot(token: unknown),
                        headers: ["Footprint-Connect-Token": "fpc_other"])
                }, 400, "conflicting_connect_token"
            ),
            (
                "an open session's token in the header and an unknown one in the body",
                {
                    try fixture.upload(
                        SnapshotSamples.snapshot(token: unknown),
                        headers: ["Footprint-Connect-Token": open.token])
                }, 400, "conflicting_connect_token"
            ),
            (
                "no token and a snapshot_id that is not a UUID",
                { try fixture.upload(JSONWriter.bytes(.object(tokenless)), writeKey: key) }, 403,
                "missing_connect_token"
            ),
            (
                "an unknown token and a snapshot_id that is not a UUID",
                { try fixture.upload(badId(unknown)) }, 403, "unknown_connect_token"
            ),
            (
                "an ended session and a snapshot_id that is not a UUID",
                { try fixture.upload(badId(ended.token)) }, 410, "connect_session_ended"
            ),
            // Admitted by the rate (its one upload), then refused at the first field at fault.
            (
                "a snapshot_id that is not a UUID and an image over 1 MiB",
                {
                    try fixture.upload(
                        SnapshotSamples.snapshot(token: open.token, id: "not-a-uuid", image: bigImage))
                }, 400, "invalid_snapshot"
            ),
            (
                "a session past its upload rate and an image over 1 MiB",
                { try fixture.upload(SnapshotSamples.snapshot(token: open.token, image: bigImage)) }, 429,
                "rate_limited"
            ),
        ]
        for (name, request, status, code) in cases {
            let response = try request()
            #expect(response.status == status, "\(name): \(response.text)")
            #expect(
                (try? JSONParser().parse(response.body))?["error"] == .string(code),
                "\(name): \(response.text)")
        }
        #expect(try fixture.storedSnapshots() == 0)
    }

    /// HTTP-API.md's section on the snapshot document names every key the wire type writes and
    /// every default bound the server checks, with its value.
    @Test func theDocumentsKeysAndBoundsAreInHTTPAPI() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/HTTP-API.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        let start = try #require(text.range(of: "#### The snapshot document"))
        let end = try #require(text.range(of: "### Reading them", range: start.upperBound..<text.endIndex))
        let section = String(text[start.lowerBound..<end.lowerBound])
        var element = SnapshotSamples.buy
        element.planEntry = "buy"
        var snapshot = SnapshotSamples.snapshot(
            token: "fpc_token", elements: [element],
            image: ScreenSnapshot.Image(format: .png, width: 1, height: 1, data: SnapshotSamples.png(size: 8))
        )
        snapshot.userID = "u1"
        snapshot.pagePath = "#Detail"
        func keys(_ value: JSONValue) -> Set<String> {
            switch value {
            case .object(let members):
                return Set(members.keys).union(members.values.flatMap(keys))
            case .array(let items): return Set(items.flatMap(keys))
            default: return []
            }
        }
        let written = keys(snapshot.jsonValue)
        #expect(written.count > 25)
        for key in written.sorted() {
            #expect(section.contains("`\(key)`"), "HTTP-API.md does not name \(key)")
        }
        let limits = ScreenSnapshot.Limits()
        let upload = SnapshotUploadAPI.Configuration()
        let bounds = [
            limits.maximumElements, limits.maximumTextBytes, limits.maximumPathBytes,
            limits.maximumFieldBytes,
            limits.maximumKindBytes, Int(limits.maximumCoordinate), Int(limits.maximumScreenPoints),
            limits.maximumImagePixels, Int(limits.scaleRange.upperBound), upload.maximumImageBytes,
        ]
        for bound in bounds {
            #expect(section.contains(bound.grouped), "HTTP-API.md does not give the bound \(bound.grouped)")
        }
        #expect(text.contains(upload.maximumBodyBytes.grouped))
    }

    @Test func anEndedOrExpiredSessionIsGone() throws {
        let fixture = try Fixture()
        defer { fixture.server.shutDown() }
        let ended = try fixture.startSession()
        let end = try fixture.client.send(
            "DELETE", "/v1/connect-sessions/\(ended.id)", headers: fixture.admin)
        #expect(try end.status == 200 && JSONParser().parse(end.body)["session"]?["state"] == "ended")
        try expectRefused(
            fixture, try fixture.upload(SnapshotSamples.snapshot(token: ended.token)), status: 410,
            code: "connect_session_ended")

        let expiring = try fixture.startSession(body: #"{"lifetime_seconds": 120}"#)
        fixture.clock.advance(seconds: 119)
        let inTime = try fixture.upload(SnapshotSamples.snapshot(token: expiring.token))
        #expect(inTime.status == 201, "\(inTime.text)")
        fixture.clock.advance(seconds: 1)
        let late = try fixture.upload(SnapshotSamples.snapshot(token: expiring.token))
        #expect(late.status == 410 && late.text.contains("connect_session_expired"), "\(late.text)")
        #expect(try fixture.storedSnapshots() == 1)
        let sessions = try fixture.json("/v1/connect-sessions")["sessions"]?.arrayValue ?? []
        #expect(sessions.map { $0["state"]?.stringValue ?? "" } == ["expired", "ended"])
        #expect(sessions.first?["snapshots"]?.int64Value == 1)
    }

    @Test func tooLargeOrMalformedSnapshotsAreRefusedWithTheReason() throws {
        let fixture = try Fixture()
        defer { fixture.server.shutDown() }
        let session = try fixture.startSession()
        // A body over the 4 MiB cap (the HTTP layer's own cap is 5 MB).
        let padding = String(repeating: "x", count: (4 << 20) + 1000)
        var padded = SnapshotSamples.snapshot(token: session.token).jsonValue.objectValue ?? [:]
        padded["padding"] = .string(padding)
        try expectRefused(
            fixture, try fixture.upload(JSONWriter.bytes(.object(padded)), writeKey: fixture.server.writeKey),
            status: 413, code: "request_too_large")
        // An image one byte over 1 MiB once decoded.
        let image = ScreenSnapshot.Image(
            format: .png, width: 10, height: 10, data: SnapshotSamples.png(size: (1 << 20) + 1))
        try expectRefused(
            fixture, try fixture.upload(SnapshotSamples.snapshot(token: session.token, image: image)),
            status: 413,
            code: "image_too_large")
        // Not JSON, and JSON that is not a valid snapshot: 400 with the field at fault.
        try expectRefused(
            fixture, try fixture.upload(Array("{\"connect_token\":".utf8), writeKey: fixture.server.writeKey),
            status: 400, code: "invalid_json")
        var element = SnapshotSamples.buy
        element.frame.x = 1e9
        let outOfRange = try fixture.upload(
            SnapshotSamples.snapshot(token: session.token, elements: [element]))
        try expectRefused(fixture, outOfRange, status: 400, code: "invalid_snapshot")
        #expect(outOfRange.text.contains("elements[0].frame.x"), "\(outOfRange.text)")
        try expectRefused(
            fixture, try fixture.upload(SnapshotSamples.snapshot(token: session.token, id: "not-a-uuid")),
            status: 400,
            code: "invalid_snapshot")
    }

    @Test func aSessionPastItsUploadRateIsToldWhenToRetry() throws {
        let fixture = try Fixture { configuration in
            configuration.snapshots.uploadsPerSession = RateLimiter.Rate(requestsPerSecond: 0.5, burst: 3)
        }
        defer { fixture.server.shutDown() }
        let session = try fixture.startSession()
        for _ in 0..<3 {
            let response = try fixture.upload(SnapshotSamples.snapshot(token: session.token))
            #expect(response.status == 201, "\(response.text)")
        }
        let refused = try fixture.upload(SnapshotSamples.snapshot(token: session.token))
        #expect(refused.status == 429, "\(refused.text)")
        #expect(refused.headers["retry-after"] == "2")
        #expect(try fixture.storedSnapshots() == 3)
        // Another session has its own allowance; two seconds later this one has one again.
        let other = try fixture.startSession()
        #expect(try fixture.upload(SnapshotSamples.snapshot(token: other.token)).status == 201)
        fixture.clock.advance(seconds: 2)
        #expect(try fixture.upload(SnapshotSamples.snapshot(token: session.token)).status == 201)
        #expect(try fixture.storedSnapshots() == 5)
    }

    @Test func startingAndEndingSessionsNeedsTheAdminToken() throws {
        let fixture = try Fixture()
        defer { fixture.server.shutDown() }
        let refused = try fixture.client.send("POST", "/v1/connect-sessions", headers: fixture.read)
        #expect(refused.status == 403)
        let anonymous = try fixture.client.send("POST", "/v1/connect-sessions")
        #expect(anonymous.status == 401)

        let created = try fixture.client.send(
            "POST", "/v1/connect-sessions", headers: fixture.admin,
            body: Array(
                #"{"url_scheme":"myshop","server_url":"https://collect.example.com","lifetime_seconds":900}"#
                    .utf8))
        #expect(created.status == 201, "\(created.text)")
        #expect(created.headers["cache-control"] == "no-store")
        let json = try JSONParser().parse(created.body)
        let token = try #require(json["token"]?.stringValue)
        #expect(
            json["link"]?.stringValue
                == "myshop://footprint/connect?token=\(token)&server=https%3A%2F%2Fcollect.example.com")
        #expect(json["qrCodeSVG"]?.stringValue?.hasPrefix("<svg") == true)
        #expect(json["session"]?["expiresAt"] == .string(Self.now.adding(milliseconds: 900_000).iso8601))
        let id = try #require(json["session"]?["id"]?.int64Value)
        // The list never shows a token.
        let list = try fixture.client.send("GET", "/v1/connect-sessions", headers: fixture.read)
        #expect(list.status == 200 && !list.text.contains(token))

        #expect(
            try fixture.client.send("DELETE", "/v1/connect-sessions/\(id)", headers: fixture.read).status
                == 403)
        #expect(
            try fixture.client.send("DELETE", "/v1/connect-sessions/999", headers: fixture.admin).status
                == 404)
        let bad = try fixture.client.send(
            "POST", "/v1/connect-sessions", headers: fixture.admin,
            body: Array(#"{"lifetime_seconds":7200}"#.utf8))
        #expect(bad.status == 400 && bad.text.contains("connect_session"), "\(bad.text)")
        _ = try fixture.startSession()
        _ = try fixture.startSession()
        let tooMany = try fixture.client.send("POST", "/v1/connect-sessions", headers: fixture.admin)
        #expect(
            tooMany.status == 409 && tooMany.text.contains("too_many_connect_sessions"), "\(tooMany.text)")

        // A project's read token reads its own project only.
        let other = try fixture.server.server.stores.metadata.createProject(named: "other")
        let (_, otherToken) = try fixture.server.server.stores.metadata.createReadToken(
            projectId: other.id, at: Self.now)
        let own = try fixture.client.send(
            "GET", "/v1/connect-sessions?project=other", headers: ["Authorization": "Bearer \(otherToken)"])
        #expect(try own.status == 200 && JSONParser().parse(own.body)["sessions"] == .array([]))
        let foreign = try fixture.client.send(
            "GET", "/v1/connect-sessions?project=default", headers: ["Authorization": "Bearer \(otherToken)"])
        #expect(foreign.status == 404)
    }
}
