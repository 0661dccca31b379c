import FootprintSQLite
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// Project read tokens and dashboard sessions over real HTTP and real database files: a
/// project's token reads that project only, no token or session id is in the file in clear,
/// sessions outlive a restart and a sign-out ends them in every server sharing the database.
@Suite(.serialized) struct AccessTests {
    /// Two servers' worth of configuration on one database file in a fresh directory.
    struct Setup {
        let directory: String
        var path: String { directory + "/access.sqlite" }

        init() throws {
            directory =
                NSTemporaryDirectory()
                + "footprint-access-\(UUIDv7.make(at: Timestamp(millisecondsSince1970: 0)))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }

        /// A server on the database with fixed admin and read tokens and `clock`.
        func start(clock: any Clock = SystemClock()) throws -> AnalyticsServer {
            var configuration = AnalyticsServer.Configuration(databasePath: path)
            configuration.store.synchronous = "NORMAL"
            configuration.access.adminToken = "fpa_admin-token-for-access-tests"
            configuration.access.readToken = "fpr_read-token-for-every-project"
            configuration.http.clock = clock
            return try AnalyticsServer(configuration: configuration)
        }

        /// The bytes of the database file and its WAL companions.
        func fileBytes() throws -> [UInt8] {
            try ["", "-wal", "-shm"].flatMap { suffix -> [UInt8] in
                let file = path + suffix
                guard FileManager.default.fileExists(atPath: file) else { return [] }
                return Array(try Data(contentsOf: URL(fileURLWithPath: file)))
            }
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }
    }

    static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { start in
            bytes[start] == needle[0] && Array(bytes[start..<(start + needle.count)]) == needle
        }
    }

    static func get(_ client: LoopbackClient, _ path: String, token: String) throws -> LoopbackClient.Response
    {
        try client.send("GET", path, headers: ["Authorization": "Bearer \(token)"])
    }

    /// Event names of the recent-events answer.
    static func eventNames(_ response: LoopbackClient.Response) throws -> [String] {
        let json = try JSONParser().parse(response.body)
        guard case .array(let events)? = json["events"] else { return [] }
        return events.compactMap { event in
            if case .string(let name)? = event["name"] { return name }
            return nil
        }
    }

    @Test func aProjectReadTokenReadsItsProjectAndNothingOfAnother() throws {
        let setup = try Setup()
        defer { setup.remove() }
        let server = try setup.start()
        defer { server.stop() }
        let client = LoopbackClient(port: server.port)
        let alpha = try server.stores.metadata.createProject(named: "alpha")
        let beta = try server.stores.metadata.createProject(named: "beta")
        for (project, event) in [(alpha, "Alpha Viewed"), (beta, "Beta Viewed")] {
            let answer = try client.post(
                "/v1/batch", json: Payloads.batch([Payloads.track(UUID().uuidString, event: event)]),
                writeKey: project.writeKey)
            #expect(answer.status == 200)
        }
        let (description, token) = try server.stores.metadata.createReadToken(
            projectId: alpha.id, at: SystemClock().now())
        #expect(description.projectName == "alpha")
        #expect(token.hasPrefix(description.hint) && token.hasPrefix("fpr_"))

        // Its own project, named or not.
        for path in ["/v1/events/recent?project=alpha", "/v1/events/recent"] {
            let own = try Self.get(client, path, token: token)
            #expect(own.status == 200)
            #expect(try Self.eventNames(own) == ["Alpha Viewed"])
        }
        let report = try Self.get(client, "/v1/reports/events?project=alpha", token: token)
        #expect(report.status == 200)
        #expect(report.text.contains("Alpha Viewed") && !report.text.contains("Beta Viewed"))

        // Nothing of beta: every read answers as if beta did not exist.
        for path in [
            "/v1/events/recent?project=beta", "/v1/reports/events?project=beta",
            "/v1/reports/traffic?project=beta",
            "/v1/definitions?project=beta", "/v1/configs?project=beta", "/v1/reports/traffic?project=default",
        ] {
            let other = try Self.get(client, path, token: token)
            #expect(other.status == 404, "\(path)")
            #expect(!other.text.contains("Beta Viewed"))
        }
        // The same answer as for a project that does not exist.
        let unknown = try JSONParser().parse(
            Self.get(client, "/v1/reports/traffic?project=gamma", token: token).body)
        let hidden = try JSONParser().parse(
            Self.get(client, "/v1/reports/traffic?project=beta", token: token).body)
        #expect(unknown["error"] == "project" && hidden["error"] == "project")
        #expect(
            hidden["message"] == "no project named beta" && unknown["message"] == "no project named gamma")

