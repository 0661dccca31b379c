/// A named event of the plan (the article's EventID): an id, a name, the triggers that raise it
/// and properties read by key path.
public struct PlanEvent: Sendable, Hashable {
    /// The event id, unique in the plan (`id`: a string or an integer).
    public var id: String
    /// The event name sent as `$event_name`, or as the `event` of a purpose-method event (`name`).
    public var name: String
    /// What raises it (`triggers`, at least one). Several triggers may raise one event: several
    /// buttons for one action, several paths across app versions.
    public var triggers: [PlanTrigger]
    /// Properties read from the objects of the responder chain, by property name (`properties`):
    /// `"banner_url": "viewController.banner.url"`.
    public var properties: [String: PropertyKeyPath]

    /// Creates an event.
    public init(
        id: String, name: String, triggers: [PlanTrigger], properties: [String: PropertyKeyPath] = [:]
    ) {
        self.id = id
        self.name = name
        self.triggers = triggers
        self.properties = properties
    }
}

/// What raises a plan event.
public enum PlanTrigger: Sendable, Hashable {
    /// A call of `method` on an object of type `target` (`{"target": "ArticleViewController",
    /// "method": "goShare"}`): the purpose-method hook, whatever the user pressed to reach it.
    case method(target: String, method: String)
    /// An element action whose path matches the rule (`{"path": "#buy:#UIButton#…", "match":
    /// "similar", "attributes": {"currentTitle": "Buy"}}`).
    case element(ElementRule)

    /// The `Type.method` text of a method trigger, as sent in `$trigger`.
    public static func methodKey(target: String, method: String) -> String { "\(target).\(method)" }
}

/// An element-path rule with optional attribute conditions.
public struct ElementRule: Sendable, Hashable {
    /// How ``path`` is compared (`match`, default ``Match/exact``).
    public var match: Match
    /// The path, or the pattern for ``Match/pattern`` (`path`, required).
    public var path: String
    /// Conditions on the element's attributes and business properties, all of which must hold
    /// (`attributes`, default none): `currentTitle`, `state`, `enabled`, `selected`, `on`,
    /// `selectedSegmentIndex`, `value`, or a business property name. Values compare as text;
    /// Booleans as `1`/`0`.
    public var attributes: [String: String]

    /// Creates a rule.
    public init(match: Match = .exact, path: String, attributes: [String: String] = [:]) {
        self.match = match
        self.path = path
        self.attributes = attributes
    }

    /// How a rule's path is compared with an element's.
    public enum Match: String, Sendable, Hashable, CaseIterable {
        /// Equal to the element's exact path (cells: one row).
        case exact
        /// Equal to the element's similar path, where cell rows are written `*` (every row).
        case similar
        /// A ``PathPattern`` matching the exact path: `*` within one segment, `**` across segments.
        case pattern
    }
}

/// A key path such as `viewController.banner.url`: a root object named by the UI adapter
/// (`viewController`, `view`, `target`), then property names.
public struct PropertyKeyPath: Sendable, Hashable, CustomStringConvertible {
    /// The components, root first; never empty, no component empty.
    public let components: [String]

    /// Reads a dotted key path; `nil` when it is empty or has an empty component.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else { return nil }
        components = parts
    }

    /// The dotted text.
    public var description: String { components.joined(separator: ".") }
}
