import Dispatch
import FootprintServer
import FootprintWire
import Foundation

/// Deterministic, plausible app traffic for load tests and benchmarks: people with sessions of
/// page views, leaves with dwell, clicks on list cells and buttons, list exposures and skips,
/// identifies, spread over the days before `end`.
public struct SyntheticTraffic: Sendable {
    /// Generator settings.
    public struct Configuration: Sendable {
        /// Distinct devices. Default 20,000.
        public var people = 20_000
        /// Days the events spread over, ending at ``end``. Default 30.
        public var days = 30
        /// The instant the last day ends. Default 2026-12-01T00:00:00Z.
        public var end = Timestamp(millisecondsSince1970: 1_796_083_200_000)
        /// The random seed. Default 1.
        public var seed: UInt64 = 1
        /// Whether users sign in after browsing: a user's sessions before its sign-in day (a day
        /// of the range fixed per user) carry no user id, so that its device's events before and
        /// after are two members of one person once its identify links them (in a later session,
        /// as every identify). Default false: every event of a user carries its user id.
        public var signInLater = false
        /// Creates the default configuration.
        public init() {}
    }

    private static let pages = [
        "Home", "Search", "ProductList", "ProductDetail", "Cart", "Checkout", "Profile",
    ]
    private static let buttons = ["buy", "addToCart", "share", "favorite", "checkout", "back"]
    private static let versions = ["2.3.0", "2.4.0", "2.4.1"]
    private static let systems = ["iOS 17.5", "iOS 18.1", "iPadOS 18.1"]

    private let configuration: Configuration
    private var state: UInt64
    private var sequence = 0

