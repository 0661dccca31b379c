import FootprintWire

/// Builds the reports from rollups instead of events: the same figures as ``ReportEngine``
/// (tests compare both on the same data) without reading the events, so their cost does not
/// grow with the events stored. Pure: the store hands it the rollup rows.
///
/// Differences from the engine, each by design: a dwell median is a histogram estimate (see
/// ``DwellHistogram``); a session belongs to the day it started, whole (the engine sees only
/// the part of a session inside the range); an element's page is the one with most clicks.
public enum RollupReports {
    /// Whether rollups can answer `filter`: its range is whole UTC days.
    public static func canAnswer(_ filter: ReportFilter) -> Bool {
        guard let from = filter.from, let to = filter.to else { return false }
        return from.millisecondsSince1970 % 86_400_000 == 0 && to.millisecondsSince1970 % 86_400_000 == 0
    }

    /// The first day (days since 1970-01-01) and the number of days of `filter` (which
    /// ``canAnswer(_:)``).
    static func days(of filter: ReportFilter) -> (first: Int64, count: Int) {
        let first = filter.from?.dayNumber ?? 0
        let last = (filter.to?.dayNumber ?? first + 1) - 1
        return (first, Int(max(0, min(last - first + 1, 3660))))
    }

    // MARK: Traffic

    /// The kinds of daily counts ``traffic(counts:activity:dwell:filter:)`` reads.
    public static let trafficCountKinds: Set<RollupKind> = [.pageViews, .trackEvents, .otherEvents]

    /// The kinds of daily counts ``items(counts:limit:)`` reads.
    public static let itemCountKinds: Set<RollupKind> = [.itemExposures, .itemSkips, .itemClicks]

    /// Kinds of daily counts with a row wherever any kind has one: an event counted under any
    /// kind (``RollupDelta``) is also counted as a page view, a track event or another message,
    /// except a track event without a name, which only a plan event counts.
    public static let dayCountKinds: Set<RollupKind> = trafficCountKinds.union([.planEvents])

    /// PV, UV and DAU/WAU/MAU per day and PV, UV and dwell per page.
    /// - Parameters:
    ///   - counts: the daily counts of the range.
    ///   - activity: who was active in the range (``activity(active:viewers:filter:)``).
    ///   - dwell: each page's dwell histogram over the range.
    ///   - filter: the range.
    public static func traffic(
        counts: [RollupCount], activity: PeopleActivity, dwell: [String: DwellHistogram], filter: ReportFilter
    ) -> TrafficReport {
        let (firstDay, dayCount) = days(of: filter)
        var eventsPerDay = Array(repeating: 0, count: dayCount)
        var viewsPerDay = Array(repeating: 0, count: dayCount)
        var pageViews: [String: [Int]] = [:]
        for count in counts {
            let day = Int(count.day - firstDay)
            guard day >= 0, day < dayCount else { continue }
            switch count.kind {
            case .pageViews:
                viewsPerDay[day].addSaturating(count.count)
                eventsPerDay[day].addSaturating(count.count)
                pageViews[count.key, default: Array(repeating: 0, count: dayCount)][day].addSaturating(
                    count.count)
            case .trackEvents, .otherEvents:
                eventsPerDay[day].addSaturating(count.count)
            case .elementClicks, .similarElementClicks, .itemExposures, .itemSkips, .itemClicks, .anyEvent,
                .planEvents:
                break
            }
        }
        let none = Array(repeating: 0, count: dayCount)
        let days = (0..<dayCount).map { day in
            DayTraffic(
                day: Timestamp(millisecondsSince1970: (firstDay + Int64(day)) * 86_400_000).dayString,
                events: eventsPerDay[day], pageViews: viewsPerDay[day], visitors: activity.visitors[day],
                dailyActive: activity.daily[day], weeklyActive: activity.weekly[day],
                monthlyActive: activity.monthly[day])
        }
        let pages = pageViews.map { page, perDay in
            let histogram = dwell[page] ?? DwellHistogram()
            return PageTraffic(
                page: page, pageViews: perDay.saturatingSum(), visitors: activity.pages[page]?.people ?? 0,
                averageDwellMilliseconds: histogram.average, medianDwellMilliseconds: histogram.median,
                dwellSamples: histogram.count, pageViewsPerDay: perDay,
                visitorsPerDay: activity.pages[page]?.perDay ?? none)
        }.sorted { ($0.pageViews, $1.page) > ($1.pageViews, $0.page) }
        return TrafficReport(
            events: eventsPerDay.saturatingSum(), pageViews: viewsPerDay.saturatingSum(),
            people: activity.people, days: days, pages: pages)
    }

