/// The overview report of one project (`footprint report`, the demo's check): PV, UV and dwell
/// per page, top events, users per day, plan-named events, element paths and list items, over
/// a range of UTC days. Built by ``ReportService/overview(project:parameters:)``.
///
/// Visitors are people, as in every report (see ``ReportEngine``): an event's `userId`, else
/// the user id its `anonymousId` was linked to by identify or alias (the smallest, when several
/// were), else its `anonymousId`; so
/// one person on two devices, or before and after signing in, counts once.
public struct Report: Sendable, Hashable, Codable {
    /// The most entries in ``topEvents`` and ``namedEvents``: 20.
    public static let topEventLimit = 20
    /// The most paths in ``topElements``: 20.
    public static let topElementLimit = 20
    /// The most items in ``items``: 100.
    public static let itemLimit = 100

    /// The project's name.
    public var project: String
    /// The range's first UTC day (`2026-11-23`).
    public var fromDay: String
    /// The range's last UTC day (included).
    public var toDay: String
    /// Events stored for the project, whatever the range.
    public var totalEvents: Int
    /// Distinct people with an event in the range.
    public var uniqueVisitors: Int
    /// Events devices reported evicting unsent (their queue was full), whatever the range.
    public var lostEvents: Int
    /// Per page (screen and page views), most viewed first.
    public var pages: [PageStatistics]
    /// Track events by name, most frequent first (at most ``topEventLimit``).
    public var topEvents: [EventStatistics]
    /// Distinct people per UTC day of the event time, oldest first; days without events are
    /// left out.
    public var usersPerDay: [DailyUsers]
    /// Automatically captured actions the tracking plan names (`$event_name`), most frequent
    /// first (at most ``topEventLimit``).
    public var namedEvents: [EventStatistics]
    /// The most clicked element paths (`$element_click`), most frequent first (at most
    /// ``topElementLimit``).
    public var topElements: [ElementStatistics]
    /// List items by `$item_id`: exposures, skips, clicks and exposure→click rate, most exposed
    /// first (at most ``itemLimit``).
    public var items: [ItemStatistics]

    /// Creates a report.
    public init(
        project: String, fromDay: String, toDay: String, totalEvents: Int, uniqueVisitors: Int,
        lostEvents: Int, pages: [PageStatistics], topEvents: [EventStatistics], usersPerDay: [DailyUsers],
        namedEvents: [EventStatistics] = [], topElements: [ElementStatistics] = [],
        items: [ItemStatistics] = []
    ) {
        self.project = project
        self.fromDay = fromDay
        self.toDay = toDay
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
    /// The page of the most recent click that had one (`$page_name`).
    public var page: String?
    /// The element's text (`$element_text`) in the most recent click that had one.
    public var text: String?
    /// `$element_click` events with this path.
    public var clicks: Int
    /// Distinct people who clicked it.
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
    /// Distinct people who viewed it.
    public var uniqueVisitors: Int
    /// The mean dwell of its visits, rounded; `nil` when none was measured. A visit's dwell is
    /// its `$screen_leave` `duration_ms`, else the time to the session's next page view (at most
    /// 30 minutes); a session's last visit without a leave has none.
    public var averageDwellMilliseconds: Int?
    /// How many visits the average is over.
    public var dwellSamples: Int

    /// Creates page statistics.
    public init(
        page: String, pageViews: Int, uniqueVisitors: Int, averageDwellMilliseconds: Int?, dwellSamples: Int
    ) {
        self.page = page
        self.pageViews = pageViews
        self.uniqueVisitors = uniqueVisitors
        self.averageDwellMilliseconds = averageDwellMilliseconds
        self.dwellSamples = dwellSamples
    }
}

/// Occurrences of one track event.
public struct EventStatistics: Sendable, Hashable, Codable {
    /// The event name.
    public var event: String
    /// How many were stored.
    public var count: Int
    /// Distinct people who sent it.
    public var uniqueVisitors: Int

    /// Creates event statistics.
    public init(event: String, count: Int, uniqueVisitors: Int) {
        self.event = event
        self.count = count
        self.uniqueVisitors = uniqueVisitors
    }

    /// The order of every event list: most frequent first, then by name.
    public static func mostFrequentFirst(_ first: EventStatistics, _ second: EventStatistics) -> Bool {
        (first.count, second.event) > (second.count, first.event)
    }
}

/// Distinct people on one day.
public struct DailyUsers: Sendable, Hashable, Codable {
    /// The UTC day, `2026-11-29`.
    public var day: String
    /// Distinct people with an event that day.
    public var users: Int

    /// Creates a day's count.
    public init(day: String, users: Int) {
        self.day = day
        self.users = users
    }
}
