import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The PostgreSQL metadata store against a real server (``PostgresTesting``): the same calls
/// give the same answers as the SQLite file, hostile text round-trips exactly, and a server
/// that stops gives `unavailable` errors and is used again once it is back.
@Suite(.enabled(if: PostgresTesting.isAvailable, PostgresTesting.reason), .serialized)
struct PostgresMetadataStoreTests {
    static let start = Timestamp(iso8601: "2026-11-03T12:00:00.000Z")!
    static let hostileName = "caf\u{E9} \u{1F6CD}\u{FE0F} \u{0}nul \u{202E}rtl '; DROP TABLE projects; --"

    /// One store as the transcript drives it: a metadata store with its ledger and its own
    /// retention setting.
    struct Subject {
        var store: any MetadataStore & MetadataLedger
        var setRetentionDays: (Int?, Int64) throws -> Void
        var personDeletions: (Int64) throws -> [JSONValue]
    }

    @Test func theSameOperationsGiveTheSameAnswersAsSQLite() throws {
        try withTemporaryDatabase("footprint-pg-agreement") { path in
            let file = try SQLiteEventStore(path: path)
            defer { file.close() }
            let sqlite = try Self.transcript(
                Subject(
                    store: file, setRetentionDays: { try file.setRetentionDays($0, projectId: $1) },
                    personDeletions: { try file.personDeletions(projectId: $0) }))
            let postgres = try PostgresTesting.withStore { store in
                try Self.transcript(
                    Subject(
                        store: store, setRetentionDays: { try store.setRetentionDays($0, projectId: $1) },
                        personDeletions: { try store.personDeletions(projectId: $0) }))
            }
            #expect(sqlite.count == postgres.count)
            for (line, (expected, actual)) in zip(sqlite, postgres).enumerated() where expected != actual {
                Issue.record("step \(line): SQLite \(expected)\nPostgreSQL \(actual)")
            }
            #expect(sqlite.count > 60)
            // The refusals the sequence asks for, and no other: a taken, a blank and a too long
            // name, a token and a connect session of no project, the fourth open connect
            // session (twice), 0 retention days.
            #expect(
                sqlite.filter { $0.contains(": error ") }.count == 8,
                "\(sqlite.filter { $0.contains(": error ") })")
        }
    }

    @Test func hostileTextRoundTripsExactly() throws {
        try PostgresTesting.withStore { store in
            let long = String(repeating: "\u{1F600}a\u{0}", count: 200_000)
            let project = try store.createProject(named: Self.hostileName)
            #expect(try store.project(named: Self.hostileName) == project)
            #expect(try store.project(named: "caf\u{E9} \u{1F6CD}\u{FE0F} ") == nil)
            #expect(try store.project(writeKey: project.writeKey + "\u{0}") == nil)
            let config = try store.storeConfig(projectId: project.id, document: long, at: Self.start)
            #expect(try store.latestConfig(projectId: project.id) == config)
            #expect(try store.latestConfig(projectId: project.id)?.document.utf8.count == long.utf8.count)
            let record = SnapshotRecord(
                projectId: project.id, connectSessionId: 1, snapshotId: "\u{0}\u{0}",
                anonymousId: Self.hostileName,
                userId: "\u{0}", page: long, appVersion: "\u{10FFFF}", takenAt: Self.start,
                receivedAt: Self.start,
                elementCount: 1, document: "{}",
                image: SnapshotImage(format: "png", width: 1, height: 1, data: (0...255).map { UInt8($0) }))
            let written = try store.storeSnapshot(record, retention: SnapshotRetention())
            let stored = try #require(try store.snapshot(id: written.id, projectId: project.id))
            #expect(stored.summary.page == long && stored.summary.anonymousId == Self.hostileName)
            #expect(stored.summary.userId == "\u{0}" && stored.summary.snapshotId == "\u{0}\u{0}")
            #expect(
                try store.snapshotImage(id: written.id, projectId: project.id)?.data
                    == (0...255).map { UInt8($0) })
            #expect(try store.storeSnapshot(record, retention: SnapshotRetention()).created == false)
            #expect(try store.connectSessionDevices(connectSessionId: 1) == [Self.hostileName])
        }
    }

    @Test func aStoppedServerGivesUnavailableAndIsUsedAgainOnceBack() throws {
        // A server of its own, so that stopping it touches no other test.
        guard let server = try PostgresTestServer.startOwn() else { return }
        defer { server.remove() }
        var configuration = PostgresMetadataStore.Configuration()
        configuration.connections = 2
        configuration.connectTimeoutSeconds = 2
        let store = try PostgresMetadataStore(location: server.location, configuration: configuration)
        defer { store.close() }
        let project = try store.createProject(named: "shop")
        server.stop()
        let started = Date()
        for _ in 0..<3 {
            #expect(throws: ServerError.self) { try store.projects() }
            do {
                _ = try store.createProject(named: "other")
                Issue.record("a write succeeded on a stopped server")
            } catch {
                #expect(error.code == .unavailable, "\(error)")
            }
        }
        #expect(Date().timeIntervalSince(started) < 30)
        try server.startAgain()
        // The first call after the restart may still meet a connection the stop broke.
        _ = try? store.projects()
        #expect(try store.projects().map(\.name) == ["shop"])
        #expect(try store.project(writeKey: project.writeKey) == project)
        _ = try store.createProject(named: "other")
        #expect(try store.projects().map(\.name) == ["shop", "other"])
    }

    @Test func collectorsSharingTheDatabaseKeepTheConnectSessionLimit() throws {
        try PostgresTesting.withStore { first in
            let second = try PostgresMetadataStore(location: first.location)
            defer { second.close() }
            let project = try first.createProject(named: "shop")
            #expect(try second.project(writeKey: project.writeKey) == project)
            let limits = ConnectSession.Limits()
            let outcomes = LockedValue<[Bool]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                let store = index % 2 == 0 ? first : second
                let started = try? store.startConnectSession(
                    projectId: project.id, tokenHash: SecretHash(of: "token-\(index)"), hint: "fpc_\(index)",
                    now: Self.start, lifetimeSeconds: 600, limits: limits, firstEventSequence: 0)
                outcomes.withLock { $0.append(started != nil) }
            }
            #expect(outcomes.withLock { $0.filter { $0 }.count } == limits.maximumOpenPerProject)
            #expect(try first.connectSessions(projectId: project.id).count == limits.maximumOpenPerProject)
        }
    }

    @Test func aNewerSchemaIsRefusedAndReopeningKeepsTheData() throws {
        try PostgresTesting.withStore { store in
            let project = try store.createProject(named: "shop")
            let again = try PostgresMetadataStore(location: store.location)
            #expect(try again.projects() == [project])
            again.close()
            _ = try store.perform { try $0.run("UPDATE footprint_schema SET version = 999") }
            #expect(throws: ServerError.self) { try PostgresMetadataStore(location: store.location).close() }
        }
    }

    // MARK: The transcript

    /// Runs one sequence of metadata calls and writes down every answer, without what is
    /// random by design (write keys, tokens, the salt): the same lines from every store.
    static func transcript(_ subject: Subject) throws -> [String] {
        let store = subject.store
        var lines: [String] = []
        func note(_ label: String, _ value: Any) { lines.append("\(label): \(value)") }
        func attempt(_ label: String, _ body: () throws -> Any) {
            do {
                note(label, try body())
            } catch let error as ServerError {
                note(label, "error \(error.code.name): \(error.message)")
            } catch {
                note(label, "error \(error)")
            }
        }
        func shape(_ project: Project) -> String {
            "\(project.id) \(project.name.debugDescription) key \(project.writeKey.hasPrefix("fpk_") || !project.writeKey.isEmpty)"
        }

        // Projects: names trimmed, unique, 1 to 128 bytes, any text.
        let shop = try store.createProject(named: "  shop ")
        let other = try store.createProject(named: hostileName)
        for name in [
            "shop", "   ", String(repeating: "\u{E9}", count: 65), String(repeating: "a", count: 128),
        ] {
            attempt("create \(name.prefix(10).debugDescription)") {
                shape(try store.createProject(named: name))
            }
        }
        note("projects", try store.projects().map(shape))
        note("by name", try store.project(named: hostileName).map(shape) ?? "none")
        note("by missing name", try store.project(named: "nope").map(shape) ?? "none")
        note("by key", try store.project(writeKey: shop.writeKey).map(shape) ?? "none")
        note("by unknown key", try store.project(writeKey: "fpk_unknown\u{0}").map(shape) ?? "none")

        // Remote config: versions count up per project.
        for (index, project) in [shop, shop, other, shop].enumerated() {
            note(
                "config \(index)",
                try store.storeConfig(
                    projectId: project.id, document: "{\"v\":\(index),\"t\":\"\u{0}\u{1F600}\"}",
                    at: start.adding(milliseconds: Int64(index))))
        }
        note("latest", try store.latestConfig(projectId: shop.id) as Any)
        note("latest none", try store.latestConfig(projectId: 999) as Any)
        note("versions", try store.configVersions(projectId: shop.id))

        // Definitions: replaced by id, listed by id (bytes order), deleted once.
        for id in ["b", "a", "e.1", "B", "a", "_z-9"] {
            try store.saveEventDefinition(
                EventDefinition(
                    id: id, name: "Def \(id)\u{0}", matchers: [EventMatcher(event: "Opened", page: id)]),
                projectId: shop.id, at: start)
        }
        note("definitions", try store.eventDefinitions(projectId: shop.id))
        note("delete a", try store.deleteEventDefinition(id: "a", projectId: shop.id))
        note("delete a again", try store.deleteEventDefinition(id: "a", projectId: shop.id))
        note("delete elsewhere", try store.deleteEventDefinition(id: "b", projectId: other.id))
        note("definitions after", try store.eventDefinitions(projectId: shop.id).map(\.id))

        // Read tokens: hashed, found by hash only.
        let (first, firstToken) = try store.createReadToken(projectId: shop.id, at: start)
        let (second, secondToken) = try store.createReadToken(
            projectId: other.id, at: start.adding(milliseconds: 5))
        note("token shapes", [firstToken, secondToken].map { $0.hasPrefix("fpr_") && $0.utf8.count == 36 })
        let tokenShape = { (token: ProjectToken) in
            "\(token.id) \(token.projectId) \(token.projectName) \(token.createdAt)"
        }
        note("tokens", try store.readTokens().map(tokenShape))
        note(
            "token hints",
            [first.hint == String(firstToken.prefix(8)), second.hint == String(secondToken.prefix(8))])
        note("by token", try store.project(readTokenHash: SecretHash(of: secondToken)).map(shape) ?? "none")
        note(
            "by wrong token",
            try store.project(readTokenHash: SecretHash(of: secondToken + "x")).map(shape) ?? "none")
        attempt("token of no project") { tokenShape(try store.createReadToken(projectId: 999, at: start).0) }
        note("revoke", try store.revokeReadToken(id: first.id))
        note("revoke again", try store.revokeReadToken(id: first.id))
        note("by revoked", try store.project(readTokenHash: SecretHash(of: firstToken)).map(shape) ?? "none")
        note("tokens after", try store.readTokens().map(tokenShape))

        // Dashboard sessions: expiry, replacement, the most kept.
        let later = { (seconds: Int64) in start.adding(milliseconds: seconds * 1000) }
        for index in 0..<5 {
            try store.startDashboardSession(
                SecretHash(of: "session-\(index)"), expires: later(100 - Int64(index)),
                now: later(Int64(index)),
                maximumSessions: 3)
        }
        for index in 0..<6 {
            note(
                "session \(index)",
                try store.dashboardSessionExpiry(SecretHash(of: "session-\(index)"), now: later(10)) as Any)
        }
        note(
            "session expired",
            try store.dashboardSessionExpiry(SecretHash(of: "session-4"), now: later(96)) as Any)
        try store.startDashboardSession(
            SecretHash(of: "session-4"), expires: later(500), now: later(20), maximumSessions: 3)
        note(
            "session renewed",
            try store.dashboardSessionExpiry(SecretHash(of: "session-4"), now: later(200)) as Any)
        try store.endDashboardSession(SecretHash(of: "session-4"))
        note(
            "session ended",
            try store.dashboardSessionExpiry(SecretHash(of: "session-4"), now: later(21)) as Any)
        note("end every", try store.endEveryDashboardSession())
        note("end every again", try store.endEveryDashboardSession())

        // Connect sessions: at most three open, fifty remembered, ended once.
        var limits = ConnectSession.Limits()
        limits.keptPerProject = 4
        var sessions: [ConnectSession] = []
        for index in 0..<5 {
            attempt("connect \(index)") {
                let session = try store.startConnectSession(
                    projectId: shop.id, tokenHash: SecretHash(of: "connect-\(index)"),
                    hint: "fpc_\(index)\u{0}",
                    now: later(Int64(index)), lifetimeSeconds: index == 1 ? 0 : 600, limits: limits,
                    firstEventSequence: Int64(index * 10))
                sessions.append(session)
                return session
            }
        }
        attempt("connect no project") {
            try store.startConnectSession(
                projectId: 999, tokenHash: SecretHash(of: "x"), hint: "fpc_x", now: start,
                lifetimeSeconds: 60,
                limits: limits, firstEventSequence: 0)
        }
        note("end", try store.endConnectSession(id: sessions[0].id, projectId: shop.id, at: later(30)) as Any)
        note(
            "end again",
            try store.endConnectSession(id: sessions[0].id, projectId: shop.id, at: later(40)) as Any)
        note(
            "end elsewhere",
            try store.endConnectSession(id: sessions[2].id, projectId: other.id, at: later(40)) as Any)
        for index in 5..<9 {
            attempt("connect \(index)") {
                let session = try store.startConnectSession(
                    projectId: shop.id, tokenHash: SecretHash(of: "connect-\(index)"), hint: "fpc_\(index)",
                    now: later(1000 + Int64(index)), lifetimeSeconds: 600, limits: limits,
                    firstEventSequence: Int64(index))
                sessions.append(session)
                return session
            }
        }
        note("connect sessions", try store.connectSessions(projectId: shop.id))
        note("by connect token", try store.connectSession(tokenHash: SecretHash(of: "connect-6")) as Any)
        note(
            "by wrong connect token", try store.connectSession(tokenHash: SecretHash(of: "connect-66")) as Any
        )
        note("by id", try store.connectSession(id: sessions[5].id, projectId: shop.id) as Any)
        note("by id elsewhere", try store.connectSession(id: sessions[5].id, projectId: other.id) as Any)

        // Snapshots: resends are one, bounded per session, per project and in bytes; the newest
        // of each screen goes last.
        var retention = SnapshotRetention()
        retention.perSession = 4
        retention.perProject = 6
        retention.bytesPerProject = 3_000
        let session = sessions[5].id
        for index in 0..<12 {
            let record = SnapshotRecord(
                projectId: shop.id, connectSessionId: index < 9 ? session : sessions[6].id,
                snapshotId: "snap-\(index % 10)", anonymousId: index % 3 == 0 ? "device-\u{0}a" : "device-b",
                userId: index % 4 == 0 ? "user-\u{E9}" : nil,
                page: ["Home", "Detail", "h\u{0}me"][index % 3],
                appVersion: index < 6 ? "1.0" : "2.0", takenAt: later(2000 + Int64(index)),
                receivedAt: later(2100 + Int64(index)), elementCount: index, document: "{\"i\":\(index)}",
                image: index % 2 == 0
                    ? SnapshotImage(
                        format: "png", width: 2, height: 3, data: [UInt8](repeating: 7, count: 300 + index))
                    : nil)
            note("snapshot \(index)", try store.storeSnapshot(record, retention: retention))
        }
        note("screens", try store.screens(projectId: shop.id))
        note("screens elsewhere", try store.screens(projectId: other.id))
        note(
            "page snapshots",
            try store.snapshots(projectId: shop.id, page: "Home", appVersion: "2.0", limit: 10))
        note(
            "page snapshots limited",
            try store.snapshots(projectId: shop.id, page: "Detail", appVersion: "1.0", limit: 1))
        note(
            "session snapshots",
            try store.snapshots(projectId: shop.id, connectSessionId: session, after: 0, limit: 10))
        note(
            "session snapshots after",
            try store.snapshots(projectId: shop.id, connectSessionId: session, after: 8, limit: 2))
        let kept = try store.snapshots(projectId: shop.id, connectSessionId: session, after: 0, limit: 100)
        for summary in kept {
            note("snapshot doc \(summary.id)", try store.snapshot(id: summary.id, projectId: shop.id) as Any)
            note(
                "snapshot image \(summary.id)",
                try store.snapshotImage(id: summary.id, projectId: shop.id) as Any)
        }
        note("snapshot elsewhere", try store.snapshot(id: kept[0].id, projectId: other.id) as Any)
        note("devices", try store.connectSessionDevices(connectSessionId: session).sorted())
        note("sessions with snapshots", try store.connectSessions(projectId: shop.id))

        // Deletion log and refused ids.
        note("no deletions", try store.deletedIds().isEmpty)
        let selection = PersonSelection(id: "user-\u{E9}", links: ["device-\u{0}a": "user-\u{E9}"])
        note("export", try store.exportSnapshots(of: selection, projectId: shop.id))
        let request = PersonDeletion.Request(
            requestedBy: "admin-token\u{0}", at: later(3000), refuseForDays: 2)
        let deletion = try store.logPersonDeletion(
            selection, id: "device-\u{0}a", projectId: shop.id, request: request, events: 5, identityLinks: 1,
            elapsedMilliseconds: 7, logged: true)
        note("deletion", deletion.jsonValue)
        _ = try store.logPersonDeletion(
            PersonSelection(id: "quiet", links: [:]), id: "quiet", projectId: other.id,
            request: PersonDeletion.Request(requestedBy: "cli", at: later(3001)), events: 0, identityLinks: 0,
            elapsedMilliseconds: 0, logged: false)
        note("export after", try store.exportSnapshots(of: selection, projectId: shop.id))
        note("screens after deletion", try store.screens(projectId: shop.id))
        let refused = try store.deletedIds()
        for (id, project, time) in [
            ("user-\u{E9}", shop.id, later(3001)), ("device-\u{0}a", shop.id, later(3001)),
            ("device-b", shop.id, later(3001)), ("user-\u{E9}", other.id, later(3001)),
            ("user-\u{E9}", shop.id, later(3000 + 2 * 86_400)), ("quiet", other.id, later(3002)),
        ] {
            note(
                "refuses \(id.debugDescription) \(project) \(time)",
                refused.refuses(anonymousId: id, userId: nil, project: project, at: time))
        }
        note("deletion log", try subject.personDeletions(shop.id))
        note("deletion log quiet", try subject.personDeletions(other.id))

        // Retention: own days, the default, horizons never moving back, snapshots before a day.
        note("no retention", try store.anyProjectHasRetention())
        attempt("retention 0") { try subject.setRetentionDays(0, shop.id) }
        try subject.setRetentionDays(30, shop.id)
        note("has retention", try store.anyProjectHasRetention())
        let now = Timestamp(iso8601: "2026-12-01T10:00:00.000Z")!
        note(
            "horizons default",
            try store.retentionHorizons(defaultDays: nil, now: now).map { "\($0.project.id) \($0.day)" })
        note(
            "horizons",
            try store.retentionHorizons(defaultDays: 7, now: now).map { "\($0.project.id) \($0.day)" })
        note("horizon none", try store.retentionHorizon(projectId: shop.id) as Any)
        try store.recordRetentionHorizon(projectId: shop.id, day: 20_000)
        try store.recordRetentionHorizon(projectId: shop.id, day: 19_000)
        note("horizon", try store.retentionHorizon(projectId: shop.id) as Any)
        try subject.setRetentionDays(nil, shop.id)
        note("retention cleared", try store.anyProjectHasRetention())
        note("horizon kept", try store.retentionHorizon(projectId: shop.id) as Any)
        let snapshotDay = later(2105).dayNumber
        note("delete before day", try store.deleteSnapshots(projectId: shop.id, beforeDay: snapshotDay))
        note("delete after day", try store.deleteSnapshots(projectId: shop.id, beforeDay: snapshotDay + 1))
        note("screens at the end", try store.screens(projectId: shop.id))
        return lines
    }
}

