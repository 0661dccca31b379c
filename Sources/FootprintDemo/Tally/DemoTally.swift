/// What the demo asked for, counted on its own side: the report must show the same.
///
/// Page views, clicks, named actions, purchases and active days are counted where the virtual
/// users act; exposures and skips where the list recorder emits them (``CountingSink``); nothing
/// is read back from the SDK or the server.
public struct DemoTally: Sendable, Hashable {
    /// Page views per page name.
    public var pageViews: [String: Int] = [:]
    /// The virtual users who viewed each page (a virtual user is one person in the report).
    public var pageVisitors: [String: Set<Int>] = [:]
    /// Element actions (taps and cell selections): `$element_click` events.
    public var clicks = 0
    /// Element actions per plan event name the plan should give them (`$event_name`).
    public var namedClicks: [String: Int] = [:]
    /// Orders placed (`order_completed`, from the purpose method).
    public var purchases = 0
    /// Sign-ins (`identify` messages).
    public var signIns = 0
    /// The virtual users active on each UTC day (`2026-11-23`).
    public var usersPerDay: [String: Set<Int>] = [:]
    /// Cell selections per `$item_id`.
    public var itemClicks: [String: Int] = [:]
    /// Exposure events per `$item_id`, as the recorder emitted them.
    public var itemExposures: [String: Int] = [:]
    /// Skip events per `$item_id`, as the recorder emitted them.
    public var itemSkips: [String: Int] = [:]
    /// Every event handed to the trackers, by event name (`$screen` for page views), plus the
    /// sign-ins.
    public var eventsByName: [String: Int] = [:]

    /// Creates an empty tally.
    public init() {}

    /// Every event the trackers were given: what the server must store, exactly once each.
    public var totalEvents: Int { eventsByName.values.reduce(0, +) + signIns }

    /// Every virtual user who was active at least one day.
    public var visitors: Set<Int> { usersPerDay.values.reduce(into: Set<Int>()) { $0.formUnion($1) } }

    mutating func viewed(_ screen: ShopScreen, by user: Int) {
        pageViews[screen.pageName, default: 0] += 1
        pageVisitors[screen.pageName, default: []].insert(user)
    }

    mutating func clicked(named eventName: String?, itemId: String? = nil) {
        clicks += 1
        if let eventName { namedClicks[eventName, default: 0] += 1 }
        if let itemId { itemClicks[itemId, default: 0] += 1 }
    }

    /// Adds another tally's counts (one visit's) to this one.
    mutating func add(_ other: DemoTally) {
        pageViews.merge(other.pageViews, uniquingKeysWith: +)
        pageVisitors.merge(other.pageVisitors) { $0.union($1) }
        clicks += other.clicks
        namedClicks.merge(other.namedClicks, uniquingKeysWith: +)
        purchases += other.purchases
        signIns += other.signIns
        usersPerDay.merge(other.usersPerDay) { $0.union($1) }
        itemClicks.merge(other.itemClicks, uniquingKeysWith: +)
        itemExposures.merge(other.itemExposures, uniquingKeysWith: +)
        itemSkips.merge(other.itemSkips, uniquingKeysWith: +)
        eventsByName.merge(other.eventsByName, uniquingKeysWith: +)
    }

    /// One launch of the app, as the spec's lifecycle events report it: installed at the first
    /// visit, updated at the first visit on a new version, opened, and backgrounded at the end.
    mutating func launched(version: String, previousVersion: String?) {
        if previousVersion == nil {
            eventsByName[Self.installed, default: 0] += 1
        } else if previousVersion != version {
            eventsByName[Self.updated, default: 0] += 1
        }
        eventsByName[Self.opened, default: 0] += 1
        eventsByName[Self.backgrounded, default: 0] += 1
    }

    static let installed = "Application Installed"
    static let updated = "Application Updated"
    static let opened = "Application Opened"
    static let backgrounded = "Application Backgrounded"
    /// The lifecycle events the demo plays, in the report's order of rows.
    static let lifecycleEvents = [installed, updated, opened, backgrounded]

    mutating func merge(_ counts: CountingSink.Counts) {
        eventsByName.merge(counts.eventsByName, uniquingKeysWith: +)
        itemExposures.merge(counts.exposures, uniquingKeysWith: +)
        itemSkips.merge(counts.skips, uniquingKeysWith: +)
    }
}
