import FootprintWire

extension Dashboard {
    /// Each definition's events and people over the context's range. When the definitions that
    /// need the range's events (attribute conditions) would read more than a report may, the
    /// others still get their figures and the refusal is returned, so the page stays usable.
    func definedEventFigures(_ context: Context, _ definitions: [EventDefinition]) throws(ServerError) -> (
        figures: [EventStatistics], refusal: Message?
    ) {
        do {
            return (
                try service.definedEvents(
                    project: context.project, parameters: context.parameters, definitions: definitions), nil
            )
        } catch  where error.code == .invalidQuery {
            let answered = try service.definedEvents(
                project: context.project, parameters: context.parameters,
                definitions: definitions.filter(RollupReports.canAnswer))
            return (
                answered,
                .failure("Definitions with attribute conditions have no figures here: \(error.message)")
            )
        }
    }

    func definitionsPage(
        _ context: Context, message: Message?, form: [String: String]? = nil, status: Int = 200
    ) throws(ServerError) -> ServerResponse {
        let definitions = try service.metadata.eventDefinitions(projectId: context.project.id)
        let (figures, refusal) = try definedEventFigures(context, definitions)
        let counts = Dictionary(figures.map { ($0.event, $0) }, uniquingKeysWith: { first, _ in first })
        let rows = definitions.map { definition -> [String] in
            let matchers = definition.matchers.map { matcher -> String in
                var parts: [String] = []
                if let event = matcher.event { parts.append("event <code>\(HTML.escape(event))</code>") }
                if let rule = matcher.path {
                    parts.append(
                        "\(rule.match.rawValue) path <code class=\"path\">\(HTML.escape(rule.path))</code>")
                    for (key, value) in rule.attributes.sorted(by: { $0.key < $1.key }) {
                        parts.append("\(HTML.escape(key)) = \(HTML.escape(value))")
                    }
                }
                if let page = matcher.page { parts.append("page <code>\(HTML.escape(page))</code>") }
                return parts.joined(separator: ", ")
            }.joined(separator: "<br>or ")
            return [
                "<code>\(HTML.escape(definition.id))</code>", HTML.escape(definition.name), matchers,
                counts[definition.name].map { HTML.number($0.count) } ?? "–",
                postForm(
                    context, action: "/definitions/delete", fields: ["id": definition.id], button: "Delete",
                    style: "danger"),
            ]
        }
        // The form, prefilled from the elements page's "define an event" link or a refused post.
        let values = form ?? context.request.query
        func value(_ name: String) -> String { HTML.escape(values[name] ?? "") }
        var matcherFields = ""
        for index in 1...3 {
            let prefix = index == 1 && values["path1"] == nil ? "" : "\(index)"
            let path = values["path\(index)"] ?? (index == 1 ? values["path"] : nil) ?? ""
            let match = values["match\(index)"] ?? (index == 1 ? values["match"] : nil) ?? "exact"
            let page = values["page\(index)"] ?? (index == 1 && prefix.isEmpty ? values["page"] : nil) ?? ""
            let options = ElementRule.Match.allCases.map {
                "<option\($0.rawValue == match ? " selected" : "")>\($0.rawValue)</option>"
            }.joined()
            matcherFields += """
                <fieldset><legend>Matcher \(index)\(index > 1 ? " (optional)" : "")</legend>
                <label>Event name <input name="event\(index)" value="\(value("event\(index)"))" placeholder="$element_click when a path is given"></label>
                <label>Path <input name="path\(index)" value="\(HTML.escape(path))" class="wide"></label>
                <label>Match <select name="match\(index)">\(options)</select></label>
                <label>Page <input name="page\(index)" value="\(HTML.escape(page))"></label>
                <label>Attribute conditions <textarea name="attributes\(index)" rows="2" placeholder="$element_text=Buy">\(value("attributes\(index)"))</textarea></label>
                </fieldset>
                """
        }
        let suggestedId = (values["id"] ?? values["name"] ?? "").lowercased().map { character -> Character in
            character.isLetter || character.isNumber ? character : "_"
        }
        let project = context.parameters.project.map { "?project=\(HTML.percentEncode($0))" } ?? ""
        let create = """
            <form class="definition" method="post" action="/definitions\(project)">
            <input type="hidden" name="csrf" value="\(context.csrfToken)">
            <label>Id <input name="id" required pattern="[A-Za-z0-9._-]{1,64}" value="\(HTML.escape(String(suggestedId.prefix(64))))"></label>
            <label>Name <input name="name" required value="\(value("name"))"></label>
            \(matcherFields)
            <button type="submit">Save definition</button>
            </form>
            """
        let content =
            "<section><h2>Definitions</h2>" + (refusal?.html ?? "")
            + HTML.table(
                ["Id", "Name", "Matches", "Events in range", ""], rows, numeric: [3], id: "definitions")
            + postForm(context, action: "/definitions/publish", button: "Publish definitions to the SDK plan")
            + "<p class=\"hint\">A definition names stored events retroactively. Publishing adds every definition with an element path to the tracking plan, so the SDK sends <code>$event_id</code>/<code>$event_name</code> and <code>matched</code> upload mode keeps them.</p></section>"
            + "<section><h2>New or changed definition</h2>\(create)</section>"
        return page(
            context, path: "/definitions", title: "Definitions", content: content, message: message,
            status: status)
    }

