import FootprintWire

/// Computes every report from the events of one project and time range: pure, with no I/O, so
/// each report is tested on hand-made events with known answers. Stores hand it the events
/// (already filtered, any order) and the identity links.
///
/// A person is an event's `userId`; else the user id its `anonymousId` was linked to by
/// identify or alias (the smallest in byte order when it was linked to several: the store's
/// ``EventStore/identityLinks(projectId:)``); else its `anonymousId`. So UV counts people
/// across an identify merge.
public struct ReportEngine: Sendable {
    /// Settings of the computation.
    public struct Configuration: Sendable, Hashable {
        /// The cap on a dwell measured as the gap to the next screen (the session timeout).
        /// Default 30 minutes.
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
        // Sessions: by session id; without one, per device and UTC day (SessionTimeline.sessionKey).
        var sessionByKey: [String: Int] = [:]
        var sessionOfEvent: [Int] = []
        sessionOfEvent.reserveCapacity(sorted.count)
        for event in sorted {
            let key = SessionTimeline.sessionKey(
                sessionId: event.sessionId, anonymousId: event.anonymousId, userId: event.userId,
                time: event.time)
            if let known = sessionByKey[key] {
                sessionOfEvent.append(known)
            } else {
                sessionByKey[key] = sessionByKey.count
                sessionOfEvent.append(sessionByKey.count - 1)
            }
        }
        let count = sessionByKey.count
        self.sessionOfEvent = sessionOfEvent
        self.sessionCount = count
    }

    /// Each session's timeline (same order as the sessions).
    var timelines: [SessionTimeline] {
        var timelines = Array(repeating: SessionTimeline(), count: sessionCount)
        for (index, session) in sessionOfEvent.enumerated() { timelines[session].add(events[index]) }
        return timelines
    }

    /// The number of distinct people among the events at `indexes`.
    func distinctPeople(_ indexes: some Sequence<Int>) -> Int {
        Set(indexes.lazy.map { people[$0] }).count
    }
}
