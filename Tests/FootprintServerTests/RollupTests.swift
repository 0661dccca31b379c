import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The daily rollups kept on ingest give the same traffic numbers as reading the events.
@Suite(.serialized) struct RollupTests {
    static func withStore(
        maximumReportEvents: Int = 5_000_000, _ body: (SQLiteEventStore, Project) throws -> Void
    ) throws {
        let path =
            NSTemporaryDirectory()
            + "footprint-rollup-\(UUIDv7.make(at: Timestamp(millisecondsSince1970: 0))).sqlite"
        var configuration = SQLiteEventStore.Configuration()
        configuration.synchronous = "OFF"
        configuration.maximumReportEvents = maximumReportEvents
        let store = try SQLiteEventStore(path: path, configuration: configuration)
        defer {
            store.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        try body(store, try store.createProject(named: "rollups"))
    }

    static func withoutDwell(_ report: TrafficReport) -> TrafficReport {
        var report = report
        report.pages = report.pages.map { page in
            var page = page
            page.averageDwellMilliseconds = nil
            page.medianDwellMilliseconds = nil
            page.dwellSamples = 0
            return page
        }
        return report
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func rollupTrafficEqualsTheEventScanForEveryFilter(seed: UInt64) throws {
        try Self.withStore { store, project in
            var configuration = SyntheticTraffic.Configuration()
            configuration.people = 40
            configuration.days = 10
            configuration.seed = seed
            var traffic = SyntheticTraffic(configuration: configuration)
            try traffic.write(count: 3_000, into: store, projectId: project.id, batchSize: 500)
            // A resent batch must not count twice.
            var again = SyntheticTraffic(configuration: configuration)
            try again.write(count: 500, into: store, projectId: project.id, batchSize: 500)
            let end = configuration.end
            let filters = [
                ReportFilter.lastDays(10, now: end.adding(milliseconds: -1)),
                ReportFilter.lastDays(3, now: end.adding(milliseconds: -86_400_001)),
                ReportFilter(
                    from: end.adding(milliseconds: -10 * 86_400_000), to: end, appVersion: "2.4.0"),
                ReportFilter(from: end.adding(milliseconds: -10 * 86_400_000), to: end, os: "iOS 18.1"),
                ReportFilter(from: end.adding(milliseconds: -10 * 86_400_000), to: end, page: "ProductList"),
            ]
            let links = try store.identityLinks(projectId: project.id)
            #expect(!links.isEmpty)
            for filter in filters {
                #expect(RollupTraffic.canAnswer(filter))
                let scanned = ReportEngine(
                    events: try store.analyticsEvents(
                        projectId: project.id, filter: filter, properties: false),
                    identityLinks: links
                ).traffic(days: filter)
                let rolledUp = RollupTraffic.report(
                    counts: try store.rollupCounts(projectId: project.id, filter: filter),
                    people: try store.rollupPeople(projectId: project.id, filter: filter, byPage: true),
                    filter: filter)
                let daily = RollupTraffic.report(
                    counts: try store.rollupCounts(projectId: project.id, filter: filter),
                    people: try store.rollupPeople(projectId: project.id, filter: filter, byPage: false),
                    filter: filter)
                #expect(daily.days == scanned.days, "\(filter)")
                #expect(daily.people == scanned.people)
                #expect(daily.pages.map(\.pageViews) == scanned.pages.map(\.pageViews))
                #expect(rolledUp == Self.withoutDwell(scanned), "\(filter)")
                #expect(rolledUp.pageViews > 0)
                let visits = ReportEngine(
                    events: try store.pageVisitEvents(projectId: project.id, filter: filter),
                    identityLinks: links)
                #expect(
                    rolledUp.with(dwell: visits.traffic(days: filter)) == scanned, "dwell from visits only")
            }
        }
    }

    @Test func aRangeWithTooManyEventsIsRefusedButRollupsStillAnswer() throws {
        try Self.withStore(maximumReportEvents: 100) { store, project in
            var traffic = SyntheticTraffic()
            try traffic.write(count: 300, into: store, projectId: project.id)
            let filter = ReportFilter.lastDays(
                30, now: SyntheticTraffic.Configuration().end.adding(milliseconds: -1))
            let error = #expect(throws: ServerError.self) {
                try store.analyticsEvents(projectId: project.id, filter: filter, properties: false)
            }
            #expect(error?.code == .invalidQuery)
            let counts = try store.rollupCounts(projectId: project.id, filter: filter)
            #expect(counts.reduce(0) { $0 + $1.count } >= 300)
        }
    }

    @Test func aRangeNotOnDayBoundariesIsAnsweredFromEvents() {
        let start = Timestamp(millisecondsSince1970: 1_793_491_200_000)
        #expect(
            !RollupTraffic.canAnswer(
                ReportFilter(from: start.adding(milliseconds: 1), to: start.adding(milliseconds: 86_400_000)))
        )
        #expect(!RollupTraffic.canAnswer(ReportFilter()))
        #expect(
            RollupTraffic.canAnswer(ReportFilter(from: start, to: start.adding(milliseconds: 86_400_000))))
    }
}
