import FootprintSQLite
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// `footprint migrate --meta`'s copy (``MetadataMigration``) from a real SQLite file into a real
/// PostgreSQL database: every table equal, keys and tokens working, a second run a no-op, an
/// interrupted run completed by the next, another deployment's database refused.
@Suite(.enabled(if: PostgresTesting.isAvailable, PostgresTesting.reason))
struct MetadataMigrationTests {
    static let time = Timestamp(iso8601: "2026-11-03T12:00:00.000Z")!
    /// The dashboard session ``fill(_:recordsEventStore:)`` starts (a browser's `fp_session` cookie).
    static let dashboardSessionId = "session-secret"

    /// What ``fill(_:)`` made that only the caller knows: secrets, hashes and ids.
    struct Fixture {
        var shop: Project
        var other: Project
        var secondKey: String
        var readToken: String
        var dashboardSession: SecretHash
        var connectToken: String
        var connectSession: ConnectSession
        /// The id SQLite gave the last snapshot, since deleted.
        var lastSnapshotId: Int64
    }

    /// A metadata file with a row in every table the copy knows, hostile text included, and
    /// deletions that leave holes in the ids; `recordsEventStore` records a ClickHouse store
    /// (then the file takes no events of its own).
    static func fill(_ file: SQLiteEventStore, recordsEventStore: Bool = true) throws -> Fixture {
        let shop = try file.createProject(named: "shop")
        let other = try file.createProject(named: PostgresMetadataStoreTests.hostileName)
        let secondKey = try file.createWriteKey(projectId: shop.id, at: time).key
        for version in 1...3 {
            _ = try file.storeConfig(projectId: shop.id, document: "{\"version\": \(version)}", at: time)
        }
        _ = try file.storeConfig(projectId: other.id, document: "{\"v\": \"\u{0}\u{E9}\"}", at: time)
        for id in ["checkout", "pay.v2"] {
            let json: JSONValue = [
                "id": .string(id), "name": .string("Checkout \u{E9} \(id)"),
                "matchers": [["event": "$element_click", "path": "Cart/Button[0]"]],
            ]
            try file.saveEventDefinition(EventDefinition(json: json), projectId: shop.id, at: time)
        }
        try file.setRetentionDays(30, projectId: shop.id)
        try file.recordRetentionHorizon(projectId: other.id, day: 20_000)
        let (_, readToken) = try file.createReadToken(projectId: shop.id, at: time)
        let (revoked, _) = try file.createReadToken(projectId: other.id, at: time)
        _ = try file.createReadToken(projectId: other.id, at: time)
        try file.revokeReadToken(id: revoked.id)
        let dashboardSession = SecretHash(of: dashboardSessionId)
        try file.startDashboardSession(
            dashboardSession, expires: Timestamp(iso8601: "2099-01-01T00:00:00.000Z")!, now: time,
            maximumSessions: 10)
        let connectToken = "fpc_0123456789abcdef0123456789abcdef"
        let connectSession = try file.startConnectSession(
            projectId: shop.id, tokenHash: SecretHash(of: connectToken), hint: "fpc_0123",
            now: Timestamp(iso8601: "2099-01-01T00:00:00.000Z")!, lifetimeSeconds: 600,
            limits: ConnectSession.Limits(),
            firstEventSequence: 7)
        var lastSnapshotId: Int64 = 0
        for (index, device) in ["device-1", "device-1", "doomed"].enumerated() {
            var record = SnapshotSamples.record(
                projectId: shop.id, sessionId: connectSession.id, page: index == 1 ? "Cart\u{0}" : "Detail",
                imageBytes: index == 0 ? 70_000 : 0, at: time)
            record.anonymousId = device
            lastSnapshotId = try file.storeSnapshot(record, retention: SnapshotRetention()).id
        }
        _ = try file.logPersonDeletion(
            PersonSelection(id: "doomed", links: [:]), id: "doomed", projectId: shop.id,
            request: PersonDeletion.Request(requestedBy: "admin", at: time, refuseForDays: 2), events: 3,
            identityLinks: 0, elapsedMilliseconds: 1, logged: true)
        if recordsEventStore {
            try file.recordEventStore(ClickHouseLocation(url: "clickhouse://127.0.0.1:9/footprint"), at: time)
        }
        return Fixture(
            shop: shop, other: other, secondKey: secondKey, readToken: readToken,
            dashboardSession: dashboardSession,
            connectToken: connectToken, connectSession: connectSession, lastSnapshotId: lastSnapshotId)
    }

