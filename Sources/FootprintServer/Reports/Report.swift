/// The overview report of one project: PV and UV per page, dwell, top events, users per day.
///
/// A visitor is an event's `anonymousId` (one install), or its `userId` when it has none.
public struct Report: Sendable, Hashable, Codable {
    /// The project's name.
    public var project: String
    /// Events stored.
    public var totalEvents: Int
    /// Distinct visitors over all events.
    public var uniqueVisitors: Int
    /// Events devices reported evicting unsent (their queue was full).
    public var lostEvents: Int
    /// Per page (screen and page views), most viewed first.
    public var pages: [PageStatistics]
    /// Track events by name, most frequent first (at most ``ReportQuery/topEventLimit``).
    public var topEvents: [EventStatistics]
    /// Distinct visitors per UTC day of the event time, oldest first.
    public var usersPerDay: [DailyUsers]

    /// Creates a report.
    public init(
        project: String, totalEvents: Int, uniqueVisitors: Int, lostEvents: Int, pages: [PageStatistics],
        topEvents: [EventStatistics], usersPerDay: [DailyUsers]
    ) {
        self.project = project
        self.totalEvents = totalEvents
        self.uniqueVisitors = uniqueVisitors
        self.lostEvents = lostEvents
        self.pages = pages
        self.topEvents = topEvents
        self.usersPerDay = usersPerDay
    }
}

/// Views of one page.
public struct PageStatistics: Sendable, Hashable, Codable {
    /// The page name (`name` of screen and page messages).
    public var page: String
    /// Page views: screen and page messages.
    public var pageViews: Int
    /// Distinct visitors who viewed it.
    public var uniqueVisitors: Int
    /// The mean `duration_ms` of its `$screen_leave` events, rounded; `nil` when none.
    public var averageDwellMilliseconds: Int?
    /// How many `$screen_leave` events the average is over.
    public var leaves: Int

    /// Creates page statistics.
    public init(
        page: String, pageViews: Int, uniqueVisitors: Int, averageDwellMilliseconds: Int?, leaves: Int
    ) {
        self.page = page
        self.pageViews = pageViews
        self.uniqueVisitors = uniqueVisitors
        self.averageDwellMilliseconds = averageDwellMilliseconds
        self.leaves = leaves
    }
}

/// Occurrences of one track event.
public struct EventStatistics: Sendable, Hashable, Codable {
    /// The event name.
    public var event: String
    /// How many were stored.
    public var count: Int
    /// Distinct visitors who sent it.
    public var uniqueVisitors: Int

    /// Creates event statistics.
    public init(event: String, count: Int, uniqueVisitors: Int) {
        self.event = event
        self.count = count
        self.uniqueVisitors = uniqueVisitors
    }
}

/// Distinct visitors on one day.
public struct DailyUsers: Sendable, Hashable, Codable {
    /// The UTC day, `2026-11-29`.
    public var day: String
    /// Distinct visitors with an event that day.
    public var users: Int

    /// Creates a day's count.
    public init(day: String, users: Int) {
        self.day = day
        self.users = users
    }
}

/// What a report covers.
public struct ReportQuery: Sendable, Hashable {
    /// The project's name.
    public var project: String
    /// The most event names in ``Report/topEvents``. Default 20.
    public var topEventLimit = 20

    /// Creates a query for `project`.
    public init(project: String, topEventLimit: Int = 20) {
        self.project = project
        self.topEventLimit = topEventLimit
    }
}
