import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

extension CommandLineTests {
    /// `footprint migrate --to clickhouse://… --meta postgres://…` moves a single-node file in;
    /// a collector started afterwards with only the URLs, on an empty folder, serves the
    /// migrated project: its keys, its read token, a browser's dashboard session, its published
    /// plan, its events.
    /// (Named `…ClickHouse…` so that `make test` runs it with the cluster suites.)
    @Test(
        .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason),
        .enabled(if: PostgresTesting.isAvailable, PostgresTesting.reason))
    func migrateIntoClickHouseAndPostgreSQLThenServeWithOnlyTheURLs() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/single.sqlite"
        let fixture = try { () throws -> MetadataMigrationTests.Fixture in
            let file = try SQLiteEventStore(path: database)
            defer { file.close() }
            let fixture = try MetadataMigrationTests.fill(file, recordsEventStore: false)
            _ = try file.storeConfig(
                projectId: fixture.shop.id, document: #"{"version": 4, "pageMode": "all"}"#,
                at: MetadataMigrationTests.time)
            return fixture
        }()
        let generated = try run(["generate", "--events", "20", "--db", database, "--project", "shop"])
        #expect(generated.status == 0, "\(generated.error)")
        let generatedEvents = try { () throws -> Int in
            let file = try SQLiteEventStore(path: database)
            defer { file.close() }
            return try file.eventCount(projectId: fixture.shop.id)
        }()
        #expect(generatedEvents >= 20)
        let clickHouse = try ClickHouseTesting.newLocation()
        let postgres = try PostgresTesting.newDatabase()
        defer { PostgresTesting.dropDatabase(postgres) }
        let url = "postgres://\(postgres.user)@\(postgres.node)/\(postgres.database)"

        let migrated = try run(["migrate", "--from", database, "--to", clickHouse.description, "--meta", url])
        #expect(migrated.status == 0, "\(migrated.output) \(migrated.error)")

        let collector = try TestServer { configuration in
            configuration.postgres = postgres
            configuration.clickHouse = clickHouse
            configuration.defaultProjectName = nil
        }
        defer {
            try? (collector.server.stores.events as? ClickHouseEventStore)?.dropDatabase()
            collector.shutDown()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: collector.directory).isEmpty)
        for key in [fixture.shop.writeKey, fixture.secondKey] {
            let batch = Payloads.batch([Payloads.track("after-\(key)")])
            #expect(try collector.client.post("/v1/batch", json: batch, writeKey: key).status == 200)
        }
        let stored = try collector.server.stores.events.eventCount(projectId: fixture.shop.id)
        #expect(
            stored == generatedEvents + 2,
            "\(stored) stored, \(generatedEvents) generated; \(migrated.output)")
        let plan = try collector.client.send(
            "GET", "/v1/config", headers: ["Authorization": LoopbackClient.basic(fixture.shop.writeKey)])
        #expect(plan.status == 200 && plan.text.contains("\"version\""), "\(plan.text)")
        #expect(plan.text.contains("all"), "\(plan.text)")
        let report = try collector.client.send(
            "GET", "/v1/reports/traffic?project=shop",
            headers: ["Authorization": "Bearer \(fixture.readToken)"])
        #expect(report.status == 200, "\(report.text)")
        let signedIn = try collector.client.send(
            "GET", "/", headers: ["Cookie": "fp_session=\(MetadataMigrationTests.dashboardSessionId)"])
        #expect(signedIn.status == 200, "\(signedIn.status) \(signedIn.headers)")

        // The operator's commands take the same URLs: the project list counts the events in
        // ClickHouse, the metadata read from PostgreSQL.
        let listed = try run(["projects", "list", "--meta", url, "--store", clickHouse.description])
        #expect(listed.status == 0, "\(listed.error)")
        let shopLine = listed.output.split(separator: "\n").first { $0.hasPrefix("shop ") }
        #expect(
            shopLine?.split(separator: " ").contains(Substring(String(stored))) == true, "\(listed.output)")
        // The report: the project from PostgreSQL, its events from ClickHouse.
        let reported = try run(
            ["report", "--meta", url, "--store", clickHouse.description, "--project", "shop", "--json"])
        #expect(reported.status == 0, "\(reported.error)")
        let overview = try JSONDecoder().decode(Report.self, from: Data(reported.output.utf8))
        #expect(overview.project == "shop" && overview.totalEvents == stored, "\(reported.output)")
        // A plan published into PostgreSQL reaches the running collector within its cache interval.
        let planFile = directory + "/plan.json"
        try Data(#"{"version": 1, "pageMode": "configured"}"#.utf8).write(to: URL(fileURLWithPath: planFile))
        let published = try run(["config", "publish", planFile, "--meta", url, "--project", "shop", "--json"])
        try #require(published.status == 0, "\(published.error)")
        let version = try JSONDecoder().decode(RemoteConfigVersion.self, from: Data(published.output.utf8))
        try StalenessProbe(bound: 1.01).measure(since: Date()) {
            let served = try collector.client.send(
                "GET", "/v1/config", headers: ["Authorization": LoopbackClient.basic(fixture.shop.writeKey)])
            return served.status == 200 && served.headers["etag"] == version.etag
        }
    }
}
