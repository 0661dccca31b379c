import FootprintWire

/// What a daily rollup count counts.
public enum RollupKind: Int64, Sendable, Hashable {
    /// Page views, keyed by page name.
    case pageViews = 0
    /// Track events, keyed by event name.
    case trackEvents = 1
    /// `$element_click` events, keyed by exact path.
    case elementClicks = 2
    /// `$element_click` events, keyed by similar path.
    case similarElementClicks = 3
    /// Identify, alias and group messages, keyed by type.
    case otherEvents = 4
}

/// One daily count, kept up to date on ingest.
public struct RollupCount: Sendable, Hashable {
    /// Days since 1970-01-01 (UTC).
    public var day: Int64
    /// What is counted.
    public var kind: RollupKind
    /// The page name, event name or path.
    public var key: String
    /// How many.
    public var count: Int

    /// Creates a count.
    public init(day: Int64, kind: RollupKind, key: String, count: Int) {
        self.day = day
        self.kind = kind
        self.key = key
        self.count = count
    }
}

/// A person active on a day (identity links applied), on one page or none.
public struct RollupPerson: Sendable, Hashable {
    /// Days since 1970-01-01 (UTC).
    public var day: Int64
    /// The person (see ``ReportEngine``).
    public var person: String
    /// The page (`nil`: events without one).
    public var page: String?
    /// Whether the person viewed a page there (counts as a visitor).
    public var viewed: Bool

    /// Creates a row.
    public init(day: Int64, person: String, page: String?, viewed: Bool) {
        self.day = day
        self.person = person
        self.page = page
        self.viewed = viewed
    }
}

/// Builds the traffic report from daily rollups instead of events: the same numbers as
/// ``ReportEngine/traffic(days:)`` (tests compare both), without reading the events. Dwell is
/// not in the rollups; ``with(dwell:)`` adds it from the engine.
public enum RollupTraffic {
    /// Whether rollups can answer `filter`: its range is whole UTC days.
    public static func canAnswer(_ filter: ReportFilter) -> Bool {
        [filter.from, filter.to].allSatisfy { ($0?.millisecondsSince1970 ?? 0) % 86_400_000 == 0 }
            && filter.from != nil && filter.to != nil
    }

    /// The traffic report over the days of `filter` (which ``canAnswer(_:)``). With people rows
    /// without pages, each page's visitors are 0 (unknown).
    public static func report(
        counts: [RollupCount], people: [RollupPerson], filter: ReportFilter
    ) -> TrafficReport {
        let firstDay = filter.from?.dayNumber ?? 0
        let lastDay = (filter.to?.dayNumber ?? firstDay + 1) - 1
        let dayCount = Int(max(0, min(lastDay - firstDay + 1, 3660)))
        var eventsPerDay = Array(repeating: 0, count: dayCount)
        var viewsPerDay = Array(repeating: 0, count: dayCount)
        var pageViews: [String: [Int]] = [:]
        for count in counts {
            let day = Int(count.day - firstDay)
            guard day >= 0, day < dayCount else { continue }
            switch count.kind {
            case .pageViews:
                viewsPerDay[day] += count.count
                eventsPerDay[day] += count.count
                pageViews[count.key, default: Array(repeating: 0, count: dayCount)][day] += count.count
            case .trackEvents, .otherEvents:
                eventsPerDay[day] += count.count
            case .elementClicks, .similarElementClicks:
                break
            }
        }
        // People as small integers: each name is hashed once, the sets hold integers.
        var personIndex: [String: Int] = [:]
        var activePerDay = Array(repeating: Set<Int>(), count: dayCount)
        var visitorsPerDay = Array(repeating: Set<Int>(), count: dayCount)
        var pageVisitors: [String: [Set<Int>]] = [:]
        var pagePeople: [String: Set<Int>] = [:]
        for row in people {
            let day = Int(row.day - firstDay)
            guard day >= 0, day < dayCount else { continue }
            let person: Int
            if let known = personIndex[row.person] {
                person = known
            } else {
                person = personIndex.count
                personIndex[row.person] = person
            }
            activePerDay[day].insert(person)
            guard row.viewed else { continue }
            visitorsPerDay[day].insert(person)
            guard let page = row.page else { continue }
            pageVisitors[page, default: Array(repeating: Set<Int>(), count: dayCount)][day].insert(person)
            pagePeople[page, default: []].insert(person)
        }
        var days: [DayTraffic] = []
        for day in 0..<dayCount {
            let weekly: Set<Int> = Set(activePerDay[max(0, day - 6)...day].joined())
            let monthly: Set<Int> = Set(activePerDay[max(0, day - 29)...day].joined())
            let date = Timestamp(millisecondsSince1970: (firstDay + Int64(day)) * 86_400_000)
            days.append(
                DayTraffic(
                    day: date.dayString, events: eventsPerDay[day], pageViews: viewsPerDay[day],
                    visitors: visitorsPerDay[day].count, dailyActive: activePerDay[day].count,
                    weeklyActive: weekly.count, monthlyActive: monthly.count))
        }
        let pages = pageViews.map { page, perDay in
            PageTraffic(
                page: page, pageViews: perDay.reduce(0, +), visitors: pagePeople[page]?.count ?? 0,
                averageDwellMilliseconds: nil, medianDwellMilliseconds: nil, dwellSamples: 0,
                pageViewsPerDay: perDay,
                visitorsPerDay: pageVisitors[page]?.map(\.count) ?? Array(repeating: 0, count: dayCount))
        }.sorted { ($0.pageViews, $1.page) > ($1.pageViews, $0.page) }
        return TrafficReport(
            events: eventsPerDay.reduce(0, +), pageViews: viewsPerDay.reduce(0, +),
            people: Set(activePerDay.joined()).count, days: days, pages: pages)
    }
}

extension TrafficReport {
    /// The report with each page's dwell taken from `dwell` (an engine's traffic report).
    public func with(dwell: TrafficReport) -> TrafficReport {
        let byPage = Dictionary(dwell.pages.map { ($0.page, $0) }, uniquingKeysWith: { first, _ in first })
        var report = self
        report.pages = pages.map { page in
            var page = page
            if let measured = byPage[page.page] {
                page.averageDwellMilliseconds = measured.averageDwellMilliseconds
                page.medianDwellMilliseconds = measured.medianDwellMilliseconds
                page.dwellSamples = measured.dwellSamples
            }
            return page
        }
        return report
    }
}
