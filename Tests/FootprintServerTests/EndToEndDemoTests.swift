import FootprintDemo
import FootprintSQLite
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

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
            "SELECT \(StoredPayload.columns) FROM events WHERE name = 'order_completed'"
        ).rows {
            try StoredPayload.message($0, at: 0)["properties"]?["revenue"]?.doubleValue ?? 0
        }
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

    @Test func theConnectSessionLeavesTwoScreensWhoseBoxesCountTheTaps() async throws {
        let outcome = try await play(seed: 5)
        defer { outcome.shutDown() }
        let store = outcome.server.stores.metadata
        let project = try #require(outcome.server.defaultProject)
        let screens = try store.screens(projectId: project.id)
        #expect(Set(screens.map(\.page)) == ["Product List", "Product Detail"])
        #expect(
            screens.allSatisfy { $0.appVersion == ShopInterface.appVersions.last && $0.latest.image == nil })
        #expect(try store.connectSessions(projectId: project.id).allSatisfy { $0.endedAt != nil })
        let detail = try #require(screens.first { $0.page == "Product Detail" })
        let snapshot = try #require(try store.snapshot(id: detail.latest.id, projectId: project.id))
        let parameters = try ReportParameters(
            query: ["from": outcome.report.fromDay, "to": outcome.report.toDay],
            now: Timestamp(iso8601: outcome.report.toDay + "T23:00:00.000Z")!)
        let service = ScreenService(stores: outcome.server.stores)
        let figures = try service.elementFigures(project: project, snapshot: snapshot, parameters: parameters)
        let elements = try service.reports.elements(
            project: project, parameters: parameters, grouping: .exact, limit: 1000)
        // Every box counts what the elements report counts for its path, and the taps of the
        // days played land on the snapshot's buttons (same paths as the taps).
        #expect(figures.count == 2)
        let reported = Dictionary(elements.map { ($0.path, $0.clicks) }, uniquingKeysWith: +)
        for element in figures {
            let clicks: Int = reported[element.path] ?? 0
            #expect(element.clicks == clicks)
        }
        #expect(figures.contains { $0.path.contains("currentTitle=Add to Cart") && $0.clicks > 0 })
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
