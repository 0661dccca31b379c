import FootprintWire

/// What one app version's SDK reported about the tracking plan (a `$plan_health` event): for
/// each plan entry, whether it could apply it, and why not.
public struct PlanHealthReport: Sendable, Hashable {
    /// One plan entry's outcome on the device.
    public struct Entry: Sendable, Hashable {
        /// The plan entry's id.
        public var id: String
        /// `applied`, or why not: `missing_class`, `missing_selector`, `unsupported_signature`,
        /// `refused_selector`, or a newer SDK's code.
        public var status: String
        /// The SDK's explanation for people, if any.
        public var reason: String?

        /// Creates an entry.
        public init(id: String, status: String, reason: String? = nil) {
            self.id = id
            self.status = status
            self.reason = reason
        }
    }

    /// The event's name.
    public static let eventName = "$plan_health"

    /// The most entries read from one report (a plan holds fewer).
    public static let maximumEntries = 1000

    /// The app version that sent it (`""`: none).
    public var appVersion: String
    /// When it was sent (the event's time).
    public var time: Timestamp
    /// The plan version it describes (`plan_version`), if it said.
    public var planVersion: Int64?
    /// Its entries, in its order, each id once (the first wins).
    public var entries: [Entry]
    /// Whether the SDK left entries out (it sends those that did not apply first).
    public var truncated: Bool

    /// Creates a report.
    public init(
        appVersion: String, time: Timestamp, planVersion: Int64?, entries: [Entry], truncated: Bool = false
    ) {
        self.appVersion = appVersion
        self.time = time
        self.planVersion = planVersion
        self.entries = entries
        self.truncated = truncated
    }

    /// Reads a `$plan_health` event's properties: `plan_version` (an integer), `entries`
    /// (`[{ "id", "status", "reason"? }]`; an empty reason is none) and `truncated`. Entries
    /// without a text `id` and `status` are skipped; an id seen before is skipped; at most
    /// ``maximumEntries`` are read.
    public init(appVersion: String, time: Timestamp, properties: JSONObject) {
        var entries: [Entry] = []
        var seen: Set<String> = []
        for item in properties["entries"]?.arrayValue ?? [] {
            guard entries.count < Self.maximumEntries else { break }
            // A plan entry's id may be an integer in the plan; the SDK sends it as text or number.
            let id = item["id"]?.stringValue ?? item["id"]?.int64Value.map(String.init)
            guard let id, !id.isEmpty, let status = item["status"]?.stringValue, !status.isEmpty,
                seen.insert(id).inserted
            else { continue }
            let reason = item["reason"]?.stringValue
            entries.append(Entry(id: id, status: status, reason: reason?.isEmpty == false ? reason : nil))
        }
        self.init(
            appVersion: appVersion, time: time, planVersion: properties["plan_version"]?.int64Value,
            entries: entries, truncated: properties["truncated"] == .bool(true))
    }
}
