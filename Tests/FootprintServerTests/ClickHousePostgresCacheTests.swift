import FootprintServer
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// Two collectors (servers on loopback ports, each on an empty folder) sharing metadata in
/// PostgreSQL and events in ClickHouse: what one is told reaches the other within the cache
/// interval, and a stopped PostgreSQL stops everything but ingest for cached keys. (Named
/// `ClickHouse…` so that `make test` runs it with the cluster suites.)
@Suite(
    .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason),
    .enabled(if: PostgresTesting.isAvailable, PostgresTesting.reason))
struct ClickHousePostgresCacheTests {
    static let interval = 1.0
    /// The interval plus the clock's millisecond rounding.
    static let probe = StalenessProbe(bound: interval + 0.01)

    /// A collector on `postgres` and `clickHouse`, with the cache interval of this suite.
    static func collector(postgres: PostgresLocation, clickHouse: ClickHouseLocation) throws -> TestServer {
        try TestServer { configuration in
            configuration.postgres = postgres
            configuration.clickHouse = clickHouse
            configuration.postgresStore.cacheSeconds = interval
            configuration.postgresStore.connectTimeoutSeconds = 2
        }
    }

    static func batch(_ id: String) -> String {
        Payloads.batch([Payloads.track(id)])
    }

    @Test func whatOneCollectorIsToldReachesTheOtherWithinTheInterval() throws {
        let clickHouse = try ClickHouseTesting.newLocation()
        let postgres = try PostgresTesting.newDatabase()
        defer { PostgresTesting.dropDatabase(postgres) }
        let a = try Self.collector(postgres: postgres, clickHouse: clickHouse)
        defer {
            try? (a.server.stores.events as? ClickHouseEventStore)?.dropDatabase()
            a.shutDown()
        }
        // B starts on an empty folder, with only the URLs, and serves A's project at once.
        let b = try Self.collector(postgres: postgres, clickHouse: clickHouse)
        defer { b.shutDown() }
        #expect(b.writeKey == a.writeKey)
        #expect(try b.client.post("/v1/batch", json: Self.batch("m-0"), writeKey: a.writeKey).status == 200)
        #expect(try FileManager.default.contentsOfDirectory(atPath: b.directory).isEmpty)

        // A key made through A works through B at once.
        let shop = try a.server.stores.metadata.createProject(named: "shop")
        #expect(
            try b.client.post("/v1/batch", json: Self.batch("m-1"), writeKey: shop.writeKey).status == 200)

        // A plan published through A: B serves it within the interval.
        let published = try a.client.send(
            "POST", "/v1/configs?project=shop",
            headers: ["Authorization": "Bearer \(a.server.access.adminToken)"],
            body: Array(#"{"version": 1, "pageMode": "all"}"#.utf8))
        try #require(published.status == 200, "\(published.text)")
        let publishedAt = Date()
        let etag = try #require(try Self.config(a, key: shop.writeKey).headers["etag"])
        let planSeen = try Self.probe.measure(since: publishedAt) {
            try Self.config(b, key: shop.writeKey).headers["etag"] == etag
        }

        // A key rotated through A (its successor made, then the old one revoked, as
        // `footprint keys` does): the old one refused by both within the interval.
        let newKey = try a.server.stores.metadata.createWriteKey(projectId: shop.id, at: SystemClock().now())
            .key
        try a.server.stores.metadata.revokeWriteKey(shop.writeKey)
        let revokedAt = Date()
        var revokedSeen: [TimeInterval] = []
        for (index, collector) in [a, b].enumerated() {
            revokedSeen.append(
                try Self.probe.measure(since: revokedAt) {
                    try collector.client.post(
                        "/v1/batch", json: Self.batch("r-\(index)"), writeKey: shop.writeKey
                    )
                    .status == 401
                })
            #expect(
                try collector.client.post("/v1/batch", json: Self.batch("n-\(index)"), writeKey: newKey)
                    .status
                    == 200)
        }
        print(
            "staleness observed over HTTP: plan \(planSeen) s, revoked key \(revokedSeen) s (interval \(Self.interval) s)"
        )
    }

    @Test func aStoppedPostgreSQLStopsAllButIngestForCachedKeysAndRecovers() throws {
        guard let postgresServer = try PostgresTestServer.startOwn() else { return }
        defer { postgresServer.remove() }
        let clickHouse = try ClickHouseTesting.newLocation()
        let collector = try Self.collector(postgres: postgresServer.location, clickHouse: clickHouse)
        defer {
            try? (collector.server.stores.events as? ClickHouseEventStore)?.dropDatabase()
            collector.shutDown()
        }
        let admin = ["Authorization": "Bearer \(collector.server.access.adminToken)"]
        let published = try collector.client.send(
            "POST", "/v1/configs?project=default", headers: admin, body: Array(#"{"version": 1}"#.utf8))
        try #require(published.status == 200, "\(published.text)")
        #expect(
            try collector.client.post("/v1/batch", json: Self.batch("before"), writeKey: collector.writeKey)
                .status == 200)
        let (cookie, _) = try DashboardTests.signIn(
            collector.client, token: collector.server.access.adminToken)

        postgresServer.stop()
        Thread.sleep(forTimeInterval: Self.interval + 0.1)
        // Ingest and the remote config for the cached key go on; the events are in ClickHouse.
        let during = try collector.client.post(
            "/v1/batch", json: Self.batch("during"), writeKey: collector.writeKey)
        #expect(during.status == 200, "\(during.text)")
        #expect(try Self.config(collector, key: collector.writeKey).status == 200)
        #expect(try collector.storedCount() == 2)
        // The rest answers 503 with Retry-After.
        let refused = [
            (
                "unknown key",
                try collector.client.post("/v1/batch", json: Self.batch("x"), writeKey: "fpk_unknown")
            ),
            ("dashboard", try collector.client.send("GET", "/", headers: ["Cookie": cookie])),
            ("admin API", try collector.client.send("GET", "/v1/configs?project=default", headers: admin)),
        ]
        for (name, response) in refused {
            #expect(response.status == 503, "\(name): \(response.status) \(response.text)")
            #expect(response.headers["retry-after"] != nil, "\(name)")
        }

        try postgresServer.startAgain()
        let recovered = try StalenessProbe(bound: 60).measure(since: Date()) {
            try collector.client.post("/v1/batch", json: Self.batch("x"), writeKey: "fpk_unknown").status
                == 401
                && collector.client.send("GET", "/", headers: ["Cookie": cookie]).status == 200
                && collector.client.send("GET", "/v1/configs?project=default", headers: admin).status == 200
        }
        #expect(
            try collector.client.post("/v1/batch", json: Self.batch("after"), writeKey: collector.writeKey)
                .status == 200)
        #expect(try collector.storedCount() == 3)
        print("recovered over HTTP \(recovered) s after PostgreSQL accepted connections again")
    }

    /// `GET /v1/config` with a write key.
    static func config(_ server: TestServer, key: String) throws -> LoopbackClient.Response {
        try server.client.send("GET", "/v1/config", headers: ["Authorization": LoopbackClient.basic(key)])
    }
}
