import Footprint
import FootprintServer

/// The server's report checked against the demo's own tally, one figure per row.
///
/// The report counts people, merged across identify (``ReportEngine``): a device's events
/// before and after its user signs in are one person. Each virtual user has one device (its own
/// storage folder, so one anonymous id) and one user id, so a person is a virtual user, and the
/// tally's visitors (overall, per page, per day) are the virtual users it saw act.
public struct DemoComparison: Sendable, Hashable {
    /// One figure, as the demo counted it and as the report shows it.
    public struct Row: Sendable, Hashable {
        /// What is counted (`page views: Home`).
        public var metric: String
        /// The demo's count.
        public var expected: Int
        /// The report's count.
        public var reported: Int
        /// Whether they are equal.
        public var matches: Bool { expected == reported }
    }

    /// Every figure compared.
    public var rows: [Row]

    /// Whether every figure matches.
    public var allMatch: Bool { rows.allSatisfy(\.matches) }

    /// Compares `report` with `tally`.
    public init(tally: DemoTally, report: Report) {
        var rows: [Row] = []
        func add(_ metric: String, _ expected: Int, _ reported: Int) {
            rows.append(Row(metric: metric, expected: expected, reported: reported))
        }
        add("events stored (each exactly once)", tally.totalEvents, report.totalEvents)
        add("events lost on devices", 0, report.lostEvents)
        add("visitors", tally.visitors.count, report.uniqueVisitors)
        let pages = Dictionary(report.pages.map { ($0.page, $0) }, uniquingKeysWith: { first, _ in first })
        for screen in ShopScreen.allCases {
            add(
                "page views: \(screen.pageName)", tally.pageViews[screen.pageName] ?? 0,
                pages[screen.pageName]?.pageViews ?? 0)
            add(
                "visitors: \(screen.pageName)", tally.pageVisitors[screen.pageName]?.count ?? 0,
                pages[screen.pageName]?.uniqueVisitors ?? 0)
        }
        let events = Dictionary(report.topEvents.map { ($0.event, $0.count) }, uniquingKeysWith: +)
        add("clicks ($element_click)", tally.clicks, events[CapturedEventName.elementClick] ?? 0)
        add("purchases (order_completed)", tally.purchases, events["order_completed"] ?? 0)
        for name in DemoTally.lifecycleEvents {
            add("lifecycle: \(name)", tally.eventsByName[name] ?? 0, events[name] ?? 0)
        }
        let named = Dictionary(report.namedEvents.map { ($0.event, $0.count) }, uniquingKeysWith: +)
        for name in Set(tally.namedClicks.keys).union(named.keys).sorted() {
            add("named clicks: \(name)", tally.namedClicks[name] ?? 0, named[name] ?? 0)
        }
        let days = Dictionary(report.usersPerDay.map { ($0.day, $0.users) }, uniquingKeysWith: +)
        for day in Set(tally.usersPerDay.keys).union(days.keys).sorted() {
            add("users on \(day)", tally.usersPerDay[day]?.count ?? 0, days[day] ?? 0)
        }
        let items = report.items
        add(
            "exposures (all items)", tally.itemExposures.values.reduce(0, +),
            items.reduce(0) { $0 + $1.exposures })
        add("skips (all items)", tally.itemSkips.values.reduce(0, +), items.reduce(0) { $0 + $1.skips })
        add(
            "item clicks (all items)", tally.itemClicks.values.reduce(0, +),
            items.reduce(0) { $0 + $1.clicks })
        let itemIds = Set(tally.itemExposures.keys).union(tally.itemSkips.keys).union(tally.itemClicks.keys)
        let matchingItems = items.filter { item in
            item.exposures == tally.itemExposures[item.itemId] ?? 0
                && item.skips == tally.itemSkips[item.itemId] ?? 0
                && item.clicks == tally.itemClicks[item.itemId] ?? 0
        }
        add("items with equal exposures, skips and clicks", itemIds.count, matchingItems.count)
        self.rows = rows
    }
}
