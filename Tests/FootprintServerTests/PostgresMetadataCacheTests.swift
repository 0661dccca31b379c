import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The cached write keys and remote configs of ``PostgresMetadataStore``: two stores on one
/// database stand for two collectors; a change through one reaches the other within the cache
/// interval; a stopped PostgreSQL leaves the cached keys answering.
@Suite(.enabled(if: PostgresTesting.isAvailable, PostgresTesting.reason))
struct PostgresMetadataCacheTests {
    static let interval = 1.0
    static let time = Timestamp(iso8601: "2026-12-01T10:00:00.000Z")!

    static func configuration() -> PostgresMetadataStore.Configuration {
        var configuration = PostgresMetadataStore.Configuration()
        configuration.cacheSeconds = interval
        configuration.connectTimeoutSeconds = 2
        return configuration
    }

    @Test func aChangeThroughOneCollectorReachesAnotherWithinTheInterval() throws {
        try PostgresTesting.withStore(configure: { $0 = Self.configuration() }) { first in
            let second = try PostgresMetadataStore(
                location: first.location, configuration: Self.configuration())
            defer { second.close() }
            // The bound plus the clock's millisecond rounding.
            let probe = StalenessProbe(bound: Self.interval + 0.01)

            // A new key works at once: a key the copy lacks is checked against the revision.
            let project = try first.createProject(named: "shop")
            #expect(try second.project(writeKey: project.writeKey) == project)
            #expect(try second.latestConfig(projectId: project.id) == nil)

            // A published config: within the interval.
            let published = try first.storeConfig(projectId: project.id, document: "{\"v\":1}", at: Self.time)
            let configSeen = try probe.measure(since: Date()) {
                try second.latestConfig(projectId: project.id) == published
            }
            let next = try first.storeConfig(projectId: project.id, document: "{\"v\":2}", at: Self.time)
            try probe.measure(since: Date()) { try second.latestConfig(projectId: project.id) == next }

            // A rotated key (its successor made, then the old one revoked): within the interval.
            let newKey = try first.createWriteKey(projectId: project.id, at: Self.time).key
            try first.revokeWriteKey(project.writeKey)
            let revokedSeen = try probe.measure(since: Date()) {
                try second.project(writeKey: project.writeKey) == nil
            }
            #expect(try second.project(writeKey: newKey)?.id == project.id)
            print(
                "staleness observed: config \(configSeen) s, revoked key \(revokedSeen) s (interval \(Self.interval) s)"
            )
        }
    }

    @Test func aStoppedServerLeavesTheCachedKeysAnsweringAndRecovers() throws {
        // A server of its own, so that stopping it touches no other test.
        guard let server = try PostgresTestServer.startOwn() else { return }
        defer { server.remove() }
        let store = try PostgresMetadataStore(location: server.location, configuration: Self.configuration())
        defer { store.close() }
        let project = try store.createProject(named: "shop")
        let config = try store.storeConfig(projectId: project.id, document: "{}", at: Self.time)
        #expect(try store.project(writeKey: project.writeKey) == project)
        _ = try store.deletedIds()
        // A collector that starts now serves the existing projects at once: it read them on open.
        let newcomer = try PostgresMetadataStore(
            location: server.location, configuration: Self.configuration())
        defer { newcomer.close() }
        #expect([.fresh, .stale].contains(newcomer.cache.phase))

        server.stop()
        Thread.sleep(forTimeInterval: Self.interval + 0.1)
        for cached in [store, newcomer] {
            #expect(try cached.project(writeKey: project.writeKey) == project)
            #expect(try cached.latestConfig(projectId: project.id) == config)
            #expect(cached.cache.phase == .unreachable)
            let unknown = #expect(throws: ServerError.self) { try cached.project(writeKey: "fpk_unknown") }
            #expect(unknown?.code == .unavailable)
            let listing = #expect(throws: ServerError.self) { try cached.projects() }
            #expect(listing?.code == .unavailable)
        }
        // What /metrics shows meanwhile.
        let metrics = ServerMetrics()
        metrics.setMetadataCache { store.cache.reading() }
        let down = try #require(metrics.snapshot().metadataCache)
        #expect(!down.reachable && (down.secondsSinceRefresh ?? 0) > Self.interval, "\(down)")
        #expect(metrics.snapshot().exposition().contains("\nfootprint_metadata_store_reachable 0\n"))
        _ = try store.deletedIds()

        try server.startAgain()
        let back = Date()
        let recovered = try StalenessProbe(bound: 60).measure(since: back) {
            // Unknown for sure again (not `unavailable`).
            do { return try store.project(writeKey: "fpk_unknown") == nil } catch { return false }
        }
        #expect(try store.projects() == [project])
        #expect(metrics.snapshot().metadataCache?.reachable == true)
        let other = try store.createProject(named: "other")
        #expect(try newcomer.project(writeKey: other.writeKey) == other)
        print("recovered \(recovered) s after PostgreSQL accepted connections again")
    }
}
