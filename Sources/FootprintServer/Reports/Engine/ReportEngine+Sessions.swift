import FootprintWire

/// Sessions: how many, how long, how many screens.
public struct SessionReport: Sendable, Hashable, Codable {
    /// Sessions with an event in range.
    public var sessions: Int
    /// Mean time from a session's first to its last event, in milliseconds.
    public var averageLengthMilliseconds: Int
    /// Median length in milliseconds.
    public var medianLengthMilliseconds: Int
    /// Mean page views per session.
    public var screensPerSession: Double
    /// Sessions with one page view or none.
    public var bounces: Int
}

/// Where people went after a page.
public struct PageTransition: Sendable, Hashable, Codable {
    /// The next page, or `nil` when the session ended there.
    public var next: String?
    /// How many times.
    public var count: Int
    /// Its share of the visits of the page, 0...1.
    public var share: Double
}

/// A page's place in the paths people take.
public struct PathReport: Sendable, Hashable, Codable {
    /// The page.
    public var page: String
    /// Visits of the page.
    public var visits: Int
    /// The most common next pages, most frequent first (the session's end as `next: nil`).
    public var next: [PageTransition]
}

/// A move from one page to the next within a session.
public struct PageMove: Sendable, Hashable, Codable {
    /// The page left.
    public var from: String
    /// The page opened next.
    public var to: String
    /// How many times.
    public var count: Int
}

extension ReportEngine {
    /// Session count, length and screens per session.
    public func sessions() -> SessionReport {
        var lengths: [Int64] = []
        var screens = 0
        var bounces = 0
        for session in eventsBySession where !session.isEmpty {
            let first = events[session.first!].time.millisecondsSince1970
            let last = events[session.last!].time.millisecondsSince1970
            lengths.append(last - first)
            let views = session.filter { events[$0].isPageView }.count
            screens += views
            if views <= 1 { bounces += 1 }
        }
        let count = lengths.count
        return SessionReport(
            sessions: count,
            averageLengthMilliseconds: count == 0
                ? 0 : Int((Double(lengths.reduce(0, +)) / Double(count)).rounded()),
            medianLengthMilliseconds: Self.median(lengths) ?? 0,
            screensPerSession: count == 0 ? 0 : Double(screens) / Double(count), bounces: bounces)
    }

    /// The most common next pages after `page`, within a session.
    public func paths(after page: String, limit: Int = 10) -> PathReport {
        var counts: [String?: Int] = [:]
        var visits = 0
        for session in eventsBySession {
            let views = session.compactMap { events[$0].isPageView ? events[$0].name : nil }
            for (position, view) in views.enumerated() where view == page {
                visits += 1
                counts[position + 1 < views.count ? views[position + 1] : nil, default: 0] += 1
            }
        }
        let next = counts.map { next, count in
            PageTransition(next: next, count: count, share: visits == 0 ? 0 : Double(count) / Double(visits))
        }.sorted { ($0.count, $1.next ?? "") > ($1.count, $0.next ?? "") }
        return PathReport(page: page, visits: visits, next: Array(next.prefix(max(0, limit))))
    }

    /// The most common page-to-page moves in sessions, most frequent first.
    public func topTransitions(limit: Int = 20) -> [PageMove] {
        var counts: [String: [String: Int]] = [:]
        for session in eventsBySession {
            let views = session.compactMap { events[$0].isPageView ? events[$0].name : nil }
            for (from, to) in zip(views, views.dropFirst()) {
                counts[from, default: [:]][to, default: 0] += 1
            }
        }
        return counts.flatMap { from, next in next.map { PageMove(from: from, to: $0.key, count: $0.value) } }
            .sorted { ($0.count, $1.from, $1.to) > ($1.count, $0.from, $0.to) }.prefix(max(0, limit)).map {
                $0
            }
    }
}