    /// Who was active in the range of `filter`, from person rows.
    /// - Parameters:
    ///   - active: ``RollupKind/anyEvent`` rows of the range.
    ///   - viewers: ``RollupKind/pageViews`` rows of the range (every page).
    public static func activity(active: [RollupPersonDays], viewers: [RollupPersonDays], filter: ReportFilter)
        -> PeopleActivity
    {
        let (firstDay, dayCount) = days(of: filter)
        var activeDays = RangeDays(firstDay: firstDay, dayCount: dayCount)
        for row in active { activeDays.add(row) }
        var visitorDays = RangeDays(firstDay: firstDay, dayCount: dayCount)
        var pageDays: [String: RangeDays] = [:]
        for row in viewers {
            visitorDays.add(row)
            pageDays[row.key, default: RangeDays(firstDay: firstDay, dayCount: dayCount)].add(row)
        }
        return PeopleActivity(
            people: activeDays.people, daily: activeDays.peoplePerDay(window: 1),
            weekly: activeDays.peoplePerDay(window: 7), monthly: activeDays.peoplePerDay(window: 30),
            visitors: visitorDays.peoplePerDay(window: 1),
            pages: pageDays.mapValues {
                PeopleActivity.Page(people: $0.people, perDay: $0.peoplePerDay(window: 1))
            })
    }

    // MARK: Events, elements, items

    /// The `limit` most frequent keys of one kind, most frequent first, ties by key.
    public static func top(_ kind: RollupKind, in counts: [RollupCount], limit: Int) -> [(
        key: String, count: Int
    )] {
        var totals: [String: Int] = [:]
        for count in counts where count.kind == kind {
            totals[count.key, default: 0].addSaturating(count.count)
        }
        return totals.map { (key: $0.key, count: $0.value) }.sorted {
            ($0.count, $1.key) > ($1.count, $0.key)
        }
        .prefix(max(0, limit)).map { $0 }
    }

    /// Distinct people per key among `rows` inside the range of `filter`.
    public static func people(_ rows: [RollupPersonDays], filter: ReportFilter) -> [String: Int] {
        let (firstDay, dayCount) = days(of: filter)
        var perKey: [String: RangeDays] = [:]
        // Rows usually come grouped by key: gather a run of one key before storing it.
        var run: (key: String, days: RangeDays)?
        for row in rows {
            if run?.key != row.key {
                if let done = run { perKey[done.key] = done.days }
                run = (row.key, perKey[row.key] ?? RangeDays(firstDay: firstDay, dayCount: dayCount))
                perKey[row.key] = nil
            }
            run!.days.add(row)
        }
        if let done = run { perKey[done.key] = done.days }
        return perKey.mapValues(\.people)
    }

    /// Track events by name with their people, most frequent first.
    /// - Parameters:
    ///   - top: the events and counts (``top(_:in:limit:)`` of ``RollupKind/trackEvents``).
    ///   - people: the people of those events (``EventStore/peopleCounts(projectId:filter:kind:keys:)``).
    public static func events(top: [(key: String, count: Int)], people: [String: Int]) -> [EventStatistics] {
        top.map {
            EventStatistics(event: $0.key, count: $0.count, uniqueVisitors: people[$0.key] ?? 0)
        }
    }

    /// Element paths with their clicks, page, latest text and people, most clicked first.
    /// - Parameters:
    ///   - rows: the range's element rows (exact or similar paths).
    ///   - people: the people of the paths wanted (or all), of the same kind.
    public static func elements(rows: [RollupPageCount], people: [String: Int], limit: Int)
        -> [ElementStatistics]
    {
        var groups: [String: (clicks: Int, pages: [String: Int], text: (day: Int64, text: String)?)] = [:]
        for row in rows {
            var group = groups[row.key] ?? (0, [:], nil)
            group.clicks.addSaturating(row.count)
            if !row.page.isEmpty { group.pages[row.page, default: 0].addSaturating(row.count) }
            if let text = row.text, group.text.map({ $0.day < row.day }) ?? true {
                group.text = (row.day, text)
            }
            groups[row.key] = group
        }
        return groups.map { path, group in
            ElementStatistics(
                path: path,
                page: group.pages.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key,
                text: group.text?.text, clicks: group.clicks, uniqueVisitors: people[path] ?? 0)
        }.sorted { ($0.clicks, $1.path) > ($1.clicks, $0.path) }.prefix(max(0, limit)).map { $0 }
    }