    /// Every row of every copied table of the file, in key order.
    static func rows(of file: SQLiteEventStore) throws -> [String: [[PostgresValue]]] {
        var rows: [String: [[PostgresValue]]] = [:]
        for table in MetadataTable.all {
            rows[table.name] = try file.read { database in
                try database.prepare(table.selectSource(afterKey: false)).rows([]) { row in
                    table.columns.indices.map { table.sourceValue(row, at: $0) }
                }
            }
        }
        rows["people_salt"] = try file.read { database in
            try database.prepare("SELECT salt FROM people_salt").rows([]) {
                [PostgresValue.bytes($0.blob(at: 0))]
            }
        }
        return rows
    }

    /// Every row of the same tables in PostgreSQL (`store_state`: only what the file records).
    static func rows(of store: PostgresMetadataStore) throws -> [String: [[PostgresValue]]] {
        var rows: [String: [[PostgresValue]]] = [:]
        for table in MetadataTable.all {
            let keys = table.key.map(\.name).joined(separator: ", ")
            rows[table.name] = try store.perform { connection in
                try connection.query(
                    "SELECT \(table.columns.map(\.name).joined(separator: ", ")) FROM \(table.name) "
                        + (table.name == "store_state"
                            ? "WHERE substr(key, 1, 10) = 'events_in '::bytea " : "")
                        + "ORDER BY \(keys)"
                ) { row in try table.columns.indices.map { try table.targetValue(row, at: $0) } }
            }
        }
        rows["people_salt"] = try store.perform { connection in
            try connection.query("SELECT salt FROM people_salt") {
                [PostgresValue.bytes(try $0.bytes(at: 0) ?? [])]
            }
        }
        return rows
    }

    /// Runs `body` with a filled metadata file and an empty PostgreSQL database.
    static func withSourceAndTarget(
        _ body: (SQLiteEventStore, Fixture, PostgresMetadataStore) throws -> Void
    ) throws {
        try withTemporaryDatabase("footprint-meta-migrate") { path in
            let file = try SQLiteEventStore(path: path)
            defer { file.close() }
            let fixture = try fill(file)
            try PostgresTesting.withStore { target in try body(file, fixture, target) }
        }
    }

    /// Expects the file and the target to answer `call` alike.
    static func expectAlike<T: Equatable>(
        _ file: SQLiteEventStore, _ target: PostgresMetadataStore,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ call: (any MetadataStore) throws -> T
    ) throws {
        #expect(try call(target) == call(file), sourceLocation: sourceLocation)
    }