    func configPage(_ context: Context, message: Message?, draft: String?, status: Int = 200)
        throws(ServerError)
        -> ServerResponse
    {
        let versions = try service.metadata.configVersions(projectId: context.project.id)
        let current = versions.first.map { Self.pretty($0.document) } ?? "{\n  \"version\": 1\n}"
        let project = context.parameters.project.map { "?project=\(HTML.percentEncode($0))" } ?? ""
        let editor = """
            <form class="config" method="post" action="/config/publish\(project)">
            <input type="hidden" name="csrf" value="\(context.csrfToken)">
            <textarea name="document" rows="18" spellcheck="false" aria-label="Tracking plan document">\(HTML.escape(draft ?? current))</textarea>
            <div class="actions"><button type="submit" name="action" value="validate">Validate</button>
            <button type="submit" name="action" value="publish">Publish as a new version</button></div>
            </form>
            """
        let pageName = """
            <form class="page-name" method="post" action="/config/page-name\(project)">
            <input type="hidden" name="csrf" value="\(context.csrfToken)">
            <label>Controller type <input name="controller" required placeholder="ProductViewController"></label>
            <label>Page name <input name="name" required placeholder="Product"></label>
            <button type="submit">Publish page name</button>
            </form>
            """
        let rows = versions.map { version -> [String] in
            [
                HTML.number(Int(version.version)), HTML.escape(version.publishedAt.iso8601),
                "<code>\(HTML.escape(String(version.document.prefix(120))))\(version.document.count > 120 ? "…" : "")</code>",
                version.version == versions.first?.version
                    ? "current"
                    : postForm(
                        context, action: "/config/rollback", fields: ["version": String(version.version)],
                        button: "Roll back to this"),
            ]
        }
        let content =
            "<section><h2>Tracking plan (remote config)</h2>"
            + "<p class=\"hint\">SDKs fetch the latest version from <code>GET /v1/config</code>. Each publication is a new version; rolling back publishes an earlier document again.</p>"
            + editor + "</section>" + (try planHealthSection(context))
            + "<section><h2>Name a page</h2>\(pageName)</section>"
            + "<section><h2>Versions</h2>"
            + HTML.table(["Version", "Published", "Document", ""], rows, numeric: [0], id: "versions")
            + "</section>"
        return page(
            context, path: "/config", title: "Config", content: content, filters: false, message: message,
            status: status)
    }

    /// The document indented for editing (compact JSON when it cannot be parsed).
    static func pretty(_ document: String) -> String {
        guard let json = try? JSONParser().parse(Array(document.utf8)) else { return document }
        return indented(json, level: 0)
    }

    private static func indented(_ value: JSONValue, level: Int) -> String {
        let pad = String(repeating: "  ", count: level + 1)
        let end = String(repeating: "  ", count: level)
        switch value {
        case .object(let object) where !object.isEmpty:
            let items = object.keys.sorted().map { key in
                "\(pad)\(JSONWriter.string(.string(key))): \(indented(object[key]!, level: level + 1))"
            }
            return "{\n\(items.joined(separator: ",\n"))\n\(end)}"
        case .array(let array) where !array.isEmpty:
            return
                "[\n\(array.map { pad + indented($0, level: level + 1) }.joined(separator: ",\n"))\n\(end)]"
        default:
            return JSONWriter.string(value)
        }
    }
}