    /// Exposures, skips, clicks and exposure→click rate per item, most exposed first.
    public static func items(counts: [RollupCount], limit: Int) -> [ItemStatistics] {
        var totals: [String: (exposures: Int, skips: Int, clicks: Int)] = [:]
        for count in counts {
            switch count.kind {
            case .itemExposures: totals[count.key, default: (0, 0, 0)].exposures.addSaturating(count.count)
            case .itemSkips: totals[count.key, default: (0, 0, 0)].skips.addSaturating(count.count)
            case .itemClicks: totals[count.key, default: (0, 0, 0)].clicks.addSaturating(count.count)
            default: break
            }
        }
        return totals.map {
            ItemStatistics(
                itemId: $0.key, exposures: $0.value.exposures, skips: $0.value.skips, clicks: $0.value.clicks)
        }
        .sorted { ($0.exposures, $0.clicks, $1.itemId) > ($1.exposures, $1.clicks, $0.itemId) }
        .prefix(max(0, limit)).map { $0 }
    }

    // MARK: Event definitions

    /// Whether rollups can answer a definition: it has no attribute conditions, and either all
    /// its path rules compare similar paths or none does.
    public static func canAnswer(_ definition: EventDefinition) -> Bool {
        let rules = definition.matchers.compactMap(\.path)
        return rules.allSatisfy { $0.attributes.isEmpty }
            && (rules.allSatisfy { $0.match == .similar } || rules.allSatisfy { $0.match != .similar })
    }

    /// The person rows that hold the people of some counted events: a kind, a key and a page.
    public struct PeopleSelector: Sendable, Hashable {
        /// The rows' kind.
        public var kind: RollupKind
        /// The rows' key.
        public var key: String
        /// The rows' page (`""`: none).
        public var page: String
    }

    /// A kind and key of person rows over every page (the people per key and day that
    /// ``EventStore/peopleCounts(projectId:filter:kind:keys:)`` counts).
    public struct PeopleKey: Sendable, Hashable {
        /// The rows' kind.
        public var kind: RollupKind
        /// The rows' key.
        public var key: String
    }

    /// What a definition matched among the counts: how many events, and where their people are.
    public struct DefinitionMatch: Sendable, Hashable {
        /// Events matched.
        public var count: Int
        /// The person rows of those events.
        public var people: Set<PeopleSelector>
        /// The keys whose people (on every page) are exactly those of ``people``: set when, for
        /// each kind and key it selects, ``people`` holds every page the counts have that key
        /// on, and selects no other message (whose people are any event's on a page); else
        /// `nil`.
        public var wholeKeys: Set<PeopleKey>?
    }

    /// The kinds of daily counts ``match(_:counts:)`` reads.
    public static let definitionCountKinds: Set<RollupKind> = [
        .pageViews, .trackEvents, .otherEvents, .elementClicks, .similarElementClicks,
    ]

