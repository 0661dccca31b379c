/// How the plan in force was applied on this device: for each plan event (and, in configured
/// page mode, each named page), whether the UI adapter could hook what it names, or why not.
///
/// Pure: the adapter reports an outcome per purpose method and per page type
/// (``AutoCapture/planApplied(methods:pages:)``); element-path triggers need no hook and always
/// apply. The tracker sends it as a `$plan_health` event once per app release and plan revision
/// (``properties``), so the server can show, per plan entry and app version, what applied.
public struct PlanHealth: Sendable, Hashable {
    /// The outcome of one hook: a stable status name and a reason for people.
    public struct Outcome: Sendable, Hashable {
        /// The status.
        public var status: Status
        /// Why, for people (empty when applied).
        public var reason: String

        /// Creates an outcome.
        public init(status: Status, reason: String = "") {
            self.status = status
            self.reason = reason
        }

        /// Hooked.
        public static let applied = Outcome(status: .applied)
    }

    /// A status name; new ones may be added.
    public struct Status: Sendable, Hashable, CustomStringConvertible {
        /// The name as sent (`missing_class`).
        public let name: String

        /// Creates a status from its name.
        public init(_ name: String) { self.name = name }

        public var description: String { name }

        /// Everything the entry names was hooked (or needs no hook).
        public static let applied = Status("applied")
        /// Some triggers applied, others did not (often: a trigger for another app version).
        public static let partial = Status("partial")
        /// No class of that name exists in this app version.
        public static let missingClass = Status("missing_class")
        /// The class has no Objective-C method of that name.
        public static let missingSelector = Status("missing_selector")
        /// The method's signature cannot be hooked.
        public static let unsupportedSignature = Status("unsupported_signature")
        /// The method or class must not be hooked (runtime, private, outside the app).
        public static let refusedSelector = Status("refused_selector")
        /// The adapter did not try (its hooks for this kind are off, or it is not installed).
        public static let notChecked = Status("not_checked")
        /// Hooked, but called more often than ``PurposeMethodRateLimiter`` lets a purpose
        /// method raise events: the calls beyond were dropped (``Entry/droppedCalls``).
        public static let rateLimited = Status("rate_limited")
    }

    /// One plan entry's health.
    public struct Entry: Sendable, Hashable {
        /// The plan event's id, or `page:<Type>` for a named page.
        public var id: String
        /// The entry's status: ``Status/applied`` when every trigger applied, ``Status/partial``
        /// when some did, else the first trigger's status.
        public var status: Status
        /// Why, for people.
        public var reason: String
        /// The calls of its purpose methods dropped by the rate limit since launch.
        public var droppedCalls: Int = 0
    }

    /// The plan revision (from the server's ETag `"v12-…"`; 0 for the bundled plan).
    public var planVersion: Int64
    /// Each entry, in plan order (events, then pages by type name).
    public var entries: [Entry]

    /// The most entries sent (the event stays under the message size limit).
    public static let maximumEntries = 100
    /// The longest reason sent, in UTF-8 bytes.
    public static let maximumReasonBytes = 200

