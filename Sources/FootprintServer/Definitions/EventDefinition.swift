import FootprintWire

/// A named event defined from captured data after the fact: it counts every stored event that
/// one of its matchers accepts, so renaming or merging paths across app versions needs no
/// release. Definitions with element-path matchers can be published into the tracking plan.
public struct EventDefinition: Sendable, Hashable {
    /// The id, unique in the project: letters, digits, `-`, `_` and `.` (sent as `$event_id`
    /// once published).
    public var id: String
    /// The name people see (sent as `$event_name` once published).
    public var name: String
    /// Any one of them matching is enough; at least one.
    public var matchers: [EventMatcher]

    /// Creates a definition.
    public init(id: String, name: String, matchers: [EventMatcher]) {
        self.id = id
        self.name = name
        self.matchers = matchers
    }

    /// Whether the definition accepts `event`.
    public func matches(_ event: AnalyticsEvent) -> Bool {
        matchers.contains { $0.matches(event) }
    }

    /// Whether any matcher has attribute conditions (which need the events' properties).
    public var needsProperties: Bool {
        matchers.contains { !($0.path?.attributes.isEmpty ?? true) }
    }

    /// The plan event for the SDK's tracking plan: one element trigger per matcher with a path;
    /// `nil` when no matcher has one (a definition by event name or page needs no SDK help).
    public var planEvent: PlanEvent? {
        let triggers = matchers.compactMap { $0.path.map(PlanTrigger.element) }
        return triggers.isEmpty ? nil : PlanEvent(id: id, name: name, triggers: triggers)
    }
}

/// One way to recognise a defined event; every condition given must hold.
public struct EventMatcher: Sendable, Hashable {
    /// The event name (`event` of track, `name` of views); for a path rule, default
    /// `$element_click`.
    public var event: String?
    /// The element path rule (exact, similar or pattern, with attribute conditions compared
    /// with the event's properties as text; Booleans `1`/`0`).
    public var path: ElementRule?
    /// The page (`$page_name` or the view's name).
    public var page: String?

    /// Creates a matcher.
    public init(event: String? = nil, path: ElementRule? = nil, page: String? = nil) {
        self.event = event
        self.path = path
        self.page = page
    }

    /// Whether `event` satisfies every condition.
    public func matches(_ candidate: AnalyticsEvent) -> Bool {
        if let page, candidate.page != page { return false }
        let wanted = event ?? (path == nil ? nil : "$element_click")
        if let wanted, candidate.name != wanted { return false }
        guard let path else { return wanted != nil || page != nil }
        guard let exact = candidate.elementPath else { return false }
        switch path.match {
        case .exact: if exact != path.path { return false }
        case .similar: if (candidate.similarPath ?? exact) != path.path { return false }
        case .pattern:
            guard let pattern = try? PathPattern(path.path), pattern.matches(exact) else { return false }
        }
        return path.attributes.allSatisfy { key, value in
            Self.text(of: candidate.properties[key] ?? candidate.properties["$" + key]) == value
        }
    }

    private static func text(of value: JSONValue?) -> String? {
        switch value {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return flag ? "1" : "0"
        default: return nil
        }
    }
}
