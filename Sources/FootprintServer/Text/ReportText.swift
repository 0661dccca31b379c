import FootprintWire
import Foundation

/// The overview report (``Report``) as text for people, the same for `footprint report` and
/// `footprint demo`: two summary lines (events stored and lost; the days and their visitors),
/// then a ``TextTable`` per section (pages, top events, users per day, events named by the
/// tracking plan, top element paths, list items), counts with thousands separators.
public struct ReportText: Sendable, Hashable {
    /// The rows a table shows at most; `nil` (the default) shows every row.
    public var rowLimit: Int?
    /// The title of the list items' table. Default "List items".
    public var itemsTitle = "List items"
    /// Only the items whose id starts with it (the demo's product feed: `sku-`). Default: every item.
    public var itemPrefix = ""

    /// Creates the default layout: every row, every item.
    public init() {}

    /// The report's text.
    public func render(_ report: Report) -> String {
        var sections = [
            "Project \(report.project): \(report.totalEvents.grouped) events stored, "
                + "\(report.lostEvents.grouped) lost on devices\n"
                + "\(report.fromDay) to \(report.toDay): \(report.uniqueVisitors.grouped) visitors"
        ]
        func section(_ title: String, _ columns: [TextTable.Column], _ rows: [[String]]) {
            let shown = rowLimit.map { Array(rows.prefix($0)) } ?? rows
            let more = rows.count - shown.count
            sections.append(
                ([title] + TextTable(columns, rows: shown).lines + (more > 0 ? ["(\(more) more)"] : []))
                    .joined(separator: "\n"))
        }
        section(
            "Pages", [.init("page"), .init("PV", .right), .init("UV", .right), .init("avg dwell", .right)],
            report.pages.map { page in
                [
                    page.page, page.pageViews.grouped, page.uniqueVisitors.grouped,
                    page.averageDwellMilliseconds.map { String(format: "%.1f s", Double($0) / 1000) } ?? "-",
                ]
            })
        let eventColumns: [TextTable.Column] = [
            .init("event"), .init("count", .right), .init("visitors", .right),
        ]
        section(
            "Top events", eventColumns,
            report.topEvents.map { [$0.event, $0.count.grouped, $0.uniqueVisitors.grouped] })
        section(
            "Users per day", [.init("day"), .init("users", .right)],
            report.usersPerDay.map { [$0.day, $0.users.grouped] })
        if !report.namedEvents.isEmpty {
            section(
                "Events named by the tracking plan", eventColumns,
                report.namedEvents.map { [$0.event, $0.count.grouped, $0.uniqueVisitors.grouped] })
        }
        if !report.topElements.isEmpty {
            section(
                "Top element paths (up to the first view controller)",
                [
                    .init("path"), .init("page"), .init("text"), .init("clicks", .right),
                    .init("visitors", .right),
                ],
                report.topElements.map {
                    [
                        Self.shortened($0.path), $0.page ?? "-", $0.text ?? "-", $0.clicks.grouped,
                        $0.uniqueVisitors.grouped,
                    ]
                })
        }
        let items = report.items.filter { $0.itemId.hasPrefix(itemPrefix) }
        if !items.isEmpty {
            section(
                itemsTitle,
                [
                    .init("item"), .init("exposures", .right), .init("skips", .right),
                    .init("clicks", .right),
                    .init("exposure→click", .right),
                ],
                items.map { item in
                    [
                        item.itemId, item.exposures.grouped, item.skips.grouped, item.clicks.grouped,
                        item.clickThroughRate.map { String(format: "%.1f%%", $0 * 100) } ?? "-",
                    ]
                })
        }
        return sections.joined(separator: "\n\n")
    }

    /// The path up to its first controller, then `…` for the navigation chain above it (and the
    /// element's title, when the path ends with one).
    public static func shortened(_ path: String) -> String {
        guard let range = path.range(of: "ViewController#") else { return path }
        let attributes = path.range(of: "#currentTitle=").map { String(path[$0.lowerBound...]) } ?? ""
        return String(path[..<range.upperBound]) + "…" + attributes
    }
}