    /// Matches a definition (which ``canAnswer(_:)-swift.type.method``) against the counts of a range.
    ///
    /// The counts are split so that every event is in exactly one group: page views by name and
    /// page, track events other than clicks by name and page, clicks by path (similar paths when
    /// the definition's rules are similar) and page, clicks without a path per page (all clicks
    /// minus those with one), other messages by type and page. Each group is matched once as an
    /// event with its fields. People come from the group's person rows; clicks without a path
    /// and other messages are matched only by rules that also match every event of their kind
    /// on the page, so those rows (all clicks, any event on the page) hold exactly their people.
    /// - Parameter counts: rows of kinds page views, track events, other events and element
    ///   clicks (exact and similar).
    public static func match(_ definition: EventDefinition, counts: [RollupPageCount]) -> DefinitionMatch {
        let similar = definition.matchers.contains { $0.path?.match == .similar }
        let clickKind: RollupKind = similar ? .similarElementClicks : .elementClicks
        var totals: [PeopleSelector: Int] = [:]
        for row in counts {
            totals[PeopleSelector(kind: row.kind, key: row.key, page: row.page), default: 0].addSaturating(
                row.count)
        }
        var clicksWithPath: [String: Int] = [:]
        for (group, count) in totals where group.kind == clickKind {
            clicksWithPath[group.page, default: 0].addSaturating(count)
        }
        var matched = DefinitionMatch(count: 0, people: [])
        for (group, count) in totals {
            let page = group.page.isEmpty ? nil : group.page
            let time = Timestamp(millisecondsSince1970: 0)
            var candidate: AnalyticsEvent
            var selector = group
            switch group.kind {
            case .pageViews:
                candidate = AnalyticsEvent(type: .screen, name: group.key, time: time, page: page)
            case .trackEvents where group.key == "$element_click":
                let withoutPath = count - (clicksWithPath[group.page] ?? 0)
                guard withoutPath > 0 else { continue }
                candidate = AnalyticsEvent(type: .track, name: group.key, time: time, page: page)
                if definition.matches(candidate) {
                    matched.count.addSaturating(withoutPath)
                    matched.people.insert(selector)
                }
                continue
            case .trackEvents:
                candidate = AnalyticsEvent(type: .track, name: group.key, time: time, page: page)
            case clickKind:
                candidate = AnalyticsEvent(
                    type: .track, name: "$element_click", time: time, page: page, elementPath: group.key,
                    similarPath: group.key)
            case .otherEvents:
                candidate = AnalyticsEvent(
                    type: MessageType(rawValue: group.key) ?? .identify, name: nil, time: time, page: page)
                selector = PeopleSelector(kind: .anyEvent, key: "", page: group.page)
            default:
                continue
            }
            if definition.matches(candidate) {
                matched.count.addSaturating(count)
                matched.people.insert(selector)
            }
        }
        matched.wholeKeys = wholeKeys(of: matched.people, pagesIn: totals.keys)
        return matched
    }

    /// The kinds and keys of `selectors` when they hold every page `counted` has each of them
    /// on (and no other message's page), else `nil` (see ``DefinitionMatch/wholeKeys``).
    /// - Parameter counted: the kind, key and page of every counted group of the range.
    static func wholeKeys<Counted: Sequence>(of selectors: Set<PeopleSelector>, pagesIn counted: Counted)
        -> Set<PeopleKey>? where Counted.Element == PeopleSelector
    {
        let keys = Set(selectors.map { PeopleKey(kind: $0.kind, key: $0.key) })
        guard !keys.contains(where: { $0.kind == .anyEvent }) else { return nil }
        for group in counted
        where keys.contains(PeopleKey(kind: group.kind, key: group.key)) && !selectors.contains(group) {
            return nil
        }
        return keys
    }

    /// The distinct people of `keys` (on every page) on the days of `filter`'s range.
    /// - Parameter sets: each kind's people per key and day (links applied), holding `keys`.
    static func people(
        ofKeys keys: Set<PeopleKey>, sets: [RollupKind: [String: DaySets]], filter: ReportFilter
    )
        -> Int
    {
        let (firstDay, dayCount) = days(of: filter)
        var inRange: [PersonSet] = []
        for key in keys {
            for (day, set) in sets[key.kind]?[key.key] ?? [:]
            where day >= firstDay && day < firstDay + Int64(dayCount) {
                inRange.append(set)
            }
        }
        return PersonSet.unionCount(inRange)
    }

    /// Each definition's events and people, most frequent first.
    /// - Parameters:
    ///   - matches: ``match(_:counts:)`` of each definition (same order).
    ///   - people: the people of each match's selectors (same order).
    public static func definedEvents(
        _ definitions: [EventDefinition], matches: [DefinitionMatch], people: [Int]
    )
        -> [EventStatistics]
    {
        zip(definitions, zip(matches, people)).map { definition, match in
            EventStatistics(event: definition.name, count: match.0.count, uniqueVisitors: match.1)
        }.sorted(by: EventStatistics.mostFrequentFirst)
    }