/// `postgres://` locations: what they accept, and that the password never shows.
@Suite struct PostgresLocationTests {
    @Test func aURLIsReadAndItsPasswordHidden() throws {
        let location = try PostgresLocation(url: "postgres://fp%40user:s%3Acret@db.example:5433/footprint")
        #expect(location.user == "fp@user" && location.password == "s:cret")
        #expect(location.node == .init(host: "db.example", port: 5433) && location.database == "footprint")
        #expect(!location.description.contains("cret"))
        let stored = try StoreLocation("postgresql://fp:secret@127.0.0.1:5432/meta")
        #expect(stored.postgres?.password == "secret")
        #expect(stored.description == "postgres://fp@127.0.0.1:5432/meta")
        let fromEnvironment = try PostgresLocation(
            url: "postgres://127.0.0.1:5432/meta",
            environment: ["FOOTPRINT_POSTGRES_USER": "fp", "FOOTPRINT_POSTGRES_PASSWORD": "hidden"])
        #expect(fromEnvironment.user == "fp" && fromEnvironment.password == "hidden")
        #expect(!fromEnvironment.description.contains("hidden"))
    }

    @Test(arguments: [
        "postgres://127.0.0.1:5432/meta", "postgres://fp@127.0.0.1/meta", "postgres://fp@127.0.0.1:5432/",
        "postgres://fp@127.0.0.1:5432/me;ta", "postgres://fp:%zz@127.0.0.1:5432/meta",
        "postgres://fp@127.0.0.1:5432/meta?sslmode=disable", "postgres://f%00p@127.0.0.1:5432/meta",
    ])
    func aBadURLIsRefusedWithoutItsPassword(url: String) {
        #expect(throws: ServerError.self) { try PostgresLocation(url: url) }
        do {
            _ = try StoreLocation(url)
        } catch {
            #expect(error.code == .invalidStore)
            #expect(!error.message.contains("%zz"))
        }
    }
}
