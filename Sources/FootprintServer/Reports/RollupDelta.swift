import FootprintSQLite
import FootprintWire

/// What one group-commit transaction adds to the rollups, summed in memory so that each rollup
/// row is written once per transaction instead of once per event.
///
/// Summing is exact: counts add up, day bitmasks are OR-ed, a count's `detail` is the last
/// non-nil one in event order, and a session's dwell and moves are replaced as a whole (the
/// stored session's figures are subtracted, the updated session's added), so events may
/// arrive in any order. Every sum saturates at the bounds of `Int64` (see
/// `SaturatingArithmetic.swift`), as the SQL that adds them to the stored rows does.
package struct RollupDelta {
    struct CountKey: Hashable {
        var project: Int64, day: Int64, kind: RollupKind, key: String, page: String, appVersion: String
        var os: String

        /// The key of its row in `rollup_totals`: without page, app version and OS.
        var total: TotalKey { TotalKey(project: project, day: day, kind: kind, key: key) }
    }

    /// A daily count over every page, app version and OS.
    struct TotalKey: Hashable {
        var project: Int64, day: Int64, kind: RollupKind, key: String
    }

    /// ``counts`` summed per ``TotalKey``.
    var totals: [TotalKey: Int64] {
        var totals: [TotalKey: Int64] = [:]
        for (key, value) in counts { totals[key.total, default: 0].addSaturating(value.count) }
        return totals
    }
    struct PersonDaysKey: Hashable {
        var project: Int64, kind: RollupKind, key: String, block: Int64, anonymousId: String, userId: String
        var page: String, appVersion: String, os: String
    }
    /// The key of a `rollup_times` row: the events of one kind, key, day, page, app version and
    /// OS.
    struct TimesKey: Hashable {
        var project: Int64, kind: RollupKind, key: String, day: Int64, page: String, appVersion: String
        var os: String
    }
    /// One event's time and the ids that tell its person.
    struct PersonTime: Hashable {
        var anonymousId: String, userId: String, time: Int64
    }
    package struct SessionKey: Hashable {
        var project: Int64, key: String
    }
    /// A session's new events, and the app version and OS of its first one.
    package struct SessionEvents {
        package var appVersion: String, os: String
        package var events: [(time: Int64, mark: SessionTimeline.Mark?, isPageView: Bool)] = []
    }
    struct SessionPageKey: Hashable {
        var project: Int64, session: String, page: String
    }
    /// A session's events on one page: their span and page views, and the app version and OS of
    /// the first one to arrive.
    struct SessionPage {
        var start: Int64, end: Int64, pageViews: Int64, appVersion: String, os: String

        /// Widened by `later` (of the same session and page): its span and views added, this
        /// one's app version and OS kept.
        mutating func absorb(_ later: SessionPage) {
            start = min(start, later.start)
            end = max(end, later.end)
            pageViews.addSaturating(later.pageViews)
        }
    }
    struct DwellKey: Hashable {
        var project: Int64, day: Int64, page: String, appVersion: String, os: String, bucket: Int64
    }
    struct MoveKey: Hashable {
        var project: Int64, day: Int64, from: String, to: String, appVersion: String, os: String
    }

    /// The cap on a dwell measured as the gap to the next page view.
    let dwellCap: Int64
    /// Newly stored events per project.
    private(set) var stored: [Int64: Int64] = [:]
    private(set) var counts: [CountKey: (count: Int64, detail: String?)] = [:]
    private(set) var personDays: [PersonDaysKey: Int64] = [:]
    /// New event times with their people per page view, track event or clicked path, day, page,
    /// app version and OS (for funnels; written by ``PersonSetWriter``, which numbers the people).
    private(set) var personTimes: [TimesKey: [PersonTime]] = [:]
    package private(set) var sessions: [SessionKey: SessionEvents] = [:]
    /// Each session's events per page (for reports with a page filter).
    private(set) var sessionPages: [SessionPageKey: SessionPage] = [:]
    private(set) var dwell: [DwellKey: DwellHistogram.Bin] = [:]
    private(set) var moves: [MoveKey: Int64] = [:]

    package init(dwellCap: Int64 = ReportEngine.Configuration().sessionTimeoutMilliseconds) {
        self.dwellCap = dwellCap
    }

    /// Counts one newly stored event.
    package mutating func add(_ event: EventRecord, project: Int64) {
        stored[project, default: 0].addSaturating(1)
        let day = event.time.dayNumber
        let page = event.page ?? ""
        let appVersion = event.appVersion ?? ""
        let os = event.os ?? ""
        func count(_ kind: RollupKind, _ key: String, detail: String? = nil) {
            let countKey = CountKey(
                project: project, day: day, kind: kind, key: key, page: page, appVersion: appVersion, os: os)
            addCount(1, detail: detail, to: countKey)
        }
        for contribution in Self.contributions(of: event) {
            if contribution.counted {
                count(contribution.kind, contribution.key, detail: contribution.detail)
            }
            if contribution.perPerson { person(event, project: project, contribution) }
            if contribution.timed { time(event, project: project, contribution) }
        }
        let isView = event.type == .screen || event.type == .page
        let sessionKey = SessionKey(
            project: project,
            key: SessionTimeline.sessionKey(
                sessionId: event.sessionId, anonymousId: event.anonymousId, userId: event.userId,
                time: event.time))
        if !page.isEmpty {
            let time = event.time.millisecondsSince1970
            let views: Int64 = isView ? 1 : 0
            addSessionPage(
                SessionPage(start: time, end: time, pageViews: views, appVersion: appVersion, os: os),
                to: SessionPageKey(project: project, session: sessionKey.key, page: page))
        }
        sessions[sessionKey, default: SessionEvents(appVersion: appVersion, os: os)].events.append(
            (
                event.time.millisecondsSince1970,
                SessionTimeline.mark(
                    type: event.type, name: event.name, page: event.page,
                    durationMilliseconds: event.durationMilliseconds), isView
            ))
    }

    /// Whether nothing has been added.
    var isEmpty: Bool {
        stored.isEmpty && counts.isEmpty && personDays.isEmpty && personTimes.isEmpty && sessions.isEmpty
            && sessionPages.isEmpty && dwell.isEmpty && moves.isEmpty
    }

    /// Adds `later`, the delta of events that come after this one's: the same as adding its
    /// events here one by one after this one's (a count's text the last given, a session's or
    /// page's app version and OS the first known, a session's times in the order added).
    package mutating func merge(_ later: RollupDelta) {
        guard !isEmpty else {
            self = later
            return
        }
        for (project, count) in later.stored { stored[project, default: 0].addSaturating(count) }
        for (key, value) in later.counts { addCount(value.count, detail: value.detail, to: key) }
        for (key, days) in later.personDays { personDays[key, default: 0] |= days }
        for (key, times) in later.personTimes { personTimes[key, default: []] += times }
        for (key, added) in later.sessions {
            if sessions[key] == nil {
                sessions[key] = added
            } else {
                sessions[key]?.events += added.events
            }
        }
        for (key, page) in later.sessionPages { addSessionPage(page, to: key) }
        for (key, bin) in later.dwell {
            var sum = dwell[key] ?? DwellHistogram.Bin(count: 0, total: 0)
            sum.count.addSaturating(bin.count)
            sum.total.addSaturating(bin.total)
            dwell[key] = sum
        }
        for (key, count) in later.moves { moves[key, default: 0].addSaturating(count) }
    }

    /// Adds `count` to a daily count; a `detail` given replaces the one before.
    private mutating func addCount(_ count: Int64, detail: String?, to key: CountKey) {
        let previous = counts[key]
        counts[key] = ((previous?.count ?? 0).saturatingAdd(count), detail ?? previous?.detail)
    }

    /// Adds `page` to its session page: the first of that session and page as it is, a later
    /// one widening it.
    private mutating func addSessionPage(_ page: SessionPage, to key: SessionPageKey) {
        if sessionPages[key] == nil {
            sessionPages[key] = page
        } else {
            sessionPages[key]?.absorb(page)
        }
    }

    /// Adds only the event's times (``personTimes``): what a store that kept every other rollup
    /// needs to fill `rollup_times`.
    mutating func addTimes(_ event: EventRecord, project: Int64) {
        for contribution in Self.contributions(of: event) where contribution.timed {
            time(event, project: project, contribution)
        }
    }

    /// Adds only the event's people (``personDays``): what a store that kept every other rollup
    /// needs to fill its sets of people.
    mutating func addPeople(_ event: EventRecord, project: Int64) {
        for contribution in Self.contributions(of: event) where contribution.perPerson {
            person(event, project: project, contribution)
        }
    }

    private mutating func person(_ event: EventRecord, project: Int64, _ contribution: Contribution) {
        let day = event.time.dayNumber
        let key = PersonDaysKey(
            project: project, kind: contribution.kind, key: contribution.key, block: day >> 6,
            anonymousId: event.anonymousId ?? "", userId: event.userId ?? "", page: event.page ?? "",
            appVersion: event.appVersion ?? "", os: event.os ?? "")
        personDays[key, default: 0] |= Int64(1) << (day & 63)
    }

    private mutating func time(_ event: EventRecord, project: Int64, _ contribution: Contribution) {
        let key = TimesKey(
            project: project, kind: contribution.kind, key: contribution.key, day: event.time.dayNumber,
            page: event.page ?? "", appVersion: event.appVersion ?? "", os: event.os ?? "")
        personTimes[key, default: []].append(
            PersonTime(
                anonymousId: event.anonymousId ?? "", userId: event.userId ?? "",
                time: event.time.millisecondsSince1970))
    }

    /// What one event adds to the rollups under one kind and key.
    struct Contribution: Sendable, Hashable {
        var kind: RollupKind
        var key: String
        /// Counted in the daily counts (``RollupCount``), with this element text.
        var counted = false
        var detail: String? = nil
        /// Its person marked on its day (``RollupPersonDays``).
        var perPerson = false
        /// Its time kept per person (funnels).
        var timed = false
    }

    /// Every kind and key an event counts under, in the order they are counted: the one
    /// classification the SQLite rollups and the ClickHouse store's columns are made from.
    static func contributions(of event: EventRecord) -> [Contribution] {
        var result: [Contribution] = [Contribution(kind: .anyEvent, key: "", perPerson: true)]
        let isView = event.type == .screen || event.type == .page
        if let name = event.name {
            if isView {
                result.append(
                    Contribution(kind: .pageViews, key: name, counted: true, perPerson: true, timed: true))
            } else if event.type == .track {
                result.append(
                    Contribution(kind: .trackEvents, key: name, counted: true, perPerson: true, timed: true))
            }
        }
        if !isView, event.type != .track {
            result.append(Contribution(kind: .otherEvents, key: event.type.rawValue, counted: true))
        }
        if event.type == .track, event.name == "$element_click", let path = event.elementPath {
            result.append(
                Contribution(
                    kind: .elementClicks, key: path, counted: true, detail: event.elementText,
                    perPerson: true,
                    timed: true))
            result.append(
                Contribution(
                    kind: .similarElementClicks, key: event.similarPath ?? path, counted: true,
                    detail: event.elementText, perPerson: true, timed: true))
        }
        if event.type == .track, let named = event.planEventName {
            result.append(Contribution(kind: .planEvents, key: named, counted: true, perPerson: true))
        }
        if event.type == .track, let item = event.itemId {
            switch event.name {
            case "$item_exposure": result.append(Contribution(kind: .itemExposures, key: item, counted: true))
            case "$item_skip": result.append(Contribution(kind: .itemSkips, key: item, counted: true))
            case "$element_click": result.append(Contribution(kind: .itemClicks, key: item, counted: true))
            default: break
            }
        }
        return result
    }

    /// Replaces a stored session's contribution to the dwell and move rollups: `before` (the
    /// stored timeline, `nil` for a new session) is subtracted and `after` added.
    package mutating func replace(
        session: SessionKey, before: SessionTimeline?, after: SessionTimeline, appVersion: String, os: String
    ) {
        func apply(_ timeline: SessionTimeline, sign: Int64) {
            for measured in timeline.dwells(cap: dwellCap) {
                let key = DwellKey(
                    project: session.project, day: measured.day, page: measured.page, appVersion: appVersion,
                    os: os, bucket: DwellHistogram.bucket(of: measured.milliseconds))
                var bin = dwell[key] ?? DwellHistogram.Bin(count: 0, total: 0)
                bin.count.addSaturating(sign)
                bin.total.addSaturating(sign.saturatingMultiply(measured.milliseconds))
                dwell[key] = bin
            }
            for move in timeline.moves() {
                let key = MoveKey(
                    project: session.project, day: move.day, from: move.from, to: move.to ?? "",
                    appVersion: appVersion, os: os)
                moves[key, default: 0].addSaturating(sign)
            }
        }
        if let before { apply(before, sign: -1) }
        apply(after, sign: 1)
    }

    /// The statements ``write(_:)`` runs.
    struct Statements {
        let stored: SQLiteStatement, count: SQLiteStatement, total: SQLiteStatement
        let sessionPage: SQLiteStatement
        let dwell: SQLiteStatement, move: SQLiteStatement
    }

    /// Writes the sums (sessions are written by the caller, which reads them, the people by
    /// ``PersonSetWriter/add(_:numbers:)`` and the times by
    /// ``PersonSetWriter/addTimes(_:numbers:)``).
    func write(_ statements: Statements) throws(SQLiteError) {
        for (project, count) in stored {
            try statements.stored.run([.integer(project), .integer(count)])
        }
        for (key, value) in counts {
            try statements.count.run(key.values + [.text(value.detail), .integer(value.count)])
        }
        for (key, count) in totals {
            try statements.total.run(key.values + [.integer(count)])
        }
        for (key, span) in sessionPages {
            try statements.sessionPage.run([
                .integer(key.project), .text(key.session), .text(key.page),
                .integer(Timestamp(millisecondsSince1970: span.start).dayNumber), .integer(span.start),
                .integer(span.end), .integer(span.pageViews), .text(span.appVersion), .text(span.os),
            ])
        }
        for (key, bin) in dwell where bin.count != 0 || bin.total != 0 {
            try statements.dwell.run([
                .integer(key.project), .integer(key.day), .text(key.page), .text(key.appVersion),
                .text(key.os),
                .integer(key.bucket), .integer(bin.count), .integer(bin.total),
            ])
        }
        for (key, count) in moves where count != 0 {
            try statements.move.run([
                .integer(key.project), .integer(key.day), .text(key.from), .text(key.to),
                .text(key.appVersion),
                .text(key.os), .integer(count),
            ])
        }
    }
}