    /// The distinct people of each of `selections` among person rows (with their pages) in the
    /// range of `filter`.
    /// - Parameter rows: the person rows of every selector, by kind.
    public static func people(
        of selections: [Set<PeopleSelector>], rows: [RollupKind: [RollupPersonDays]], filter: ReportFilter
    ) -> [Int] {
        let (firstDay, dayCount) = days(of: filter)
        return selections.map { selection in
            var days = RangeDays(firstDay: firstDay, dayCount: dayCount)
            for kind in Set(selection.map(\.kind)) {
                for row in rows[kind] ?? []
                where selection.contains(PeopleSelector(kind: kind, key: row.key, page: row.page)) {
                    days.add(row)
                }
            }
            return days.people
        }
    }

    // MARK: Sessions and paths

    /// Session count, length and screens per session.
    public static func sessions(_ figures: SessionFigures) -> SessionReport {
        let count = figures.sessions
        return SessionReport(
            sessions: count,
            averageLengthMilliseconds: count == 0
                ? 0 : Int(saturating: Double(figures.totalLengthMilliseconds) / Double(count)),
            medianLengthMilliseconds: count == 0
                ? 0
                : ReportEngine.median(
                    lower: figures.lowerMiddleLengthMilliseconds, upper: figures.upperMiddleLengthMilliseconds
                ),
            screensPerSession: count == 0 ? 0 : Double(figures.pageViews) / Double(count),
            bounces: figures.bounces)
    }

    /// The most common next pages after `page` (`moves` from it).
    public static func paths(after page: String, moves: [RollupMove], limit: Int) -> PathReport {
        var counts: [String?: Int] = [:]
        for move in moves where move.from == page { counts[move.to, default: 0].addSaturating(move.count) }
        let visits = counts.values.saturatingSum()
        let next = counts.map { next, count in
            PageTransition(next: next, count: count, share: visits == 0 ? 0 : Double(count) / Double(visits))
        }.sorted { ($0.count, $1.next ?? "") > ($1.count, $0.next ?? "") }
        return PathReport(page: page, visits: visits, next: Array(next.prefix(max(0, limit))))
    }

    /// The most common page-to-page moves, most frequent first.
    public static func transitions(_ moves: [RollupMove], limit: Int) -> [PageMove] {
        var counts: [String: [String: Int]] = [:]
        for move in moves {
            guard let to = move.to else { continue }
            counts[move.from, default: [:]][to, default: 0].addSaturating(move.count)
        }
        return counts.flatMap { from, next in next.map { PageMove(from: from, to: $0.key, count: $0.value) } }
            .sorted { ($0.count, $1.from, $1.to) > ($1.count, $0.from, $0.to) }.prefix(max(0, limit)).map {
                $0
            }
    }

    // MARK: Retention

    /// Cohorts by each person's first active day in range; day N counts those with a return
    /// day N days later (see ``ReportEngine/retention(returnEvent:days:lastDay:)``).
    /// - Parameters:
    ///   - active: ``RollupKind/anyEvent`` rows of the range.
    ///   - returns: the return event's rows (``RollupKind/trackEvents``), or `nil` for any event.
    public static func retention(
        active: [RollupPersonDays], returns: [RollupPersonDays]?, returnEvent: String?, days span: Int,
        filter: ReportFilter
    ) -> RetentionReport {
        let (firstDay, dayCount) = days(of: filter)
        var activeDays = RangeDays(firstDay: firstDay, dayCount: dayCount)
        for row in active { activeDays.add(row) }
        var returnDays = activeDays
        if let returns {
            returnDays = RangeDays(firstDay: firstDay, dayCount: dayCount)
            for row in returns { returnDays.add(row) }
        }
        return retention(
            activeDays: activeDays, returnDays: returnDays, returnEvent: returnEvent, days: span,
            filter: filter)
    }

