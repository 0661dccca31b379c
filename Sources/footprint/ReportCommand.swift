import FootprintCommandLine
import FootprintServer
import FootprintWire
import Foundation

/// `footprint report`: PV, UV and dwell per page, top events, users per day, named events, top
/// element paths and list items, from the daily rollups and the range's events
/// (``ReportService/overview(project:parameters:)``).
enum ReportCommand: Command {
    static let name = "report"
    static let summary = "pages, events, users per day, elements and items, as tables or JSON"
    static let usage = """
        footprint report [--db PATH] [--store URL] [--project NAME] [--from YYYY-MM-DD] [--to YYYY-MM-DD]
                         [--json]
          --db       SQLite database file (PATH or sqlite:PATH; default footprint.sqlite; opened read-only)
          --store    the ClickHouse store the server was started with (clickhouse://...; see
                     footprint serve); the events are read there, the projects from --db
          --project  the project (default: the first one)
          --from     first UTC day (default: the day of the oldest event)
          --to       last UTC day, included (default: the day of the newest event)
          --json     print the report as JSON
        """

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(
            arguments, options: ["db", "store", "project", "from", "to"], flags: ["json"])
        var query: [String: String] = [:]
        for name in ["from", "to"] {
            guard let day = parsed.options[name] else { continue }
            guard isDay(day) else {
                throw UsageError(
                    description: "--\(name) must be a UTC day such as 2026-11-01")
            }
            query[name] = day
        }
        if let from = query["from"], let to = query["to"], from > to {
            throw UsageError(description: "--from must not be after --to")
        }
        let stores = try StoreAccess.stores(parsed)
        let report = try Report.load(
            databasePath: stores.databasePath, project: parsed.options["project"], query: query,
            clickHouse: stores.clickHouse)
        if parsed.flags.contains("json") {
            try Output.json(report)
        } else {
            printTables(report)
        }
    }

    /// Whether `text` is a day `YYYY-MM-DD` that exists.
    static func isDay(_ text: String) -> Bool {
        let shape = text.utf8.enumerated().allSatisfy { index, byte in
            index == 4 || index == 7
                ? byte == UInt8(ascii: "-") : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard text.utf8.count == 10, shape, let time = Timestamp(iso8601: text + "T00:00:00Z") else {
            return false
        }
        return time.dayString == text
    }

    /// Prints the report as tables for people.
    static func printTables(_ report: Report) {
        print(
            "Project \(report.project): \(report.totalEvents) events stored, \(report.lostEvents) lost on devices"
        )
        print("\(report.fromDay) to \(report.toDay): \(report.uniqueVisitors) visitors\n")
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
