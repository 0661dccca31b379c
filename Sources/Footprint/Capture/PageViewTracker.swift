/// The page-view state machine: turns controller appear/disappear callbacks and app
/// foreground/background into page enters and leaves with durations. Pure: the caller passes
/// the time.
///
/// - An appear of the page already current is ignored (a cancelled swipe-back appears the top
///   page again without a disappear), and so is a disappear of a page not on screen (the page
///   revealed by that swipe never appeared).
/// - A page that appears while another is current (a sheet over it) leaves the current one,
///   which stays "covered"; when the sheet goes, the covered page is current again. That return
///   is held until the next callback, so that a page pushed in the same transition wins over it.
/// - Going to the background leaves the current page (the leave is sent at once, so nothing is
///   lost if the app is then killed); coming back restarts its timer without a second enter, so
///   page views are counted once and durations add up to the foreground time.
public struct PageViewTracker: Sendable {
    /// A page on screen.
    public struct Page: Sendable, Hashable {
        /// The controller instance.
        public var instanceID: UInt64
        /// The page name.
        public var name: String
        /// The controller's type name.
        public var screenClass: String
        /// The controller's title.
        public var title: String?
        /// The plan's static properties of the page.
        public var properties: JSONObject

        /// Creates a page.
        public init(
            instanceID: UInt64, name: String, screenClass: String, title: String? = nil,
            properties: JSONObject = [:]
        ) {
            self.instanceID = instanceID
            self.name = name
            self.screenClass = screenClass
            self.title = title
            self.properties = properties
        }
    }

    /// What to record.
    public enum Action: Sendable, Hashable {
        /// The user entered `page`, coming from the page named `referrer`.
        case enter(Page, referrer: String?)
        /// The user left `page` after `durationMilliseconds` in the foreground.
        case leave(Page, durationMilliseconds: Int64)
    }

    /// The most covered pages remembered; older ones are forgotten.
    public static let maximumCoveredPages = 32

    private struct Visit: Sendable {
        var page: Page
        var timerStart: Timestamp
    }

    private var current: Visit?
    private var covered: [Page] = []
    private var pendingReturn: Visit?
    private var isInBackground = false
    /// The name of the last page entered: the referrer of the next one.
    public private(set) var lastPageName: String?

    /// Creates a tracker with no page on screen.
    public init() {}

    /// The page the user is on, when known.
    public var currentPage: Page? { current?.page ?? pendingReturn?.page }

    /// A controller appeared.
    public mutating func appeared(_ page: Page, now: Timestamp) -> [Action] {
        if var visit = current, visit.page.instanceID == page.instanceID {
            if isInBackground {
                visit.timerStart = now
                current = visit
                isInBackground = false
            }
            return []
        }
        var actions: [Action] = []
        if let pending = pendingReturn {
            pendingReturn = nil
            if pending.page.instanceID == page.instanceID {
                return enter(pending, actions: &actions)
            }
            cover(pending.page)
        }
        covered.removeAll { $0.instanceID == page.instanceID }
        if let visit = current {
            if !isInBackground {
                actions.append(.leave(visit.page, durationMilliseconds: duration(visit, now)))
            }
            cover(visit.page)
        }
        isInBackground = false
        return enter(Visit(page: page, timerStart: now), actions: &actions)
    }

    /// A controller disappeared.
    public mutating func disappeared(instanceID: UInt64, now: Timestamp) -> [Action] {
        if let visit = current, visit.page.instanceID == instanceID {
            current = nil
            if let top = covered.popLast() { pendingReturn = Visit(page: top, timerStart: now) }
            if isInBackground { return [] }
            return [.leave(visit.page, durationMilliseconds: duration(visit, now))]
        }
        if let pending = pendingReturn, pending.page.instanceID == instanceID {
            pendingReturn = covered.popLast().map { Visit(page: $0, timerStart: pending.timerStart) }
            return []
        }
        covered.removeAll { $0.instanceID == instanceID }
        return []
    }

    /// Makes a pending return to a covered page current. Call before recording anything that
    /// happens on the page (a tap), so that the page's enter comes first.
    public mutating func settle(now: Timestamp) -> [Action] {
        guard let pending = pendingReturn else { return [] }
        pendingReturn = nil
        var actions: [Action] = []
        return enter(pending, actions: &actions)
    }

    /// The app went to the background: the current page is left.
    public mutating func enteredBackground(now: Timestamp) -> [Action] {
        var actions = settle(now: now)
        if let visit = current, !isInBackground {
            actions.append(.leave(visit.page, durationMilliseconds: duration(visit, now)))
        }
        isInBackground = true
        return actions
    }

    /// The app came back to the foreground: the current page's timer restarts.
    public mutating func enteredForeground(now: Timestamp) -> [Action] {
        guard isInBackground else { return [] }
        isInBackground = false
        current?.timerStart = now
        return []
    }

    private mutating func enter(_ visit: Visit, actions: inout [Action]) -> [Action] {
        actions.append(.enter(visit.page, referrer: lastPageName))
        isInBackground = false
        current = visit
        lastPageName = visit.page.name
        return actions
    }

    private mutating func cover(_ page: Page) {
        covered.removeAll { $0.instanceID == page.instanceID }
        covered.append(page)
        if covered.count > Self.maximumCoveredPages {
            covered.removeFirst(covered.count - Self.maximumCoveredPages)
        }
    }

    private func duration(_ visit: Visit, _ now: Timestamp) -> Int64 {
        max(0, now.millisecondsSince1970 - visit.timerStart.millisecondsSince1970)
    }
}
