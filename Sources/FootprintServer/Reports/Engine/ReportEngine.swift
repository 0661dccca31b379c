import FootprintWire

/// Computes every report from the events of one project and time range: pure, with no I/O, so
/// each report is tested on hand-made events with known answers. Stores hand it the events
/// (already filtered, any order) and the identity links.
///
/// A person is an event's `userId`; else the user id its `anonymousId` was linked to by
/// identify or alias; else its `anonymousId`. So UV counts people across an identify merge.
public struct ReportEngine: Sendable {
    /// Settings of the computation.
    public struct Configuration: Sendable, Hashable {
        /// Inactivity after which an event without `context.sessionId` starts a new session, and
        /// the cap on a dwell measured as the gap to the next screen. Default 30 minutes.
        public var sessionTimeoutMilliseconds: Int64 = 30 * 60 * 1000
        /// Creates the default configuration.
        public init() {}
    }

    /// The events, oldest first.
    public let events: [AnalyticsEvent]
    /// The person of each event (same index).
    public let people: [String]
    /// The session of each event (same index): an index into the sessions.
    public let sessionOfEvent: [Int]
    /// The number of sessions.
    public let sessionCount: Int
    /// The settings.
    public let configuration: Configuration

    /// Prepares the reports.
    /// - Parameters:
    ///   - events: the events, in any order.
    ///   - identityLinks: `anonymousId` → `userId` links from identify and alias.
    ///   - configuration: the settings.
    public init(
        events: [AnalyticsEvent], identityLinks: [String: String] = [:],
        configuration: Configuration = Configuration()
    ) {
        let sorted = events.enumerated().sorted { left, right in
            left.element.time == right.element.time
                ? left.offset < right.offset : left.element.time < right.element.time
        }.map(\.element)
        self.events = sorted
        self.configuration = configuration
        let people = sorted.map { event in
            event.userId ?? event.anonymousId.flatMap { identityLinks[$0] } ?? event.anonymousId ?? ""
        }
        self.people = people
        // Sessions: by session id; events without one are split per person by inactivity.
        var sessionByKey: [String: (index: Int, last: Int64)] = [:]
        var sessionOfEvent: [Int] = []
        sessionOfEvent.reserveCapacity(sorted.count)
        var count = 0
        for (index, event) in sorted.enumerated() {
            let key = event.sessionId.map { "s:" + $0 } ?? "p:" + people[index]
            let time = event.time.millisecondsSince1970
            if var known = sessionByKey[key],
                event.sessionId != nil || time - known.last <= configuration.sessionTimeoutMilliseconds
            {
                known.last = time
                sessionByKey[key] = known
                sessionOfEvent.append(known.index)
            } else {
                sessionByKey[key] = (count, time)
                sessionOfEvent.append(count)
                count += 1
            }
        }
        self.sessionOfEvent = sessionOfEvent
        self.sessionCount = count
    }

    /// The events' indexes grouped by session, each oldest first.
    var eventsBySession: [[Int]] {
        var groups = Array(repeating: [Int](), count: sessionCount)
        for (index, session) in sessionOfEvent.enumerated() { groups[session].append(index) }
        return groups
    }

    /// The number of distinct people among the events at `indexes`.
    func distinctPeople(_ indexes: some Sequence<Int>) -> Int {
        Set(indexes.lazy.map { people[$0] }).count
    }
}
