import FootprintWire

/// What a daily rollup count counts.
public enum RollupKind: Int64, Sendable, Hashable, CaseIterable {
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
    /// `$item_exposure` events, keyed by `$item_id`.
    case itemExposures = 5
    /// `$item_skip` events, keyed by `$item_id`.
    case itemSkips = 6
    /// `$element_click` events with an `$item_id`, keyed by it.
    case itemClicks = 7
    /// Any event (people only, key ""): who was active.
    case anyEvent = 8
    /// Track events the tracking plan named (`$event_name`), keyed by that name.
    case planEvents = 9

    /// `kind IN (…)` of these kinds, in the order of their numbers, for either store's SQL.
    static func sqlCondition(_ kinds: some Sequence<RollupKind>) -> String {
        "kind IN (\(kinds.map(\.rawValue).sorted().map(String.init).joined(separator: ", ")))"
    }
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

/// The days a person did something (a ``RollupKind`` and key), from one 64-day block.
public struct RollupPersonDays: Sendable, Hashable {
    /// The page name, event name or path (`""` for ``RollupKind/anyEvent``).
    public var key: String
    /// The block's first day (days since 1970-01-01, a multiple of 64); bit `n` of ``days`` is
    /// day `firstDay + n`.
    public var firstDay: Int64
    /// The person (identity links applied; see ``ReportEngine``).
    public var person: String
    /// The page the events were on (`""`: none).
    public var page: String
    /// The days, as bits.
    public var days: UInt64

    /// Creates a row.
    public init(key: String, firstDay: Int64, person: String, page: String = "", days: UInt64) {
        self.key = key
        self.page = page
        self.firstDay = firstDay
        self.person = person
        self.days = days
    }

    /// Whether a read of person rows gives each row's page
    /// (``EventStore/rollupPersonDays(projectId:filter:kind:keys:pages:)``).
    public enum Pages: Sendable {
        /// Each row's page.
        case each
        /// A store may give one row per person over every page (its page `""`): far fewer rows,
        /// for the callers that only count people.
        case merged
    }
}

/// One daily count on one page.
public struct RollupPageCount: Sendable, Hashable {
    /// What is counted.
    public var kind: RollupKind
    /// The page name, event name, path or item.
    public var key: String
    /// The page (`""` when unknown).
    public var page: String
    /// Days since 1970-01-01.
    public var day: Int64
    /// How many.
    public var count: Int
    /// For element clicks: an element text seen that day.
    public var text: String?

    /// Creates a row.
    public init(kind: RollupKind, key: String, page: String, day: Int64, count: Int, text: String?) {
        self.kind = kind
        self.key = key
        self.page = page
        self.day = day
        self.count = count
        self.text = text
    }
}

/// One stored session's length and page views.
public struct StoredSession: Sendable, Hashable {
    /// From its first to its last event, in milliseconds.
    public var lengthMilliseconds: Int64
    /// Its page views.
    public var pageViews: Int

    /// Creates a row.
    public init(lengthMilliseconds: Int64, pageViews: Int) {
        self.lengthMilliseconds = lengthMilliseconds
        self.pageViews = pageViews
    }
}

/// A range's sessions summed up: what the sessions report shows of them, as a store can count it
/// without sending each session (``init(_:)`` defines every figure).
public struct SessionFigures: Sendable, Hashable {
    /// How many sessions.
    public var sessions: Int
    /// Their lengths added up, held within `Int64` (a length below 0 counts as 0).
    public var totalLengthMilliseconds: Int64
    /// The `(count - 1) / 2`th of the sorted lengths, from 0 (0 without sessions).
    public var lowerMiddleLengthMilliseconds: Int64
    /// The `count / 2`th of the sorted lengths, from 0: the lower middle's when the count is odd.
    public var upperMiddleLengthMilliseconds: Int64
    /// Their page views added up, held within `Int`.
    public var pageViews: Int
    /// The sessions with one page view or none.
    public var bounces: Int

    /// The figures of `sessions`: their definition.
    public init(_ sessions: [StoredSession]) {
        let lengths = sessions.map { max(0, $0.lengthMilliseconds) }.sorted()
        self.init(
            sessions: sessions.count, totalLengthMilliseconds: lengths.saturatingSum(),
            lowerMiddleLengthMilliseconds: lengths.isEmpty ? 0 : lengths[(lengths.count - 1) / 2],
            upperMiddleLengthMilliseconds: lengths.isEmpty ? 0 : lengths[lengths.count / 2],
            pageViews: sessions.map(\.pageViews).saturatingSum(),
            bounces: sessions.count { $0.pageViews <= 1 })
    }

    /// Figures a store counted.
    public init(
        sessions: Int, totalLengthMilliseconds: Int64, lowerMiddleLengthMilliseconds: Int64,
        upperMiddleLengthMilliseconds: Int64, pageViews: Int, bounces: Int
    ) {
        self.sessions = sessions
        self.totalLengthMilliseconds = totalLengthMilliseconds
        self.lowerMiddleLengthMilliseconds = lowerMiddleLengthMilliseconds
        self.upperMiddleLengthMilliseconds = upperMiddleLengthMilliseconds
        self.pageViews = pageViews
        self.bounces = bounces
    }
}

/// Moves from one page to the next within sessions.
public struct RollupMove: Sendable, Hashable {
    /// The page left.
    public var from: String
    /// The next page, `nil` for the session's end.
    public var to: String?
    /// How many.
    public var count: Int

    /// Creates a row.
    public init(from: String, to: String?, count: Int) {
        self.from = from
        self.to = to
        self.count = count
    }
}

/// Who was active on the days of a range (identity links applied): each figure of
/// ``TrafficReport`` that counts people.
public struct PeopleActivity: Sendable, Hashable {
    /// One page's visitors.
    public struct Page: Sendable, Hashable {
        /// The people who viewed it.
        public var people: Int
        /// The people who viewed it, per day of the range.
        public var perDay: [Int]

        /// Creates a page's figures.
        public init(people: Int, perDay: [Int]) {
            self.people = people
            self.perDay = perDay
        }
    }

    /// The people active in the range.
    public var people: Int
    /// Per day of the range, the people active that day, in the 7 days and in the 30 days
    /// ending that day (within the range).
    public var daily: [Int], weekly: [Int], monthly: [Int]
    /// Per day of the range, the people who viewed a page.
    public var visitors: [Int]
    /// Each viewed page's visitors.
    public var pages: [String: Page]

    /// Creates the figures.
    public init(
        people: Int, daily: [Int], weekly: [Int], monthly: [Int], visitors: [Int], pages: [String: Page]
    ) {
        self.people = people
        self.daily = daily
        self.weekly = weekly
        self.monthly = monthly
        self.visitors = visitors
        self.pages = pages
    }
}
