import FootprintWire

/// Page views, visitors and active people over time, and per page.
public struct TrafficReport: Sendable, Hashable, Codable {
    /// Events in range.
    public var events: Int
    /// Page views (screen and page messages).
    public var pageViews: Int
    /// Distinct people (UV).
    public var people: Int
    /// One entry per UTC day of the range, oldest first (days without events included).
    public var days: [DayTraffic]
    /// Per page, most viewed first.
    public var pages: [PageTraffic]
}

/// One day of traffic.
public struct DayTraffic: Sendable, Hashable, Codable {
    /// The UTC day, `2026-11-29`.
    public var day: String
    /// Events that day.
    public var events: Int
    /// Page views that day.
    public var pageViews: Int
    /// People who viewed a page that day (UV).
    public var visitors: Int
    /// Daily active people: anyone with an event that day.
    public var dailyActive: Int
    /// Weekly active people: the 7 days ending that day.
    public var weeklyActive: Int
    /// Monthly active people: the 30 days ending that day.
    public var monthlyActive: Int
}

/// One page's views and dwell.
public struct PageTraffic: Sendable, Hashable, Codable {
    /// The page name.
    public var page: String
    /// Page views.
    public var pageViews: Int
    /// Distinct people who viewed it.
    public var visitors: Int
    /// Mean dwell in milliseconds, `nil` without a measured visit.
    public var averageDwellMilliseconds: Int?
    /// Median dwell in milliseconds.
    public var medianDwellMilliseconds: Int?
    /// Visits whose dwell is measured.
    public var dwellSamples: Int
    /// Page views per UTC day (same days as ``TrafficReport/days``).
    public var pageViewsPerDay: [Int]
    /// Distinct people per UTC day.
    public var visitorsPerDay: [Int]
}

extension ReportEngine {
    /// PV, UV and DAU/WAU/MAU per day, and PV, UV and dwell per page.
    /// - Parameter filter: its range gives the days shown (else the events' first and last day).
    public func traffic(days filter: ReportFilter = ReportFilter()) -> TrafficReport {
        let firstDay = filter.from?.dayNumber ?? events.first?.time.dayNumber ?? 0
        let lastDay =
            filter.to.map { $0.adding(milliseconds: -1).dayNumber } ?? events.last?.time.dayNumber ?? firstDay
        let dayCount = Int(max(0, min(lastDay - firstDay + 1, 3660)))
        var eventsPerDay = Array(repeating: 0, count: dayCount)
        var viewsPerDay = Array(repeating: 0, count: dayCount)
        var visitorsPerDay = Array(repeating: Set<String>(), count: dayCount)
        var activePerDay = Array(repeating: Set<String>(), count: dayCount)
        var pageViews: [String: [Int]] = [:]
        var pageVisitors: [String: [Set<String>]] = [:]
        var pagePeople: [String: Set<String>] = [:]
        var views = 0
        for (index, event) in events.enumerated() {
            let day = Int(event.time.dayNumber - firstDay)
            guard day >= 0, day < dayCount else { continue }
            let person = people[index]
            eventsPerDay[day] += 1
            activePerDay[day].insert(person)
            guard event.isPageView, let page = event.name else { continue }
            views += 1
            viewsPerDay[day] += 1
            visitorsPerDay[day].insert(person)
            pageViews[page, default: Array(repeating: 0, count: dayCount)][day] += 1
            pageVisitors[page, default: Array(repeating: Set<String>(), count: dayCount)][day].insert(person)
            pagePeople[page, default: []].insert(person)
        }
        var days: [DayTraffic] = []
        for day in 0..<dayCount {
            func active(_ window: Int) -> Int {
                Set(activePerDay[max(0, day - window + 1)...day].joined()).count
            }
            days.append(
                DayTraffic(
                    day: Timestamp(millisecondsSince1970: (firstDay + Int64(day)) * 86_400_000).dayString,
                    events: eventsPerDay[day], pageViews: viewsPerDay[day],
                    visitors: visitorsPerDay[day].count,
                    dailyActive: activePerDay[day].count, weeklyActive: active(7), monthlyActive: active(30)))
        }
        let dwell = dwellSamples()
        let pages = pageViews.map { page, perDay in
            let samples = dwell[page] ?? []
            return PageTraffic(
                page: page, pageViews: perDay.reduce(0, +), visitors: pagePeople[page]?.count ?? 0,
                averageDwellMilliseconds: samples.isEmpty
                    ? nil : Int(saturating: Double(samples.saturatingSum()) / Double(samples.count)),
                medianDwellMilliseconds: Self.median(samples), dwellSamples: samples.count,
                pageViewsPerDay: perDay, visitorsPerDay: pageVisitors[page]?.map(\.count) ?? [])
        }.sorted { ($0.pageViews, $1.page) > ($1.pageViews, $0.page) }
        return TrafficReport(
            events: eventsPerDay.reduce(0, +), pageViews: views,
            people: Set(activePerDay.joined()).count, days: days, pages: pages)
    }

    /// Dwell samples per page (see ``SessionTimeline/dwells(cap:)``).
    func dwellSamples() -> [String: [Int64]] {
        var samples: [String: [Int64]] = [:]
        for timeline in timelines {
            for dwell in timeline.dwells(cap: configuration.sessionTimeoutMilliseconds) {
                samples[dwell.page, default: []].append(dwell.milliseconds)
            }
        }
        return samples
    }

    static func median(_ values: [Int64]) -> Int? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return median(lower: sorted[(sorted.count - 1) / 2], upper: sorted[sorted.count / 2])
    }

    /// The median of sorted values whose middle ones are `lower` and `upper` (the same one for
    /// an odd count): their mean.
    static func median(lower: Int64, upper: Int64) -> Int {
        lower == upper ? Int(lower) : Int(saturating: (Double(lower) + Double(upper)) / 2)
    }
}