    /// The health of `plan` given what the adapter reported.
    /// - Parameters:
    ///   - plan: the plan in force.
    ///   - planVersion: its revision.
    ///   - methods: the outcome of each purpose method hook; one absent is ``Status/notChecked``.
    ///   - pages: in configured page mode, the outcome of each page type's hook.
    ///   - droppedCalls: the calls of each purpose method dropped by its rate limit; a method
    ///     hooked with drops is ``Status/rateLimited``. Default: none.
    ///   - limit: the rate limit, for people (the reason of a rate-limited method).
    public init(
        plan: TrackingPlan, planVersion: Int64, methods: [CaptureHooks.Method: Outcome],
        pages: [String: Outcome] = [:], droppedCalls: [CaptureHooks.Method: Int] = [:], limit: String = ""
    ) {
        self.planVersion = planVersion
        var entries: [Entry] = []
        let unchecked = Outcome(status: .notChecked, reason: "the adapter did not hook this method")
        for event in plan.events {
            var outcomes: [(trigger: String, outcome: Outcome)] = []
            var dropped = 0
            for trigger in event.triggers {
                switch trigger {
                case .method(let target, let method):
                    let hook = CaptureHooks.Method(target: target, method: method)
                    var outcome = methods[hook] ?? unchecked
                    if outcome.status == .applied, let count = droppedCalls[hook], count > 0 {
                        outcome = Outcome(status: .rateLimited, reason: "\(count) calls dropped (\(limit))")
                        dropped += count
                    }
                    outcomes.append((PlanTrigger.methodKey(target: target, method: method), outcome))
                case .element:
                    outcomes.append(("path", .applied))
                }
            }
            var entry = Self.entry(id: event.id, outcomes)
            entry.droppedCalls = dropped
            entries.append(entry)
        }
        if plan.pageMode == .configured {
            for type in plan.pages.keys.sorted() {
                let outcome =
                    pages[type] ?? Outcome(status: .notChecked, reason: "the adapter did not hook this page")
                entries.append(Self.entry(id: "page:\(type)", [(type, outcome)]))
            }
        }
        self.entries = entries
    }

    /// One entry from its triggers' outcomes: applied, partial (some did not apply), the first
    /// failure's status when none applied, or rate-limited when all applied and some dropped calls.
    private static func entry(id: String, _ outcomes: [(trigger: String, outcome: Outcome)]) -> Entry {
        let failures = outcomes.filter { $0.outcome.status != .applied && $0.outcome.status != .rateLimited }
        let limited = outcomes.filter { $0.outcome.status == .rateLimited }
        guard let first = failures.first ?? limited.first else {
            return Entry(id: id, status: .applied, reason: "")
        }
        let named = failures.isEmpty ? limited : failures
        let reason = named.map { "\($0.trigger): \($0.outcome.reason)" }.joined(separator: "; ")
        let status =
            failures.isEmpty || failures.count == outcomes.count ? first.outcome.status : Status.partial
        return Entry(id: id, status: status, reason: AutoCapture.cut(reason, toBytes: maximumReasonBytes))
    }

    /// Whether a purpose method's calls were dropped: such a report is sent whenever the core
    /// makes one (a few per method and launch), not only once per release and plan revision.
    public var reportsDroppedCalls: Bool { entries.contains { $0.droppedCalls > 0 } }

    /// The `$plan_health` event's properties: `plan_version`, `entries` (`id`, `status`,
    /// `reason`, and `dropped_calls` when the rate limit dropped some), at most ``maximumEntries`` of them, those that did not apply first, and
    /// `truncated` when some were left out.
    public var properties: JSONObject {
        let ordered = entries.filter { $0.status != .applied } + entries.filter { $0.status == .applied }
        var properties: JSONObject = [
            "plan_version": .int(planVersion),
            "entries": .array(
                ordered.prefix(Self.maximumEntries).map { entry in
                    var properties: JSONObject = [
                        "id": .string(entry.id), "status": .string(entry.status.name),
                        "reason": .string(entry.reason),
                    ]
                    if entry.droppedCalls > 0 {
                        properties["dropped_calls"] = .int(Int64(entry.droppedCalls))
                    }
                    return .object(properties)
                }),
        ]
        if ordered.count > Self.maximumEntries { properties["truncated"] = true }
        return properties
    }

    /// The name of the event it is sent as.
    public static let eventName = "$plan_health"

    /// The revision in a remote-config ETag (`"v12-0123abcd…"` → 12); `nil` when it names none.
    public static func planVersion(fromETag etag: String?) -> Int64? {
        guard var text = etag else { return nil }
        if text.hasPrefix("W/") { text.removeFirst(2) }
        text.removeAll { $0 == "\"" }
        guard text.hasPrefix("v"),
            let number = text.dropFirst().split(separator: "-", omittingEmptySubsequences: false).first
                .flatMap({ Int64($0) }),
            number >= 0
        else { return nil }
        return number
    }
}
