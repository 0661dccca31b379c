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
        }
    }

    /// The report: pages, top events, users per day, named events, top element paths and the
    /// product feed's items.
    public static func report(_ report: Report) -> String {
        var lines: [String] = []
        lines.append(
            "Report of \(report.project): \(grouped(report.totalEvents)) events, "
                + "\(grouped(report.uniqueVisitors)) visitors, \(report.lostEvents) lost")
        lines.append("")
        lines.append("Pages                   PV      UV   avg dwell")
        for page in report.pages {
            let dwell =
                page.averageDwellMilliseconds.map { String(format: "%.1f s", Double($0) / 1000) } ?? "-"
            lines.append(
                pad(page.page, 18) + left(grouped(page.pageViews), 8) + left(grouped(page.uniqueVisitors), 8)
                    + left(dwell, 12))
        }
        lines.append("")
        lines.append("Top events                      count      UV")
        for event in report.topEvents.prefix(10) {
            lines.append(
                pad(event.event, 28) + left(grouped(event.count), 9) + left(grouped(event.uniqueVisitors), 8))
        }
        lines.append("")
        lines.append("Users per day")
        for day in report.usersPerDay {
            lines.append("  \(day.day)  " + left(grouped(day.users), 6))
        }
        lines.append("")
        lines.append("Named events (tracking plan)    count      UV")
        for event in report.namedEvents {
            lines.append(
                pad(event.event, 28) + left(grouped(event.count), 9) + left(grouped(event.uniqueVisitors), 8))
        }
        lines.append("")
        lines.append("Top element paths (clicks, page, path up to its controller)")
        for element in report.topElements.prefix(8) {
            lines.append(
                left(grouped(element.clicks), 7) + "  " + pad(element.page ?? "-", 15)
                    + shortened(element.path))
        }
        lines.append("")
        lines.append("Product feed items     exposures   skips  clicks    CTR")
        for item in report.items.filter({ $0.itemId.hasPrefix("sku-") }).prefix(12) {
            let rate = item.clickThroughRate.map { String(format: "%.1f%%", $0 * 100) } ?? "-"
            lines.append(
                pad(item.itemId, 20) + left(grouped(item.exposures), 11) + left(grouped(item.skips), 8)
                    + left(grouped(item.clicks), 8) + left(rate, 7))
        }
        return lines.joined(separator: "\n")
    }

    /// The comparison, one row per figure, and a verdict.
    public static func comparison(_ comparison: DemoComparison) -> String {
        var lines = ["Check: the report against what the demo generated", ""]
        lines.append(pad("", 4) + pad("figure", 48) + left("demo", 9) + left("report", 9))
        for row in comparison.rows {
            lines.append(
                pad(row.matches ? "ok" : "DIFF", 4) + pad(row.metric, 48) + left(grouped(row.expected), 9)
                    + left(grouped(row.reported), 9))
        }
        let differing = comparison.rows.filter { !$0.matches }.count
        lines.append("")
        lines.append(
            differing == 0
                ? "All \(comparison.rows.count) figures match."
                : "\(differing) of \(comparison.rows.count) figures differ.")
        return lines.joined(separator: "\n")
    }

    /// `12,345`.
    static func grouped(_ value: Int) -> String { value.grouped }

    /// The path up to its first controller, then `#…` for the navigation chain above it.
    static func shortened(_ path: String) -> String {
        guard let range = path.range(of: "ViewController#") else { return path }
        let attributes = path.range(of: "#currentTitle=").map { String(path[$0.lowerBound...]) } ?? ""
        return String(path[..<range.upperBound]) + "…" + attributes
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private static func left(_ text: String, _ width: Int) -> String {
        text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
    }
}