    /// Creates a generator.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        state = configuration.seed
    }

    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }

    /// One session of a random person on a random day: its events, and the identity link its
    /// identify makes.
    public mutating func session() -> (events: [EventRecord], links: [IdentityLink]) {
        session(day: nil)
    }

    /// One session of a random person starting on `day` (0 the first of the configured days,
    /// held within them; `nil` a random one).
    mutating func session(day: Int?) -> (events: [EventRecord], links: [IdentityLink]) {
        let person = below(configuration.people)
        let anonymousId = "anon-\(person)"
        let user: String? = person % 3 == 0 ? "user-\(person / 3)" : nil
        let days = max(1, configuration.days)
        let dayStart = configuration.end.millisecondsSince1970 - Int64(configuration.days) * 86_400_000
        let startDay = day.map { min(max(0, $0), days - 1) } ?? below(days)
        // No draw of the generator: the events of the default configuration stay the same.
        let userId = configuration.signInLater && startDay < (person / 3) % days ? nil : user
        var time = dayStart + Int64(startDay) * 86_400_000 + Int64(below(86_000)) * 1000
        let sessionId = "session-\(person)-\(time)"
        let version = Self.versions[person % Self.versions.count]
        let system = Self.systems[person % Self.systems.count]
        var events: [EventRecord] = []
        var links: [IdentityLink] = []
        var page = Self.pages[0]
        var referrer: String?
        let length = 2 + below(7)
        for step in 0..<length {
            if step > 0 { page = Self.pages[below(Self.pages.count)] }
            events.append(
                record(
                    .screen, name: page, time: time, anonymousId: anonymousId, userId: userId,
                    sessionId: sessionId,
                    page: page, version: version, system: system,
                    properties: referrer.map { ["$referrer": .string($0)] } ?? [:]))
            let dwell = Int64(1_000 + below(60_000))
            if page == "ProductList" {
                for row in 0..<(3 + below(6)) {
                    let item = "sku-\(below(500))"
                    let skipped = below(5) == 0
                    events.append(
                        record(
                            .track, name: skipped ? "$item_skip" : "$item_exposure",
                            time: time + Int64(row) * 300, anonymousId: anonymousId, userId: userId,
                            sessionId: sessionId, page: page, version: version, system: system,
                            properties: ["$item_id": .string(item)]))
                    if !skipped, below(6) == 0 {
                        let path =
                            "#tableView:didSelectRowAtIndexPath:#UITableView#ProductCell[0:\(row)]#ProductListViewController"
                        events.append(
                            record(
                                .track, name: "$element_click", time: time + Int64(row) * 300 + 100,
                                anonymousId: anonymousId, userId: userId, sessionId: sessionId, page: page,
                                version: version, system: system,
                                properties: [
                                    "$element_path": .string(path),
                                    "$element_similar_path": .string(
                                        "#tableView:didSelectRowAtIndexPath:#UITableView#ProductCell[0:*]#ProductListViewController"
                                    ),
                                    "$element_type": .string("UITableViewCell"),
                                    "$element_position": .string("0:\(row)"),
                                    "$item_id": .string(item),
                                ]))
                    }
                }
            } else if below(2) == 0 {
                let button = Self.buttons[below(Self.buttons.count)]
                let path = "#\(button):#UIButton#UIStackView[0]#\(page)ViewController"
                events.append(
                    record(
                        .track, name: "$element_click", time: time + dwell / 2, anonymousId: anonymousId,
                        userId: userId, sessionId: sessionId, page: page, version: version, system: system,
                        properties: [
                            "$element_path": .string(path), "$element_similar_path": .string(path),
                            "$element_type": .string("UIButton"),
                            "$element_text": .string(button.capitalized),
                        ]))
            }
            if below(4) != 0 {
                events.append(
                    record(
                        .track, name: "$screen_leave", time: time + dwell, anonymousId: anonymousId,
                        userId: userId,
                        sessionId: sessionId, page: page, version: version, system: system,
                        properties: [
                            "$screen_class": .string(page + "ViewController"), "duration_ms": .int(dwell),
                        ]))
            }
            // The draw for every user's session, signed in or not: the same draws either way.
            if step == 0, user != nil, below(4) == 0, let userId {
                links.append(IdentityLink(anonymousId: anonymousId, userId: userId))
            }
            referrer = page
            time += dwell + Int64(below(5_000))
        }
        return (events, links)
    }

    private mutating func record(
        _ type: MessageType, name: String, time: Int64, anonymousId: String, userId: String?,
        sessionId: String,
        page: String, version: String, system: String, properties: JSONObject
    ) -> EventRecord {
        sequence += 1
        let messageId = "synthetic-\(configuration.seed)-\(sequence)"
        let timestamp = Timestamp(millisecondsSince1970: time)
        var properties = properties
        if type == .track { properties["$page_name"] = .string(page) }
        var message: JSONObject = [
            "type": .string(type.rawValue), "messageId": .string(messageId),
            "anonymousId": .string(anonymousId),
            "timestamp": .string(timestamp.iso8601), "properties": .object(properties),
            "context": [
                "sessionId": .string(sessionId), "app": ["version": .string(version)],
                "os": [
                    "name": .string(String(system.split(separator: " ")[0])),
                    "version": .string(String(system.split(separator: " ")[1])),
                ],
            ],
        ]
        message[type == .track ? "event" : "name"] = .string(name)
        if let userId { message["userId"] = .string(userId) }
        return EventRecord(
            messageId: messageId, type: type, name: name, time: timestamp, clientTimestamp: timestamp,
            sentAt: nil,
            receivedAt: timestamp, anonymousId: anonymousId, userId: userId, sessionId: sessionId, page: page,
            elementPath: properties["$element_path"]?.stringValue, appVersion: version, os: system,
            payload: JSONWriter.string(.object(message)),
            similarPath: properties["$element_similar_path"]?.stringValue,
            elementText: properties["$element_text"]?.stringValue,
            itemId: properties["$item_id"]?.stringValue,
            durationMilliseconds: properties["duration_ms"]?.int64Value)
    }

    /// Writes about `count` events into a project, day after day as traffic arrives (about
    /// `count / days` events of sessions starting on each day, people at random), in batches of
    /// about `batchSize`: a batch's rows keyed by day then land on few pages. The next
    /// batch is made while the store commits the one before (at most `inFlight` batches handed
    /// over and not yet committed), so making events and storing them share the machine's cores.
    /// Larger batches make fewer, larger commits: a commit writes each page it changed once, and
    /// the rollups' pages are changed by nearly every batch (50,000 rather than 20,000: 1M events
    /// filled about 20 % faster, with about 170 MB more memory; docs/BENCHMARKS.md).
    /// - Parameter progress: called after each committed batch with the events written so far.
    /// - Returns: the events written (stored or found already stored).
    @discardableResult
    public mutating func write(
        count: Int, into store: any EventStore, projectId: Int64, batchSize: Int = 50_000, inFlight: Int = 2,
        progress: (Int) -> Void = { _ in }
    ) throws(ServerError) -> Int {
        let writes = WriteWindow(limit: inFlight)
        var made = 0
        let days = max(1, configuration.days)
        while made < count {
            var events: [EventRecord] = []
            var links: [IdentityLink] = []
            while events.count < batchSize, made + events.count < count {
                // The day whose share of `count` the events made so far have not yet filled.
                let (share, overflow) = (made + events.count).multipliedReportingOverflow(by: days)
                let session = session(day: overflow ? days - 1 : share / count)
                events += session.events
                links += session.links
            }
            made += events.count
            let batch = IngestBatch(
                projectId: projectId, events: events, identityLinks: links, receivedAt: configuration.end)
            let written = try writes.submit { completion in store.write(batch, completion: completion) }
            progress(written)
        }
        let written = try writes.finish()
        progress(written)
        return written
    }
}

/// Batches handed to a store without waiting for each commit, at most `limit` outstanding: the
/// first failure is thrown by the next ``submit(_:)`` or by ``finish()``.
final class WriteWindow: @unchecked Sendable {
    private let slots: DispatchSemaphore
    private let limit: Int
    private let lock = NSLock()
    private var written = 0
    private var failure: ServerError?

    init(limit: Int) {
        self.limit = max(1, limit)
        slots = DispatchSemaphore(value: self.limit)
    }

    /// Waits for a free slot, then calls `start` with the completion of one write.
    /// - Returns: the events written by the writes completed so far.
    func submit(
        _ start: (@escaping @Sendable (Result<WriteOutcome, ServerError>) -> Void) -> Void
    ) throws(ServerError) -> Int {
        slots.wait()
        if let failure = state().failure {
            slots.signal()
            throw failure
        }
        start { result in
            self.lock.lock()
            switch result {
            case .success(let outcome): self.written += outcome.stored + outcome.duplicates
            case .failure(let error): self.failure = self.failure ?? error
            }
            self.lock.unlock()
            self.slots.signal()
        }
        return state().written
    }

    /// Waits for every outstanding write.
    /// - Returns: the events written by them all.
    func finish() throws(ServerError) -> Int {
        for _ in 0..<limit { slots.wait() }
        for _ in 0..<limit { slots.signal() }
        let (written, failure) = state()
        if let failure { throw failure }
        return written
    }

    private func state() -> (written: Int, failure: ServerError?) {
        lock.lock()
        defer { lock.unlock() }
        return (written, failure)
    }
}
