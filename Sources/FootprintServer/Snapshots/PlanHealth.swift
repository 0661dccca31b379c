import FootprintWire

/// For each entry of the tracking plan and each app version that reported on it: applied and
/// matched N times over the range, or why the SDK could not apply it. Pure: built from the
/// plan, the newest `$plan_health` report of each app version, and the range's daily counts of
/// each app version.
public struct PlanHealth: Sendable, Hashable {
    /// One plan entry on one app version.
    public struct VersionStatus: Sendable, Hashable {
        /// The app version.
        public var appVersion: String
        /// `applied`, `partial` (some triggers applied), the SDK's reason code (`missing_class`,
        /// `missing_selector`, `unsupported_signature`, `refused_selector`, `not_checked`, …), or
        /// `not_reported` when this app version's report does not name the entry (it ran another
        /// plan, or cut its list short).
        public var status: String
        /// The SDK's explanation, if any.
        public var reason: String?
        /// Events this entry produced on this app version over the range: `$element_click`
        /// events carrying its name as `$event_name`, and for a purpose-method trigger the
        /// track events of its name; for a named page (`page:<Type>`), the page's views.
        public var matched: Int
        /// When this app version reported.
        public var reportedAt: Timestamp
        /// The plan version the report describes, if it said.
        public var planVersion: Int64?

        /// Creates a status.
        public init(
            appVersion: String, status: String, reason: String?, matched: Int, reportedAt: Timestamp,
            planVersion: Int64?
        ) {
            self.appVersion = appVersion
            self.status = status
            self.reason = reason
            self.matched = matched
            self.reportedAt = reportedAt
            self.planVersion = planVersion
        }
    }

    /// One plan entry across app versions.
    public struct Entry: Sendable, Hashable {
        /// The entry's id: a plan event's, or `page:<Type>` for a named page in configured
        /// page mode.
        public var id: String
        /// Its event or page name; `nil` for an entry only a report names (not in the current plan).
        public var name: String?
        /// Whether the current plan has it.
        public var inPlan: Bool
        /// Its status per reporting app version, newest report first.
        public var versions: [VersionStatus]

        /// Creates an entry.
        public init(id: String, name: String?, inPlan: Bool, versions: [VersionStatus]) {
            self.id = id
            self.name = name
            self.inPlan = inPlan
            self.versions = versions
        }
    }

    /// The entries: the current plan's events in plan order, then (in configured page mode) its
    /// named pages by type, then those only reports name, by id.
    public var entries: [Entry]
    /// The app versions that reported, newest report first.
    public var appVersions: [String]
    /// The current plan's revision (the published config version), if any.
    public var planVersion: Int64?

    /// Builds the table.
    /// - Parameters:
    ///   - plan: the current tracking plan (`nil`: none published).
    ///   - planVersion: its revision.
    ///   - reports: the newest report of each app version.
    ///   - counts: each app version's daily counts over the range (``RollupKind/planEvents``,
    ///     ``RollupKind/trackEvents`` and ``RollupKind/pageViews`` are read).
    public init(
        plan: TrackingPlan?, planVersion: Int64? = nil, reports: [PlanHealthReport],
        counts: [String: [RollupCount]]
    ) {
        self.planVersion = planVersion
        let reports = reports.sorted { ($0.time, $0.appVersion) > ($1.time, $1.appVersion) }
        appVersions = reports.map(\.appVersion)
        var matchedByVersion: [String: [RollupKind: [String: Int]]] = [:]
        for (version, rows) in counts {
            var totals: [RollupKind: [String: Int]] = [:]
            for row in rows where [.planEvents, .trackEvents, .pageViews].contains(row.kind) {
                totals[row.kind, default: [:]][row.key, default: 0].addSaturating(row.count)
            }
            matchedByVersion[version] = totals
        }
        /// `kinds`' counts of `name` on each reporting version, with its status there.
        func versions(id: String, name: String?, kinds: [RollupKind]) -> [VersionStatus] {
            reports.map { report in
                let reported = report.entries.first { $0.id == id }
                let matched = kinds.map { kind in
                    name.flatMap { matchedByVersion[report.appVersion]?[kind]?[$0] } ?? 0
                }.saturatingSum()
                return VersionStatus(
                    appVersion: report.appVersion, status: reported?.status ?? "not_reported",
                    reason: reported?.reason
                        ?? (reported == nil && report.truncated
                            ? "the report left this entry out (it lists those that did not apply first)"
                            : nil),
                    matched: matched, reportedAt: report.time, planVersion: report.planVersion)
            }
        }
        var entries: [Entry] = []
        var planned: Set<String> = []
        for event in plan?.events ?? [] where planned.insert(event.id).inserted {
            let methodTriggered = event.triggers.contains {
                if case .method = $0 { return true }
                return false
            }
            entries.append(
                Entry(
                    id: event.id, name: event.name, inPlan: true,
                    versions: versions(
                        id: event.id, name: event.name,
                        kinds: methodTriggered ? [.planEvents, .trackEvents] : [.planEvents])))
        }
        if let plan, plan.pageMode == .configured {
            for (type, rule) in plan.pages.sorted(by: { $0.key < $1.key })
            where planned.insert("page:\(type)").inserted {
                entries.append(
                    Entry(
                        id: "page:\(type)", name: rule.name, inPlan: true,
                        versions: versions(id: "page:\(type)", name: rule.name, kinds: [.pageViews])))
            }
        }
        let others = Set(reports.flatMap { $0.entries.map(\.id) }).subtracting(planned).sorted()
        for id in others {
            entries.append(
                Entry(
                    id: id, name: nil, inPlan: false,
                    versions: versions(id: id, name: nil, kinds: [])))
        }
        self.entries = entries
    }

    /// The table as the JSON API shows it.
    public var jsonValue: JSONValue {
        [
            "planVersion": planVersion.map(JSONValue.int) ?? .null,
            "appVersions": .array(appVersions.map(JSONValue.string)),
            "entries": .array(
                entries.map { entry in
                    [
                        "id": .string(entry.id), "name": entry.name.map(JSONValue.string) ?? .null,
                        "inPlan": .bool(entry.inPlan),
                        "versions": .array(
                            entry.versions.map { version in
                                [
                                    "appVersion": .string(version.appVersion),
                                    "status": .string(version.status),
                                    "reason": version.reason.map(JSONValue.string) ?? .null,
                                    "matched": .int(Int64(version.matched)),
                                    "reportedAt": .string(version.reportedAt.iso8601),
                                    "planVersion": version.planVersion.map(JSONValue.int) ?? .null,
                                ]
                            }),
                    ]
                }),
        ]
    }
}
