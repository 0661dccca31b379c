import FootprintWire

extension Dashboard {
    /// One plan entry on one app version, as the config page's plan health shows it.
    struct PlanHealthRow: Sendable, Hashable {
        /// The plan entry's id.
        var entry: String
        /// Its event name in the current plan (`nil`: the current plan has no such entry).
        var name: String?
        /// The app version that reported.
        var appVersion: String
        /// `applied`, or why not (`missing_class`, `missing_selector`, …).
        var status: String
        /// The SDK's explanation, if any.
        var reason: String?
        /// Events the entry produced on that app version over the range.
        var matched: Int
    }

    /// The rows of the newest report of each app version: per entry its status and the events
    /// it produced on that version (`$event_name` on element clicks for element triggers, the
    /// event itself for purpose-method triggers), read from that version's daily counts.
    /// - Parameters:
    ///   - reports: the newest `$plan_health` report of each app version.
    ///   - plan: the current plan (names the entries).
    ///   - counts: each reported app version's daily counts over the range.
    static func planHealthRows(
        reports: [PlanHealthReport], plan: TrackingPlan?, counts: [String: [RollupCount]]
    ) -> [PlanHealthRow] {
        let events = Dictionary(
            (plan?.events ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return reports.flatMap { report in
            var totals: [RollupKind: [String: Int]] = [:]
            for count in counts[report.appVersion] ?? [] where count.kind == .planEvents || count.kind == .trackEvents {
                totals[count.kind, default: [:]][count.key, default: 0].addSaturating(count.count)
            }
            return report.entries.map { entry in
                let event = events[entry.id]
                var matched = 0
                if let event {
                    let byElement = event.triggers.contains { if case .element = $0 { true } else { false } }
                    let byMethod = event.triggers.contains { if case .method = $0 { true } else { false } }
                    if byElement { matched.addSaturating(totals[.planEvents]?[event.name] ?? 0) }
                    if byMethod { matched.addSaturating(totals[.trackEvents]?[event.name] ?? 0) }
                }
                return PlanHealthRow(
                    entry: entry.id, name: event?.name, appVersion: report.appVersion, status: entry.status,
                    reason: entry.reason, matched: matched)
            }
        }
    }

    /// The config page's plan health: per plan entry and app version, applied and matched N
    /// times over the range, or why the SDK could not apply it.
    func planHealthSection(_ context: Context, document: String?) throws(ServerError) -> String {
        guard let screens else { return "" }
        let reports = try screens.planHealthReports(projectId: context.project.id, limit: 50)
        let plan = document.flatMap { try? RemoteConfigValidator.validate(Array($0.utf8)).plan }
        var counts: [String: [RollupCount]] = [:]
        for version in Set(reports.map(\.appVersion)) {
            var filter = context.parameters.filter
            filter.appVersion = version
            counts[version] = try service.store.rollupCounts(projectId: context.project.id, filter: filter)
        }
        let rows = Self.planHealthRows(reports: reports, plan: plan, counts: counts).map { row -> [String] in
            let outcome =
                row.status == "applied"
                ? "<span class=\"good\">applied</span>, matched \(HTML.number(row.matched)) times"
                : "<span class=\"bad\">\(HTML.escape(row.status))</span>"
                    + (row.reason.map { ": \(HTML.escape($0))" } ?? "")
            return [
                "<code>\(HTML.escape(row.entry))</code>", HTML.escape(row.name ?? "(not in the current plan)"),
                HTML.escape(row.appVersion.isEmpty ? "–" : row.appVersion), outcome,
            ]
        }
        return "<section><h2>Plan health</h2>"
            + HTML.table(["Entry", "Event", "App version", "On devices"], rows, id: "plan-health")
            + "<p class=\"hint\">Each app version's SDK reports once per plan revision which entries it applied and why it could not apply the others (<code>$plan_health</code>); matched: the events the entry produced on that version from \(HTML.escape(context.parameters.fromDay)) to \(HTML.escape(context.parameters.toDay)).</p></section>"
    }
}
