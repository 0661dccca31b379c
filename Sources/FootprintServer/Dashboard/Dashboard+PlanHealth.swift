import FootprintWire

extension Dashboard {
    /// The config page's plan health: per plan entry and app version, applied and matched N
    /// times over the range, or why the SDK could not apply it (``ScreenService/planHealth(project:parameters:versions:)``).
    func planHealthSection(_ context: Context) throws(ServerError) -> String {
        let health = try screens.planHealth(project: context.project, parameters: context.parameters)
        let rows = health.entries.flatMap { entry in
            entry.versions.map { version -> [String] in
                let outcome: String
                switch version.status {
                case "applied":
                    outcome =
                        "<span class=\"good\">applied</span>, matched \(HTML.number(version.matched)) times"
                case "partial":
                    outcome =
                        "<span class=\"good\">partly applied</span>, matched \(HTML.number(version.matched)) times"
                        + (version.reason.map { "; \(HTML.escape($0))" } ?? "")
                case "not_reported":
                    outcome = "<span class=\"hint\">not reported (this version ran another plan)</span>"
                default:
                    outcome =
                        "<span class=\"bad\">\(HTML.escape(version.status))</span>"
                        + (version.reason.map { ": \(HTML.escape($0))" } ?? "")
                }
                return [
                    "<code>\(HTML.escape(entry.id))</code>",
                    HTML.escape(entry.name ?? "(not in the current plan)"),
                    HTML.escape(version.appVersion.isEmpty ? "–" : version.appVersion), outcome,
                ]
            }
        }
        let range = "\(HTML.escape(context.parameters.fromDay)) to \(HTML.escape(context.parameters.toDay))"
        return "<section><h2>Plan health</h2>"
            + HTML.table(["Entry", "Event", "App version", "On devices"], rows, id: "plan-health")
            + "<p class=\"hint\">Each app version's SDK reports once per plan revision which entries it applied and why it could not apply the others (<code>$plan_health</code>); matched: the events the entry produced on that version from \(range) (add <code>from</code> and <code>to</code> to the address for another range).</p></section>"
    }
}
