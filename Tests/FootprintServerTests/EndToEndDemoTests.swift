import FootprintDemo
import FootprintSQLite
import FootprintServer
import Foundation
import Testing

/// `footprint demo` with a small population: the server's report equals the demo's own tally.
struct EndToEndDemoTests {
    func play(seed: UInt64, users: Int = 20, days: Int = 2) async throws -> DemoOutcome {
        var configuration = DemoConfiguration()
        configuration.users = users
        configuration.days = days
        configuration.seed = seed
        return try await ShopDemo(configuration: configuration).run()
    }

    @Test func theReportEqualsWhatTheDemoGenerated() async throws {
        let outcome = try await play(seed: 7)
        defer { outcome.shutDown() }
        let failures = outcome.comparison.rows.filter { !$0.matches }
        #expect(failures.isEmpty, "\(failures)")
        #expect(outcome.comparison.allMatch)
        // Every part of the shop was exercised.
        let tally = outcome.tally
        #expect(ShopScreen.allCases.allSatisfy { (tally.pageViews[$0.pageName] ?? 0) > 0 })
        #expect(tally.purchases > 0)
        #expect(tally.itemExposures.values.reduce(0, +) > 0)
        #expect(tally.itemSkips.values.reduce(0, +) > 0)
        #expect(outcome.report.usersPerDay.count == 2)
        #expect(outcome.report.namedEvents.map(\.event).contains("add_to_cart"))
        #expect(DemoText.comparison(outcome.comparison).contains("figures match"))

        // What the server stored carries the plan's key-path values and the devices' context.
        var options = SQLiteDatabase.Options()
        options.readOnly = true
        let database = try SQLiteDatabase(path: outcome.directory + "/footprint.sqlite", options: options)
        let revenues = try database.prepare(
            "SELECT json_extract(payload, '$.properties.revenue') FROM events WHERE name = 'order_completed'"
        ).rows { $0.double(at: 0) }
        #expect(revenues.count == tally.purchases)
        #expect(revenues.allSatisfy { $0 > 0 })
        let versions = try database.prepare("SELECT DISTINCT app_version FROM events ORDER BY 1").rows {
            $0.text(at: 0) ?? ""
        }
        #expect(Set(versions).isSubset(of: Set(ShopInterface.appVersions)))
        #expect(versions.count > 1)
        let signedIn = try database.prepare(
            "SELECT count(DISTINCT user_id) FROM events WHERE user_id IS NOT NULL"
        )
        .rows { Int($0.int64(at: 0)) }
        #expect(signedIn.first == tally.signIns)
    }

    @Test func theSameSeedPlaysTheSameDemo() async throws {
        let first = try await play(seed: 11, users: 6)
        first.shutDown()
        let second = try await play(seed: 11, users: 6)
        second.shutDown()
        #expect(first.tally == second.tally)
        #expect(first.report.totalEvents == second.report.totalEvents)
    }
}
