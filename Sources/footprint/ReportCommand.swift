import FootprintServer
import Foundation

/// `footprint report`: PV and UV per page, dwell, top events, users per day, named events, top
/// element paths and list items.
enum ReportCommand {
    static let usage = "footprint report [--db PATH] [--project NAME] [--json]"

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(arguments, options: ["db", "project"], flags: ["json"])
        let report = try Report.load(
            databasePath: parsed.options["db"] ?? StoreAccess.defaultPath, project: parsed.options["project"])
        if parsed.flags.contains("json") {
            try Output.json(report)
        } else {
            printTables(report)
        }
    }

    /// Prints the report as tables for people.
    static func printTables(_ report: Report) {
        print(
            "Project \(report.project): \(report.totalEvents) events, \(report.uniqueVisitors) visitors, \(report.lostEvents) lost on devices\n"
        )
        print("Pages")
        Output.table(
            ["page", "PV", "UV", "avg dwell"],
            report.pages.map { page in
                [
                    page.page, String(page.pageViews), String(page.uniqueVisitors),
                    page.averageDwellMilliseconds.map { "\(Double($0) / 1000) s" } ?? "-",
                ]
            })
        print("\nTop events")
        Output.table(
            ["event", "count", "visitors"],
            report.topEvents.map { [$0.event, String($0.count), String($0.uniqueVisitors)] })
        print("\nUsers per day")
        Output.table(["day", "users"], report.usersPerDay.map { [$0.day, String($0.users)] })
        if !report.namedEvents.isEmpty {
            print("\nEvents named by the tracking plan")
            Output.table(
                ["event", "count", "visitors"],
                report.namedEvents.map { [$0.event, String($0.count), String($0.uniqueVisitors)] })
        }
        if !report.topElements.isEmpty {
            print("\nTop element paths")
            Output.table(
                ["path", "page", "text", "clicks", "visitors"],
                report.topElements.map {
                    [$0.path, $0.page ?? "-", $0.text ?? "-", String($0.clicks), String($0.uniqueVisitors)]
                })
        }
        if !report.items.isEmpty {
            print("\nList items")
            Output.table(
                ["item", "exposures", "skips", "clicks", "exposure→click"],
                report.items.map { item in
                    [
                        item.itemId, String(item.exposures), String(item.skips), String(item.clicks),
                        item.clickThroughRate.map { String(format: "%.1f %%", $0 * 100) } ?? "-",
                    ]
                })
        }
    }
}
