import FootprintServer
import FootprintWire
import Foundation

/// The demo's printed output: the report as tables, and the comparison.
public enum DemoText {
    /// One line for a step of the run.
    public static func progress(_ progress: ShopDemo.Progress) -> String {
        switch progress {
        case .serverStarted(let url):
            "Embedded server listening on \(url)"
        case .dayFinished(let day, let days, let date, let activeUsers, let events):
            "  day \(day)/\(days)  \(date)  \(grouped(activeUsers)) users  \(grouped(events)) events tracked so far"
        case .userPlayed(let day, let days, let played, let users):
            "  day \(day)/\(days): \(grouped(played)) of \(grouped(users)) virtual users played"
        case .connectSessionStarted:
            "  a phone in a connect session shows its pages"
        case .readingReport:
            "  reading the report"
        }
    }

    /// Where the demo keeps its events, for its first and last lines: `SQLite (FOLDER)` or
    /// `ClickHouse (clickhouse://…)`.
    public static func store(_ configuration: DemoConfiguration, directory: String? = nil) -> String {
        if let location = configuration.clickHouse { return "ClickHouse (\(location))" }
        return "SQLite" + (directory.map { " (\($0)/footprint.sqlite)" } ?? "")
    }

    /// The report as `footprint report` prints it (``ReportText``), the tables cut at 12 rows and
    /// the items those of the product feed.
    public static func report(_ report: Report) -> String {
        var text = ReportText()
        text.rowLimit = 12
        text.itemsTitle = "Product feed items"
        text.itemPrefix = "sku-"
        return text.render(report)
    }

    /// The comparison, one row per figure, and a verdict.
    public static func comparison(_ comparison: DemoComparison) -> String {
        let table = TextTable(
            [.init(""), .init("figure"), .init("demo", .right), .init("report", .right)],
            rows: comparison.rows.map { row in
                [row.matches ? "ok" : "DIFF", row.metric, grouped(row.expected), grouped(row.reported)]
            })
        let differing = comparison.rows.filter { !$0.matches }.count
        return
            (["Check: the report against what the demo generated", ""] + table.lines + [
                "",
                differing == 0
                    ? "All \(comparison.rows.count) figures match."
                    : "\(differing) of \(comparison.rows.count) figures differ.",
            ]).joined(separator: "\n")
    }

    /// `12,345`.
    static func grouped(_ value: Int) -> String { value.grouped }
}
