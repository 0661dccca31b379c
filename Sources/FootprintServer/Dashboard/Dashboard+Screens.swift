import FootprintWire

extension Dashboard {
    /// "Define an event" from a box of a snapshot: the element's exact or similar path
    /// pre-filled, the stored clicks it matches over the range (counted by the definitions
    /// report's matcher), a form that saves the definition, and once saved, the button that
    /// publishes the definitions to the SDK plan.
    func defineFromScreenPage(
        _ context: Context, message: Message? = nil, form: [String: String]? = nil, status: Int = 200
    ) throws(ServerError) -> ServerResponse {
        let values = form ?? context.request.query
        let path = (values["path1"] ?? values["path"] ?? "").trimmingSpaces
        let match = ElementRule.Match(rawValue: values["match1"] ?? values["match"] ?? "") ?? .exact
        let snapshot = values["snapshot"] ?? ""
        guard !path.isEmpty, match != .pattern else {
            return page(
                context, path: "/screens", title: "Define an event",
                content:
                    "<p class=\"error\">Choose an element on a screen first.</p><p><a href=\"/screens\(filterQuery(context))\">Screens</a></p>",
                filters: false, status: 400)
        }
        let matched = try matchedClicks(context, path: path, match: match)
        let back = "/screens" + filterQuery(context, extra: [("snapshot", snapshot)])
        let project = context.parameters.project.map { "?project=\(HTML.percentEncode($0))" } ?? ""
        let options = [ElementRule.Match.exact, .similar].map { option in
            let label =
                option == .exact ? "exact path (this element)" : "similar path (every row of the list)"
            return
                "<option value=\"\(option.rawValue)\"\(option == match ? " selected" : "")>\(label)</option>"
        }.joined()
        let name = values["name"] ?? ""
        let suggestedId = String(
            name.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }.prefix(64))
        var content = """
            <section><h2>Element</h2>
            <p><code class="path" id="define-path">\(HTML.escape(path))</code></p>
            <p>Over the range this \(match.rawValue) path matches <strong id="define-matches">\(HTML.number(matched.count))</strong> stored clicks by <strong id="define-people">\(HTML.number(matched.uniqueVisitors))</strong> people (counted as the definitions report counts them).</p>
            <p><a href="\(HTML.escape(back))">Back to the screen</a></p></section>
            """
        if let saved = values["saved"], !saved.isEmpty {
            content += """
                <section id="define-saved"><h2>Saved</h2>
                <p>The definition <code>\(HTML.escape(saved))</code> is stored and counts the data already stored. Publish the definitions so installed apps name these taps from their next config refresh.</p>
                \(postForm(context, action: "/definitions/publish", button: "Publish the plan"))
                <p class="hint"><a href="/definitions\(filterQuery(context))">Definitions</a> · <a href="/config\(filterQuery(context))">Config</a></p></section>
                """
        } else {
            content += """
                <section><h2>Define an event</h2>
                <form class="definition" id="define-form" method="post" action="/screens/define\(project)">
                <input type="hidden" name="csrf" value="\(context.csrfToken)">
                <input type="hidden" name="snapshot" value="\(HTML.escape(snapshot))">
                <label>Id <input name="id" required pattern="[A-Za-z0-9._-]{1,64}" value="\(HTML.escape(values["id"] ?? suggestedId))"></label>
                <label>Name <input name="name" required value="\(HTML.escape(name))"></label>
                <label>Path <input name="path1" class="wide" value="\(HTML.escape(path))" readonly></label>
                <label>Match <select name="match1">\(options)</select></label>
                <button type="submit">Save definition</button>
                </form></section>
                """
        }
        return page(
            context, path: "/screens", title: "Define an event", content: content, filters: false,
            message: message, status: status)
    }

    /// Saves the definition posted by the define form, then shows the publish offer.
    func defineFromScreen(_ context: Context, form: [String: String]) throws(ServerError) -> ServerResponse {
        var fields = form
        fields["match1"] = fields["match1"] == "similar" ? "similar" : "exact"
        do {
            let definition = try EventDefinition(json: Self.definitionJSON(fields))
            try service.store.saveEventDefinition(definition, projectId: context.project.id, at: context.now)
            let query = HTML.query([
                ("project", context.parameters.project), ("snapshot", form["snapshot"]),
                ("path", form["path1"]), ("match", fields["match1"]), ("saved", definition.id),
                ("notice", "Saved the definition \(definition.name)."),
            ])
            return ServerResponse(status: 303, headers: ["Location": "/screens/define" + query])
        } catch  where error.code == .invalidDefinition {
            return try defineFromScreenPage(
                context, message: .failure(error.message), form: form, status: 400)
        }
    }

    /// The stored clicks an exact or similar path rule matches over the context's range,
    /// through the definitions report.
    func matchedClicks(_ context: Context, path: String, match: ElementRule.Match) throws(ServerError)
        -> EventStatistics
    {
        let preview = EventDefinition(
            id: "preview", name: "preview",
            matchers: [EventMatcher(path: ElementRule(match: match, path: path))])
        return try service.definedEvents(
            project: context.project, parameters: context.parameters, definitions: [preview]
        ).first ?? EventStatistics(event: "preview", count: 0, uniqueVisitors: 0)
    }
}