        // Read only, and not the server's metrics.
        let change = try client.send(
            "POST", "/v1/configs?project=alpha", headers: ["Authorization": "Bearer \(token)"],
            body: Array(#"{"version": 1, "pageMode": "all"}"#.utf8))
        #expect(change.status == 403)
        #expect(try Self.get(client, "/metrics", token: token).status == 403)

        // The server-wide tokens read every project.
        for serverWide in ["fpa_admin-token-for-access-tests", "fpr_read-token-for-every-project"] {
            let other = try Self.get(client, "/v1/events/recent?project=beta", token: serverWide)
            #expect(other.status == 200)
            #expect(try Self.eventNames(other) == ["Beta Viewed"])
        }

        // Revoked: refused at once.
        #expect(try server.stores.metadata.readTokens().map(\.id) == [description.id])
        #expect(try server.stores.metadata.revokeReadToken(id: description.id))
        #expect(try Self.get(client, "/v1/events/recent?project=alpha", token: token).status == 401)
        #expect(try server.stores.metadata.readTokens().isEmpty)
    }

    @Test func noTokenOrSessionIdIsInTheDatabaseFileOnlyTheirDigests() throws {
        let setup = try Setup()
        defer { setup.remove() }
        let server = try setup.start()
        let project = try #require(server.defaultProject)
        let tokens = try (0..<3).map { _ in
            try server.stores.metadata.createReadToken(projectId: project.id, at: SystemClock().now()).1
        }
        let (cookie, _) = try DashboardTests.signIn(
            LoopbackClient(port: server.port), token: server.access.adminToken)
        let sessionId = String(try #require(cookie.split(separator: "=", maxSplits: 1).last))
        #expect(sessionId.count > 32)
        server.stop()

        let bytes = try setup.fileBytes()
        for secret in tokens + [sessionId] {
            #expect(!Self.contains(bytes, Array(secret.utf8)), "\(secret.prefix(8)) is in the file in clear")
            #expect(!Self.contains(bytes, Array(secret.dropFirst(4).utf8)))
            #expect(Self.contains(bytes, SecretHash(of: secret).bytes), "its SHA-256 is stored")
        }
        // The digest is SHA-256 itself (the test vector of "abc").
        #expect(
            SecretHash(of: "abc").hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func aDashboardSessionSurvivesARestart() throws {
        let setup = try Setup()
        defer { setup.remove() }
        let first = try setup.start()
        let (cookie, csrf) = try DashboardTests.signIn(
            LoopbackClient(port: first.port), token: first.access.adminToken)
        first.stop()

        let second = try setup.start()
        defer { second.stop() }
        let overview = try LoopbackClient(port: second.port).send("GET", "/", headers: ["Cookie": cookie])
        #expect(overview.status == 200)
        #expect(DashboardTests.csrfToken(in: overview.text) == csrf)
        let stranger = try LoopbackClient(port: second.port).send(
            "GET", "/", headers: ["Cookie": "fp_session=s" + String(repeating: "0", count: 66)])
        #expect(stranger.status == 303)
    }

    @Test func signingOutEndsTheSessionInEveryServerOnTheDatabase() throws {
        let setup = try Setup()
        defer { setup.remove() }
        let one = try setup.start()
        defer { one.stop() }
        let other = try setup.start()
        defer { other.stop() }
        let oneClient = LoopbackClient(port: one.port)
        let otherClient = LoopbackClient(port: other.port)
        let (cookie, csrf) = try DashboardTests.signIn(oneClient, token: one.access.adminToken)
        let (otherCookie, _) = try DashboardTests.signIn(otherClient, token: other.access.adminToken)
        #expect(try otherClient.send("GET", "/", headers: ["Cookie": cookie]).status == 200)

        let signOut = try oneClient.send(
            "POST", "/signout",
            headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"],
            body: Array("csrf=\(csrf)".utf8))
        #expect(signOut.status == 303)
        for client in [oneClient, otherClient] {
            let after = try client.send("GET", "/", headers: ["Cookie": cookie])
            #expect(after.status == 303)
            #expect(after.headers["location"] == "/signin")
        }
        // Another session goes on until it is ended too.
        #expect(try oneClient.send("GET", "/", headers: ["Cookie": otherCookie]).status == 200)
        #expect(try one.stores.metadata.endEveryDashboardSession() == 1)
        #expect(try otherClient.send("GET", "/", headers: ["Cookie": otherCookie]).status == 303)
    }

    @Test func aSessionEndsWhenItExpires() throws {
        let setup = try Setup()
        defer { setup.remove() }
        let start = Timestamp(millisecondsSince1970: 1_800_000_000_000)
        // Each request reads the clock once: a minute passes per request.
        let clock = SteppingClock(start: start, stepMilliseconds: 60_000)
        let server = try setup.start(clock: clock)
        defer { server.stop() }
        let client = LoopbackClient(port: server.port)
        let (cookie, _) = try DashboardTests.signIn(client, token: server.access.adminToken)
        let hash = SecretHash(of: String(try #require(cookie.split(separator: "=", maxSplits: 1).last)))
        let expires = try #require(try server.stores.metadata.dashboardSessionExpiry(hash, now: start))
        #expect(expires == start.adding(milliseconds: 12 * 3600 * 1000 + 60_000))
        #expect(
            try server.stores.metadata.dashboardSessionExpiry(hash, now: expires.adding(milliseconds: -1))
                == expires)
        #expect(try server.stores.metadata.dashboardSessionExpiry(hash, now: expires) == nil)
    }

    @Test func theStoreKeepsAtMostTheNewestSessions() throws {
        try withTemporaryStore("access-sessions") { store, _ in
            let now = Timestamp(millisecondsSince1970: 1_800_000_000_000)
            let hashes = (0..<5).map { SecretHash(of: "session \($0)") }
            for (index, hash) in hashes.enumerated() {
                try store.startDashboardSession(
                    hash, expires: now.adding(milliseconds: Int64(index + 1) * 1000), now: now,
                    maximumSessions: 3)
            }
            let live = try hashes.map { try store.dashboardSessionExpiry($0, now: now) != nil }
            #expect(live == [false, false, true, true, true])
            // Starting one at a later time forgets the expired ones first.
            try store.startDashboardSession(
                SecretHash(of: "late"), expires: now.adding(milliseconds: 10_000),
                now: now.adding(milliseconds: 4000),
                maximumSessions: 3)
            #expect(try store.dashboardSessionExpiry(hashes[4], now: now) != nil)
            #expect(try store.dashboardSessionExpiry(hashes[2], now: now) == nil)
        }
    }

    @Test func aDatabaseOfThePreviousSchemaGainsTheAccessTables() throws {
        try withTemporaryDatabase("access-migration") { path in
            do {
                let database = try SQLiteDatabase(path: path)
                try database.migrate(Array(SQLiteSchema.migrations.dropLast()))
                try database.execute("INSERT INTO projects(name, created_at) VALUES ('old', 1)")
                try database.execute(
                    "INSERT INTO write_keys(key, project_id, created_at) VALUES ('fp_0123456789abcdef0123456789abcdef', 1, 1)"
                )
            }
            let store = try SQLiteEventStore(path: path)
            defer { store.close() }
            let project = try #require(try store.project(named: "old"))
            #expect(project.writeKey == "fp_0123456789abcdef0123456789abcdef")
            let (_, token) = try store.createReadToken(projectId: project.id, at: SystemClock().now())
            #expect(try store.project(readTokenHash: SecretHash(of: token)) == project)
            #expect(try store.project(readTokenHash: SecretHash(of: token + "x")) == nil)
        }
    }
}
