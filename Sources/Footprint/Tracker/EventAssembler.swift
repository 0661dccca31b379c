/// Turns tracker calls into Segment messages: identity, session, super properties, timed events
/// and context. A value type owned by the storage thread, which applies the calls in the order
/// they were made, with the times at which they were made.
struct EventAssembler: Sendable {
    /// The device-scoped id, persisted; `reset()` makes a new one.
    var anonymousId: String
    /// The app's id for the person, after `identify`.
    var userId: String?
    /// Added to every `track` and `screen` (the event's own properties win).
    var superProperties: JSONObject = [:]
    /// The session rules.
    var session: SessionState
    /// The lifecycle events' rules and the release remembered from the last launch.
    var lifecycle: AppLifecycleState
    /// Start times of timed events, by event name.
    var timers: [String: Timestamp] = [:]
    /// Whether the user opted out: no event is built.
    var optedOut = false
    /// The app release and plan revision whose `$plan_health` was sent last (persisted).
    var planHealthSent: String?
    /// The static part of `context`.
    let context: JSONObject
    /// `context` with the current session's id, and its JSON, built once per session.
    private var sessionContext: (id: String, context: JSONObject, encoded: [UInt8]?) = ("", [:], nil)

    init(anonymousId: String, session: SessionState, lifecycle: AppLifecycleState, context: JSONObject) {
        self.anonymousId = anonymousId
        self.session = session
        self.lifecycle = lifecycle
        self.context = context
    }

    /// What applying a call produced.
    enum Result {
        /// Nothing to queue (a state change, or opted out).
        case none
        /// A message to validate and queue, and its `context` already encoded (`nil` when it
        /// must be checked with the message).
        case message(Message, encodedContext: [UInt8]?)
        /// A warning for people; nothing to queue.
        case warning(String)
        /// Lifecycle events to record at `time`, each as a `track` call.
        case lifecycleEvents([AppLifecycleState.Event], at: Timestamp)
    }

    /// Applies `command`, building the message it calls for.
    mutating func apply(_ command: TrackerCommand, random: inout some RandomNumberGenerator) -> Result {
        switch command {
        case .event(let kind, let properties, let time):
            return result(message(kind, properties: properties, at: time, random: &random))
        case .startTimer(let event, let time):
            timers[event] = time
            return .none
        case .endTimer(let event, var properties, let time):
            guard let start = timers.removeValue(forKey: event) else {
                return .warning("endTimedEvent(\"\(event)\") without startTimedEvent: not tracked")
            }
            properties["duration_ms"] = .int(max(0, time.millisecondsSince1970 - start.millisecondsSince1970))
            return result(message(.track(event: event), properties: properties, at: time, random: &random))
        case .identify(let newUserId, let traits, let time):
            if let newUserId { userId = newUserId }
            return result(base(.identify, at: time, random: &random, traits: traits))
        case .alias(let newUserId, let time):
            var alias = base(.alias, at: time, random: &random)
            alias.previousId = userId ?? anonymousId
            alias.userId = newUserId
            userId = newUserId
            return result(alias)
        case .group(let groupId, let traits, let time):
            var group = base(.group, at: time, random: &random, traits: traits)
            group.groupId = groupId
            return result(group)
        case .reset(let time):
            anonymousId = UUIDv7.make(at: time, using: &random)
            userId = nil
            superProperties = [:]
            timers = [:]
            session.endSession()
            return .none
        case .register(let properties):
            superProperties.merge(properties) { _, new in new }
            return .none
        case .unregister(let keys):
            for key in keys { superProperties.removeValue(forKey: key) }
            return .none
        case .lifecycle(let signal, let time):
            switch signal {
            case .enteredBackground: session.enteredBackground(at: time)
            case .enteringForeground, .becameActive: session.enteredForeground(at: time)
            case .launched, .openedURL: break
            }
            return .lifecycleEvents(lifecycle.apply(signal), at: time)
        case .setOptedOut(let value):
            optedOut = value
            if value {
                timers = [:]
                session.endSession()
            }
            return .none
        case .planHealth(let health, let time):
            let key = Self.planHealthKey(release: lifecycle.current, planVersion: health.planVersion)
            // Reports of dropped purpose-method calls are bounded by the core (a few per method and
            // launch) and always sent: the newest report is what the server shows.
            guard key != planHealthSent || health.reportsDroppedCalls else { return .none }
            planHealthSent = key
            return result(
                message(
                    .track(event: PlanHealth.eventName), properties: health.properties, at: time,
                    random: &random))
        case .flush, .storage, .barrier, .readIdentity:
            return .none
        }
    }

    /// A message built by ``base(_:at:random:properties:traits:)``, with the encoded context it
    /// carries.
    /// What identifies one `$plan_health` report: the app's version and build, and the plan
    /// revision.
    static func planHealthKey(release: AppRelease, planVersion: Int64) -> String {
        "\(release.version ?? "")|\(release.build ?? "")|\(planVersion)"
    }

    private func result(_ message: Message) -> Result {
        .message(message, encodedContext: sessionContext.encoded)
    }

    private mutating func message(
        _ kind: CapturedEvent.Kind, properties: JSONObject, at time: Timestamp,
        random: inout some RandomNumberGenerator
    ) -> Message {
        var merged = properties
        if !superProperties.isEmpty {
            merged = superProperties
            merged.merge(properties) { _, own in own }
        }
        switch kind {
        case .track(let event):
            var message = base(.track, at: time, random: &random, properties: merged)
            message.event = event
            return message
        case .screen(let name):
            var message = base(.screen, at: time, random: &random, properties: merged)
            message.name = name
            return message
        }
    }

    private mutating func base(
        _ type: MessageType, at time: Timestamp, random: inout some RandomNumberGenerator,
        properties: JSONObject = [:], traits: JSONObject = [:]
    ) -> Message {
        let sessionId = session.sessionId(forEventAt: time) { UUIDv7.make(at: time, using: &random) }
        if sessionContext.id != sessionId {
            var eventContext = context
            eventContext["sessionId"] = .string(sessionId)
            let value = JSONValue.object(eventContext)
            let valid =
                !value.containsNonFiniteNumber
                && value.longestStringByteCount <= MessageLimits.maximumStringBytes
            sessionContext = (sessionId, eventContext, valid ? JSONWriter.bytes(value) : nil)
        }
        return Message(
            type: type, messageId: UUIDv7.make(at: time, using: &random), anonymousId: anonymousId,
            userId: userId, timestamp: time, context: sessionContext.context, properties: properties,
            traits: traits)
    }
}

extension EventAssembler {
    /// The identity as the public API reports it.
    var identity: TrackerIdentity {
        TrackerIdentity(anonymousId: anonymousId, userId: userId, sessionId: session.id, isOptedOut: optedOut)
    }
}