    /// The cohorts of `activeDays` (by each person's first day) and their returns on
    /// `returnDays`, over the range of `filter`.
    static func retention<Index>(
        activeDays: PersonRangeDays<Index>, returnDays: PersonRangeDays<Index>, returnEvent: String?,
        days span: Int,
        filter: ReportFilter
    ) -> RetentionReport {
        let span = max(0, span)
        var cohorts: [Int: Cohort] = [:]
        for (slot, person) in activeDays.persons.enumerated() {
            guard let first = activeDays.days(inSlot: slot).first else { continue }
            var cohort = cohorts[first] ?? Cohort(people: 0, returned: Array(repeating: 0, count: span + 1))
            cohort.people += 1
            if let back = returnDays.slot(of: person) {
                for n in 0...span where returnDays.has(first + n, inSlot: back) { cohort.returned[n] += 1 }
            }
            cohorts[first] = cohort
        }
        return retention(cohorts: cohorts, returnEvent: returnEvent, days: span, filter: filter)
    }

    /// One retention cohort: its people, and per day after its first (0…span) those who returned.
    public struct Cohort: Sendable, Hashable {
        /// The people whose first active day in range is the cohort's.
        public var people: Int
        /// For day `n` after it, the people active (or doing the return event) then.
        public var returned: [Int]

        /// Creates a cohort.
        public init(people: Int, returned: [Int]) {
            self.people = people
            self.returned = returned
        }
    }

    /// The retention report of `cohorts` (by first day, an offset in the range): the days past
    /// the range's end are unknown (`nil`).
    public static func retention(
        cohorts: [Int: Cohort], returnEvent: String?, days span: Int, filter: ReportFilter
    ) -> RetentionReport {
        let (firstDay, dayCount) = days(of: filter)
        let span = max(0, span)
        let rows = cohorts.keys.sorted().map { day in
            let cohort = cohorts[day]!
            return RetentionCohort(
                day: Timestamp(millisecondsSince1970: (firstDay + Int64(day)) * 86_400_000).dayString,
                people: cohort.people,
                returned: (0...span).map { n in
                    day + n < dayCount && n < cohort.returned.count ? cohort.returned[n] : nil
                })
        }
        return RetentionReport(returnEvent: returnEvent, cohorts: rows, days: span)
    }
}

/// The days of a range on which each person did something, gathered from day-bitmask rows
/// (a person's rows are OR-ed, so one person never counts twice). Adding a row costs one lookup
/// of its person and a shift of its mask, whatever the number of days. `Person` is the text id
/// of person rows (``HashedSlots``), or the number of person sets (``NumberSlots``).
struct PersonRangeDays<Index: PersonSlotIndex> {
    typealias Person = Index.Person
    let firstDay: Int64
    let dayCount: Int
    /// 64-bit words per person.
    let width: Int
    /// Each person's slot.
    private var index = Index()
    /// The person in each slot.
    private(set) var persons: [Person] = []
    /// The days of the person in slot `s`: bit `n` of word `s * width + n / 64` is day
    /// `firstDay + n`.
    private(set) var words: [UInt64] = []

    init(firstDay: Int64, dayCount: Int) {
        self.firstDay = firstDay
        self.dayCount = dayCount
        width = max(1, (dayCount + 63) / 64)
    }

    /// Adds the days of `person` that fall in the range: bit `b` of `days` is day
    /// `blockFirstDay + b`.
    mutating func add(_ person: Person, days: UInt64, blockFirstDay: Int64) {
        // Bit b of the row is day `offset + b` of the range.
        let offset = blockFirstDay &- firstDay
        guard days != 0, offset &+ 63 >= 0, offset < Int64(dayCount) else { return }
        var slot: Int?
        for word in Int(max(0, offset) >> 6)...Int(min(Int64(width - 1), (offset + 63) >> 6)) {
            let shift = offset - Int64(word) * 64
            var part: UInt64 =
                shift >= 0
                ? (shift < 64 ? days << UInt64(shift) : 0)
                : (shift > -64 ? days >> UInt64(-shift) : 0)
            let valid = dayCount - word * 64
            if valid < 64 { part &= (1 << UInt64(valid)) - 1 }
            guard part != 0 else { continue }
            if slot == nil { slot = assignSlot(to: person) }
            words[slot! * width + word] |= part
        }
    }

    /// Adds day `day` to each of `people` (when the day is in the range).
    mutating func add(_ people: [Person], day: Int64) {
        let offset = day &- firstDay
        guard offset >= 0, offset < Int64(dayCount) else { return }
        let word = Int(offset >> 6)
        let bit = UInt64(1) << UInt64(offset & 63)
        for person in people { words[assignSlot(to: person) * width + word] |= bit }
    }