    @Test func everyTableIsCopiedEqualAndEveryKeyAndTokenWorks() throws {
        try Self.withSourceAndTarget { file, fixture, target in
            let started = Date()
            let result = try MetadataMigration(from: file, to: target).run()
            let seconds = Date().timeIntervalSince(started)
            #expect(result.finished && result.finishedBefore == nil)
            #expect(result.newRows == result.totalRows && result.presentRows == 0)
            let expected = try Self.rows(of: file)
            let copied = try Self.rows(of: target)
            for table in MetadataTable.all.map(\.name) + ["people_salt"] {
                #expect(expected[table]?.isEmpty == false, "the fixture leaves \(table) empty")
                #expect(copied[table] == expected[table], "\(table)")
            }
            print("copied \(result.totalRows) metadata rows in \(String(format: "%.3f", seconds)) s")

            // Through the store's calls, as a collector on the target answers them.
            #expect(try target.projects() == file.projects())
            #expect(try target.project(writeKey: fixture.shop.writeKey) == fixture.shop)
            #expect(try target.project(writeKey: fixture.secondKey)?.id == fixture.shop.id)
            #expect(
                try target.writeKeys(projectId: fixture.shop.id) == file.writeKeys(projectId: fixture.shop.id)
            )
            let byToken = try target.project(readTokenHash: SecretHash(of: fixture.readToken))
            #expect(byToken?.id == fixture.shop.id)
            #expect(try byToken == file.project(readTokenHash: SecretHash(of: fixture.readToken)))
            #expect(try target.readTokens() == file.readTokens())
            #expect(try target.dashboardSessionExpiry(fixture.dashboardSession, now: Self.time) != nil)
            #expect(try target.latestConfig(projectId: fixture.shop.id)?.version == 3)
            for project in [fixture.shop, fixture.other] {
                try Self.expectAlike(file, target) { try $0.configVersions(projectId: project.id) }
                try Self.expectAlike(file, target) { try $0.eventDefinitions(projectId: project.id) }
                try Self.expectAlike(file, target) { try $0.retentionHorizon(projectId: project.id) }
                try Self.expectAlike(file, target) { try $0.connectSessions(projectId: project.id) }
                try Self.expectAlike(file, target) { try $0.screens(projectId: project.id) }
                #expect(
                    try target.retentionDays(projectId: project.id)
                        == file.retentionDays(projectId: project.id))
                #expect(
                    try target.personDeletions(projectId: project.id)
                        == file.personDeletions(projectId: project.id))
            }
            #expect(
                try target.connectSession(tokenHash: SecretHash(of: fixture.connectToken))?.id
                    == fixture.connectSession.id)
            let snapshot = try #require(try file.screens(projectId: fixture.shop.id).first?.latest.id)
            #expect(
                try target.snapshotImage(id: snapshot, projectId: fixture.shop.id)
                    == file.snapshotImage(id: snapshot, projectId: fixture.shop.id))
            let refused = try target.deletedIds()
            #expect(refused.salt == (try file.deletedIds().salt))
            #expect(
                refused.refuses(anonymousId: "doomed", userId: nil, project: fixture.shop.id, at: Self.time))
            #expect(try target.eventStoreLocation() == file.eventStoreLocation())

            // New rows get ids past every id the file gave out, the deleted snapshot's too.
            #expect(try target.createProject(named: "new").id > fixture.other.id)
            let (token, _) = try target.createReadToken(projectId: fixture.shop.id, at: Self.time)
            #expect(token.id > (try file.readTokens().map(\.id).max() ?? 0))
            let snapshotWrite = try target.storeSnapshot(
                SnapshotSamples.record(
                    projectId: fixture.shop.id, sessionId: fixture.connectSession.id, at: Self.time),
                retention: SnapshotRetention())
            #expect(snapshotWrite.id > fixture.lastSnapshotId)
        }
    }

    @Test func aSecondRunCopiesNothingAndChangesNothing() throws {
        try Self.withSourceAndTarget { file, fixture, target in
            try MetadataMigration(from: file, to: target).run()
            // A key revoked on the target after the copy stays revoked.
            let newKey = try target.createWriteKey(projectId: fixture.shop.id, at: Self.time)
            try target.revokeWriteKey(fixture.secondKey)
            let before = try Self.rows(of: target)
            let again = try MetadataMigration(from: file, to: target).run()
            #expect(again.finishedBefore != nil && again.copiedRows == 0)
            #expect(try Self.rows(of: target) == before)
            #expect(try target.project(writeKey: fixture.secondKey) == nil)
            #expect(try target.project(writeKey: newKey.key)?.id == fixture.shop.id)
        }
    }

    @Test(arguments: [1, 3, 8])
    func anInterruptedRunIsCompletedByTheNext(interruptAt: Int) throws {
        try Self.withSourceAndTarget { file, _, target in
            var configuration = MetadataMigration.Configuration()
            configuration.chunkRows = 2
            var calls = 0
            let interruption = ServerError(code: .unavailable, message: "interrupted")
            let stopped = #expect(throws: ServerError.self) {
                try MetadataMigration(from: file, to: target, configuration: configuration).run {
                    _ throws(ServerError) in
                    calls += 1
                    if calls == interruptAt { throw interruption }
                }
            }
            #expect(stopped == interruption)
            let partial = try Self.rows(of: target)
            #expect(partial != (try Self.rows(of: file)))
            let resumed = try MetadataMigration(from: file, to: target, configuration: configuration).run()
            #expect(resumed.finished && resumed.finishedBefore == nil)
            #expect(resumed.presentRows > 0 || interruptAt == 1)
            #expect(resumed.newRows + resumed.presentRows == resumed.totalRows)
            #expect(try Self.rows(of: target) == (try Self.rows(of: file)))
        }
    }

    @Test func aTargetHoldingAnotherProjectWithTheSameIdIsRefused() throws {
        try Self.withSourceAndTarget { file, fixture, target in
            let theirs = try target.createProject(named: "default")
            #expect(theirs.id == fixture.shop.id)
            let refused = #expect(throws: ServerError.self) {
                try MetadataMigration(from: file, to: target).run()
            }
            #expect(refused?.code == .conflict)
            #expect(refused?.message.contains("project 1 is default") == true, "\(refused?.message ?? "")")
            // Nothing merged: the target holds its own project and key only.
            #expect(try target.projects() == [theirs])
            #expect(try target.project(writeKey: fixture.shop.writeKey) == nil)
            #expect(try target.readTokens().isEmpty)
        }
    }

    @Test func aRowChangedInThePartialTargetIsRefusedByName() throws {
        try Self.withSourceAndTarget { file, fixture, target in
            var configuration = MetadataMigration.Configuration()
            configuration.chunkRows = 2
            var calls = 0
            _ = try? MetadataMigration(from: file, to: target, configuration: configuration).run {
                _ throws(ServerError) in
                calls += 1
                // After the checks, the projects, two chunks of keys and the first of configs.
                if calls == 5 { throw ServerError(code: .unavailable, message: "interrupted") }
            }
            let changed = try target.perform { connection in
                try connection.run(
                    "UPDATE config_versions SET document = $1 WHERE project_id = $2 AND version = 1",
                    [.text("{\"theirs\": true}"), .integer(fixture.shop.id)])
            }
            #expect(changed == 1)
            let refused = #expect(throws: ServerError.self) {
                try MetadataMigration(from: file, to: target, configuration: configuration).run()
            }
            #expect(refused?.code == .conflict)
            #expect(
                refused?.message.contains("config_versions(project_id=1, version=1)") == true,
                "\(refused?.message ?? "")")
        }
    }

    /// Every table of the PostgreSQL schema but its own bookkeeping is copied, with every column.
    @Test func theCopyKnowsEveryMetadataTableAndColumn() throws {
        try PostgresTesting.withStore { store in
            let columns = try store.perform { connection in
                try connection.query(
                    """
                    SELECT table_name::text::bytea, column_name::text::bytea FROM information_schema.columns
                    WHERE table_schema = 'public' ORDER BY table_name, ordinal_position
                    """
                ) { (try $0.text(at: 0) ?? "", try $0.text(at: 1) ?? "") }
            }
            var byTable: [String: Set<String>] = [:]
            for (table, column) in columns { byTable[table, default: []].insert(column) }
            for own in ["footprint_schema", "metadata_revision", "people_salt"] { byTable[own] = nil }
            #expect(Set(byTable.keys) == Set(MetadataTable.all.map(\.name)))
            for table in MetadataTable.all {
                #expect(byTable[table.name] == Set(table.columns.map(\.name)), "\(table.name)")
            }
        }
    }
}
