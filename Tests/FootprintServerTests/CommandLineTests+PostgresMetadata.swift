import Foundation
import Testing

@testable import FootprintServer

extension CommandLineTests {
    /// `footprint serve --store clickhouse://… --meta postgres://…` keeps no file: its default
    /// project is made in PostgreSQL. (Named `…ClickHouse…` so that `make test` runs it with the
    /// cluster suites.)
    @Test(
        .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason),
        .enabled(if: PostgresTesting.isAvailable, PostgresTesting.reason))
    func serveWithClickHouseEventsKeepsItsMetadataInPostgreSQL() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clickHouse = try ClickHouseTesting.newLocation()
        let postgres = try PostgresTesting.newDatabase()
        defer {
            PostgresTesting.dropDatabase(postgres)
            ClickHouseTestEnvironment.dropDatabase(
                clickHouse.database, url: (try? ClickHouseTestEnvironment.requireURL()) ?? "")
        }
        let url = "postgres://\(postgres.user)@\(postgres.node)/\(postgres.database)"
        let served = try run(
            ["serve", "--store", clickHouse.description, "--meta", url, "--port", "0"],
            signalAfterStart: SIGTERM, currentDirectory: directory)
        #expect(served.status == 0, "\(served.output) \(served.error)")
        #expect(served.output.contains("metadata:  \(url) (PostgreSQL)"), "\(served.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        let store = try PostgresMetadataStore(location: postgres)
        defer { store.close() }
        #expect(try store.projects().map(\.name) == ["default"])
    }

    /// `footprint config publish --meta` stores the plan in PostgreSQL, where a collector's cached
    /// metadata (a store of its own on the database, as `serve --meta` opens it, its copy read
    /// before) serves it within the cache interval; an invalid plan stores nothing.
    @Test(.enabled(if: PostgresTesting.isAvailable, PostgresTesting.reason))
    func aPlanPublishedIntoThePostgreSQLMetadataReachesACollectorWithinTheInterval() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let postgres = try PostgresTesting.newDatabase()
        defer { PostgresTesting.dropDatabase(postgres) }
        var configuration = PostgresMetadataStore.Configuration()
        configuration.cacheSeconds = 1
        let collector = try PostgresMetadataStore(location: postgres, configuration: configuration)
        defer { collector.close() }
        let first = try collector.createProject(named: "default")
        let shop = try collector.createProject(named: "shop")
        #expect(try collector.latestConfig(projectId: shop.id) == nil)
        let meta = ["--meta", "postgres://\(postgres.user)@\(postgres.node)/\(postgres.database)"]
        let plan = directory + "/plan.json"
        try Data(#"{"version": 1, "pageMode": "all"}"#.utf8).write(to: URL(fileURLWithPath: plan))

        let published = try run(["config", "publish", plan, "--project", "shop", "--json"] + meta)
        #expect(published.status == 0, "\(published.error)")
        let version = try JSONDecoder().decode(RemoteConfigVersion.self, from: Data(published.output.utf8))
        #expect(version.version == 1 && version.document.contains("all"), "\(published.output)")
        try StalenessProbe(bound: configuration.cacheSeconds + 0.01).measure(since: Date()) {
            try collector.latestConfig(projectId: shop.id) == version
        }
        let text = try run(["config", "publish", plan, "--project", "shop"] + meta)
        #expect(text.output.contains("Published config version 2 for project shop"), "\(text.error)")
        // Nothing on standard error: no NOTICE of the schema's tables that already exist.
        #expect(published.error.isEmpty && text.error.isEmpty, "\(published.error) \(text.error)")

        let bad = directory + "/bad.json"
        try Data(#"{"version": 1, "pages": []}"#.utf8).write(to: URL(fileURLWithPath: bad))
        let refused = try run(["config", "publish", bad, "--project", "shop"] + meta)
        #expect(refused.status != 0 && refused.error.contains("pages"), "\(refused.error)")
        #expect(try collector.configVersions(projectId: shop.id).map(\.version) == [2, 1])
        // Without --project, the first project; --db beside --meta is refused.
        #expect(try run(["config", "publish", plan] + meta).status == 0)
        #expect(try collector.configVersions(projectId: first.id).count == 1)
        let both = try run(["config", "publish", plan, "--db", directory + "/x.sqlite"] + meta)
        #expect(both.status == 64 && both.error.contains("give one"), "\(both.error)")
    }

    /// `report --meta` reads the events where they are, so it needs `--store clickhouse://…`;
    /// `backup` copies a SQLite file and refuses the stores of a ClickHouse deployment, naming
    /// the tools that back them up. Nothing is connected to.
    @Test(arguments: [
        (["report", "--meta", "postgres://fp@127.0.0.1:1/meta"], "needs --store clickhouse://"),
        (
            [
                "report", "--meta", "postgres://fp@127.0.0.1:1/meta", "--store",
                "clickhouse://127.0.0.1:1/fp", "--db", "x",
            ],
            "give one"
        ),
        (
            ["backup", "--to", "copy.sqlite", "--meta", "postgres://fp@127.0.0.1:1/meta"],
            "--meta: backup copies"
        ),
        (
            ["backup", "--to", "copy.sqlite", "--store", "clickhouse://127.0.0.1:1/fp"],
            "--store: backup copies"
        ),
    ])
    func theMetadataOptionIsRefusedWhereItCannotServe(_ arguments: [String], _ says: String) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(arguments, currentDirectory: directory)
        #expect(result.status == 64, "\(result.output) \(result.error)")
        #expect(result.error.contains(says), "\(result.error)")
        if arguments[0] == "backup" {
            #expect(result.error.contains("pg_dump") && result.error.contains("FREEZE"), "\(result.error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    /// `--meta-cache-interval` is for the PostgreSQL metadata only, and at most 5 s (issue 28's
    /// bound); nothing is connected to before the arguments are checked.
    @Test(arguments: [
        ["--meta-cache-interval", "500"],
        [
            "--meta-cache-interval", "5001", "--meta", "postgres://fp@127.0.0.1:1/meta", "--store",
            "clickhouse://127.0.0.1:1/footprint",
        ],
        [
            "--meta-cache-interval", "-1", "--meta", "postgres://fp@127.0.0.1:1/meta", "--store",
            "clickhouse://127.0.0.1:1/footprint",
        ],
    ])
    func aMetadataCacheIntervalNeedsPostgreSQLAndAtMostFiveSeconds(_ arguments: [String]) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(["serve", "--port", "0"] + arguments, currentDirectory: directory)
        #expect(result.status == 64, "\(result.output) \(result.error)")
        #expect(result.error.contains(arguments[0]), "\(result.error)")
        #expect(try run(["serve", "--help"]).output.contains("--meta-cache-interval"))
    }
}
