import FootprintDemo
import FootprintServer
import Foundation
import Testing

/// `footprint demo --store clickhouse://…`: the demo's server keeps the events in the cluster,
/// and its report still equals the demo's own tally. (Not named ClickHouse…: make test runs it on
/// its own, away from the cluster suites that block their threads.)
@Suite(.enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClusterDemoTests {
    @Test(.timeLimit(.minutes(10)))
    func theDemoOnTheClusterReportsWhatItGenerated() async throws {
        let location = try ClickHouseTesting.newLocation()
        defer { ClickHouseTestEnvironment.dropDatabase(location.database, url: location.description) }
        var configuration = DemoConfiguration()
        configuration.users = 20
        configuration.days = 2
        configuration.seed = 7
        configuration.clickHouse = location
        let outcome = try await ShopDemo(configuration: configuration).run()
        defer { outcome.shutDown() }
        let failures = outcome.comparison.rows.filter { !$0.matches }
        #expect(failures.isEmpty, "\(failures)")
        #expect(outcome.comparison.allMatch)
        #expect(outcome.server.stores.events is ClickHouseEventStore)
        let stored = try ClickHouseTestEnvironment.query(
            "SELECT uniqExact(message_id) FROM \(location.database).events",
            port: ClickHouseTestEnvironment.shardPorts(location.description)[0])
        #expect(Int(stored.trimmingCharacters(in: .whitespacesAndNewlines)) == outcome.tally.totalEvents)
    }
}
