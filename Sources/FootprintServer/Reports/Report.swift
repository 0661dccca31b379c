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
    /// Automatically captured actions the tracking plan names (`$event_name`), most frequent
    /// first.
    public var namedEvents: [EventStatistics]
    /// The most clicked element paths (`$element_click`), most frequent first (at most
    /// ``ReportQuery/topElementLimit``).
    public var topElements: [ElementStatistics]
    /// List items by `$item_id`: exposures, skips, clicks and exposure→click rate, most exposed
    /// first (at most ``ReportQuery/itemLimit``).
    public var items: [ItemStatistics]

    /// Creates a report.
    public init(
        project: String, totalEvents: Int, uniqueVisitors: Int, lostEvents: Int, pages: [PageStatistics],
        topEvents: [EventStatistics], usersPerDay: [DailyUsers], namedEvents: [EventStatistics] = [],
        topElements: [ElementStatistics] = [], items: [ItemStatistics] = []
    ) {
        self.project = project
        self.totalEvents = totalEvents
        self.uniqueVisitors = uniqueVisitors
        self.lostEvents = lostEvents
        self.pages = pages
        self.topEvents = topEvents
        self.usersPerDay = usersPerDay
        self.namedEvents = namedEvents
        self.topElements = topElements
        self.items = items
    }
}

/// Clicks on one element path.
public struct ElementStatistics: Sendable, Hashable, Codable {
    /// The exact `$element_path`.
    public var path: String
    /// The page it was on (`$page_name`), when known.
    public var page: String?
    /// The element's text (`$element_text`) in the most recent click, when captured.
    public var text: String?
    /// `$element_click` events with this path.
    public var clicks: Int
    /// Distinct visitors who clicked it.
    public var uniqueVisitors: Int

    /// Creates element statistics.
    public init(path: String, page: String?, text: String?, clicks: Int, uniqueVisitors: Int) {
        self.path = path
        self.page = page
        self.text = text
        self.clicks = clicks
        self.uniqueVisitors = uniqueVisitors
    }
}

/// Exposure, skips and clicks of one list item (`$item_id`).
public struct ItemStatistics: Sendable, Hashable, Codable {
    /// The item's business id (or `section:row` when the app gave none).
    public var itemId: String
    /// `$item_exposure` events: times the item was seen at rest (or for its dwell).
    public var exposures: Int
    /// `$item_skip` events: times it was flung past unseen.
    public var skips: Int
    /// `$element_click` events on it.
    public var clicks: Int
    /// `clicks / exposures`, `nil` without exposures.
    public var clickThroughRate: Double?

    /// Creates item statistics; the rate is derived.
    public init(itemId: String, exposures: Int, skips: Int, clicks: Int) {
        self.itemId = itemId
        self.exposures = exposures
        self.skips = skips
        self.clicks = clicks
        clickThroughRate = exposures > 0 ? Double(clicks) / Double(exposures) : nil
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
    /// The most paths in ``Report/topElements``. Default 20.
    public var topElementLimit = 20
    /// The most items in ``Report/items``. Default 100.
    public var itemLimit = 100

    /// Creates a query for `project`.
    public init(project: String, topEventLimit: Int = 20, topElementLimit: Int = 20, itemLimit: Int = 100) {
        self.project = project
        self.topEventLimit = topEventLimit
        self.topElementLimit = topElementLimit
        self.itemLimit = itemLimit
    }
}
