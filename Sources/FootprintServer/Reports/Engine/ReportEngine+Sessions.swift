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
        RollupReports.sessions(
            SessionFigures(
                timelines.compactMap { timeline in
                    guard let start = timeline.start, let end = timeline.end else { return nil }
                    return StoredSession(
                        lengthMilliseconds: end.saturatingSubtract(start), pageViews: timeline.pageViews)
                }))
    }

    /// Every page view's move to the next page, as rollup rows.
    private var moves: [RollupMove] {
        timelines.flatMap { timeline in
            timeline.moves().map { RollupMove(from: $0.from, to: $0.to, count: 1) }
        }
    }

    /// The most common next pages after `page`, within a session.
    public func paths(after page: String, limit: Int = 10) -> PathReport {
        RollupReports.paths(after: page, moves: moves, limit: limit)
    }

    /// The most common page-to-page moves in sessions, most frequent first.
    public func topTransitions(limit: Int = 20) -> [PageMove] {
        RollupReports.transitions(moves, limit: limit)
    }
}