    /// The slot of `person`, the next one (with no days yet) when it has none.
    private mutating func assignSlot(to person: Person) -> Int {
        let slot = index.slot(of: person, next: persons.count)
        if slot == persons.count {
            persons.append(person)
            words.append(contentsOf: repeatElement(0, count: width))
        }
        return slot
    }

    /// The slot of `person`, when it has a day.
    func slot(of person: Person) -> Int? { index.slot(of: person) }

    /// People with at least one day.
    var people: Int { persons.count }

    /// The days (offsets in the range) of the person in `slot`, in order.
    func days(inSlot slot: Int) -> [Int] {
        var days: [Int] = []
        for word in 0..<width {
            var bits = words[slot * width + word]
            while bits != 0 {
                days.append(word * 64 + bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
        return days
    }

    /// Whether the person in `slot` has day `day` (an offset in the range).
    func has(_ day: Int, inSlot slot: Int) -> Bool {
        day >= 0 && day < dayCount && words[slot * width + day / 64] & (1 << UInt64(day % 64)) != 0
    }

    /// For each day, the people with a day among the `window` days ending there (in range).
    func peoplePerDay(window: Int) -> [Int] {
        var counts = Array(repeating: 0, count: dayCount + 1)
        for slot in 0..<persons.count {
            // Each active day covers itself and the next window − 1 days; count each day once.
            // The days in order, as ``days(inSlot:)`` lists them, read from the bits in place.
            var coveredUntil = -1
            for word in 0..<width {
                var bits = words[slot * width + word]
                while bits != 0 {
                    let day = word * 64 + bits.trailingZeroBitCount
                    bits &= bits - 1
                    let start = max(day, coveredUntil + 1)
                    let end = min(dayCount - 1, day + window - 1)
                    guard start <= end else { continue }
                    counts[start] += 1
                    counts[end + 1] -= 1
                    coveredUntil = end
                }
            }
        }
        var running = 0
        return (0..<dayCount).map { day in
            running += counts[day]
            return running
        }
    }
}

/// The days of people known by their text ids (person rows).
typealias RangeDays = PersonRangeDays<HashedSlots<String>>

/// Where ``PersonRangeDays`` finds each person's slot.
protocol PersonSlotIndex {
    associatedtype Person: Hashable
    init()
    /// The slot of `person`; `next` (then recorded as its slot) when it had none.
    mutating func slot(of person: Person, next: Int) -> Int
    /// The slot of `person`, if any.
    func slot(of person: Person) -> Int?
}

/// Slots in a dictionary: for any person.
struct HashedSlots<Person: Hashable>: PersonSlotIndex {
    private var slots: [Person: Int] = [:]

    mutating func slot(of person: Person, next: Int) -> Int {
        if let known = slots[person] { return known }
        slots[person] = next
        return next
    }

    func slot(of person: Person) -> Int? { slots[person] }
}

/// Slots of person numbers, which are dense: an array indexed by the number (one load per
/// member instead of a hash), and a dictionary for numbers from 2^24 on, so a hostile number
/// cannot make the array large.
struct NumberSlots: PersonSlotIndex {
    static let denseLimit: UInt32 = 1 << 24
    /// `dense[n]` is number n's slot + 1, 0 for none.
    private var dense: [Int32] = []
    private var sparse: [UInt32: Int] = [:]

    mutating func slot(of number: UInt32, next: Int) -> Int {
        guard number < Self.denseLimit, next < Int(Int32.max) else {
            if let known = sparse[number] { return known }
            sparse[number] = next
            return next
        }
        let index = Int(number)
        if index >= dense.count {
            dense.append(contentsOf: repeatElement(0, count: max(index + 1 - dense.count, dense.count)))
        }
        if dense[index] > 0 { return Int(dense[index]) - 1 }
        dense[index] = Int32(next + 1)
        return next
    }

    func slot(of number: UInt32) -> Int? {
        let index = Int(number)
        if number < Self.denseLimit, index < dense.count, dense[index] > 0 { return Int(dense[index]) - 1 }
        return sparse[number]
    }
}

extension PersonRangeDays where Person == String {
    /// Adds a row's days that fall in the range.
    mutating func add(_ row: RollupPersonDays) {
        add(row.person, days: row.days, blockFirstDay: row.firstDay)
    }
}
