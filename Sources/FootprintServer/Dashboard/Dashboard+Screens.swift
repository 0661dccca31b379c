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
            try service.metadata.saveEventDefinition(
                definition, projectId: context.project.id, at: context.now)
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

extension Dashboard {
    /// The Screens page: every page and app version with snapshots (their newest), one
    /// snapshot drawn with its click map (``SnapshotView``), and the connect panel. With
    /// `session=ID` it follows that connect session live.
    /// - Parameter started: a session just started, with its link shown once and its QR code.
    func screensPage(
        _ context: Context, started: (session: ConnectSession, link: String, qrCode: String)? = nil,
        message: Message? = nil, status: Int = 200
    ) throws(ServerError) -> ServerResponse {
        let store = screens.screens
        let projectId = context.project.id
        let grouping = try context.parameters.grouping()
        let screens = try store.screens(projectId: projectId)
        var followed = started?.session
        if followed == nil, let id = context.parameters.text("session").flatMap(Int64.init) {
            followed = try store.connectSession(id: id, projectId: projectId)
        }
        let connect = try connectPanel(context, started: started)
        let rows = screens.map { screen -> [String] in
            let link = "/screens" + filterQuery(context, extra: [("snapshot", String(screen.latest.id))])
            return [
                "<a href=\"\(HTML.escape(link))\">\(HTML.escape(screen.page))</a>",
                HTML.escape(screen.appVersion.isEmpty ? "–" : screen.appVersion),
                HTML.number(screen.snapshotCount),
                HTML.escape(screen.latest.takenAt.iso8601),
                screen.latest.image == nil ? "wireframe" : "screenshot",
            ]
        }
        let list =
            "<section><h2>Pages and app versions</h2>"
            + HTML.table(
                ["Page", "App version", "Snapshots", "Newest taken", "Shows"], rows, numeric: [2],
                id: "screens")
            + "</section>"
        var content = ""
        if let followed {
            let live = try liveSnapshot(context, session: followed, grouping: grouping)
            let state = live?.state ?? LiveState(snapshot: 0, cursor: 0)
            let query = String(filterQuery(context, extra: [("grouping", grouping.rawValue)]).dropFirst())
            let waiting =
                "<p class=\"empty\">No snapshot from this session yet: open the link on the device.</p>"
            content += """
                <section><h2>Following connect session \(HTML.escape(followed.hint))…</h2>
                <p class="hint" id="connect-status">\(followed.state(at: context.now) == .open ? "Waiting for the device…" : "The session has ended.")</p>
                <div id="live-snapshot" data-session="\(followed.id)" data-snapshot="\(state.snapshot)" data-cursor="\(state.cursor)" data-query="\(HTML.escape(query))">\(live?.html ?? waiting)</div></section>
                """
            // The link to open first, then what the device shows.
            content = connect + content + list
        } else if let shown = try shownSnapshot(context, screens: screens) {
            content += "<section><h2>Screen</h2>\(groupingToggle(context, grouping: grouping))"
            content +=
                try snapshotView(context, shown, grouping: grouping).html
                + (try otherSnapshots(context, of: shown.summary)) + "</section>" + list + connect
        } else {
            content =
                "<p class=\"empty\" id=\"no-screens\">No snapshots yet. Start a connect session and open its link on a device running the app.</p>"
                + connect
        }
        let hidden = [
            ("snapshot", context.parameters.text("snapshot")),
            ("grouping", context.parameters.text("grouping")),
        ]
        .compactMap { name, value in
            value.map { "<input type=\"hidden\" name=\"\(name)\" value=\"\(HTML.escape($0))\">" }
        }.joined()
        return page(
            context, path: "/screens", title: "Screens",
            content: filterForm(context, path: "/screens", extra: hidden) + content
                + "<script src=\"/assets/screens.js\"></script>",
            filters: false, message: message, status: status)
    }

    /// The snapshot the page shows: `snapshot=ID`, else the newest of any screen.
    private func shownSnapshot(_ context: Context, screens: [ScreenSummary]) throws(ServerError)
        -> StoredSnapshot?
    {
        if let text = context.parameters.text("snapshot") {
            guard let id = Int64(text),
                let stored = try self.screens.screens.snapshot(id: id, projectId: context.project.id)
            else {
                throw ServerError(
                    code: .invalidQuery, message: "snapshot: no snapshot \(text.prefix(40)) here")
            }
            return stored
        }
        guard let newest = screens.max(by: { $0.latest.receivedAt < $1.latest.receivedAt }) else {
            return nil
        }
        return try self.screens.screens.snapshot(id: newest.latest.id, projectId: context.project.id)
    }

    /// Links to the other kept snapshots of the shown one's page and app version, newest first.
    private func otherSnapshots(_ context: Context, of shown: SnapshotSummary) throws(ServerError) -> String {
        let others = try self.screens.screens.snapshots(
            projectId: context.project.id, page: shown.page, appVersion: shown.appVersion, limit: 20
        ).filter { $0.id != shown.id }
        guard !others.isEmpty else { return "" }
        let links = others.map { other in
            let query = filterQuery(
                context,
                extra: [("snapshot", String(other.id)), ("grouping", context.parameters.text("grouping"))])
            return "<a href=\"/screens\(HTML.escape(query))\">\(HTML.escape(other.takenAt.iso8601))</a>"
        }
        return "<p class=\"hint\" id=\"other-snapshots\">Other snapshots of this page and version: "
            + links.joined(separator: " · ") + "</p>"
    }

    /// Exact path · similar path links.
    private func groupingToggle(_ context: Context, grouping: ElementGrouping) -> String {
        let links = ElementGrouping.allCases.map { option in
            let label = option == .exact ? "Exact path" : "Similar path (every row of a list)"
            if option == grouping { return "<strong>\(label)</strong>" }
            let query = filterQuery(
                context,
                extra: [("snapshot", context.parameters.text("snapshot")), ("grouping", option.rawValue)])
            return "<a href=\"/screens\(HTML.escape(query))\" id=\"grouping-\(option.rawValue)\">\(label)</a>"
        }
        return "<p class=\"toggle\">Click map by: \(links.joined(separator: " · "))</p>"
    }

    /// `stored` drawn with its elements' clicks and people over the range (the elements
    /// report's figures for exactly its paths) and the given session taps.
    func snapshotView(
        _ context: Context, _ stored: StoredSnapshot, grouping: ElementGrouping, taps: [String: Int] = [:]
    ) throws(ServerError) -> SnapshotView {
        let snapshot = try Self.decoded(stored)
        let figures = try self.screens.elementFigures(
            project: context.project, snapshot: stored, parameters: context.parameters)
        var exact: [String: SnapshotView.Figures] = [:]
        var similar: [String: SnapshotView.Figures] = [:]
        for element in figures {
            exact[element.path] = SnapshotView.Figures(clicks: element.clicks, people: element.people)
            similar[element.similarPath] = SnapshotView.Figures(
                clicks: element.similarClicks, people: element.similarPeople)
        }
        return SnapshotView(
            snapshot: snapshot, id: String(stored.summary.id), hasImage: stored.summary.image != nil,
            exact: exact, similar: similar, grouping: grouping, taps: taps,
            linkQuery: filterQuery(context), project: context.parameters.project)
    }

    /// The stored document read back (it was validated on upload).
    /// The store keeps it without its connect token and image bytes; the decoder wants a token.
    static func decoded(_ stored: StoredSnapshot) throws(ServerError) -> ScreenSnapshot {
        let unreadable = ServerError(code: .storage, message: "snapshot \(stored.summary.id) cannot be read")
        guard case .object(var root)? = try? JSONParser().parse(Array(stored.document.utf8)) else {
            throw unreadable
        }
        if root["connect_token"]?.stringValue?.isEmpty ?? true { root["connect_token"] = .string("stored") }
        // The image's bytes are kept apart (`/screens/image`); the document only describes it.
        root["image"] = nil
        do {
            return try ScreenSnapshot(json: .object(root))
        } catch {
            throw ServerError(code: .storage, message: "\(unreadable.message): \(error.message)")
        }
    }

    /// Where the live view stands: the snapshot it shows and the last event it has looked at.
    struct LiveState: Sendable, Hashable {
        /// The store's id of the snapshot shown (0: none yet).
        var snapshot: Int64
        /// The event sequence up to which the session's taps are counted.
        var cursor: Int64
    }

    /// The newest snapshot of a connect session drawn with every tap its devices made since
    /// the session started (read once, when a new snapshot appears), and where that leaves the
    /// live view.
    func liveSnapshot(
        _ context: Context, session: ConnectSession, grouping: ElementGrouping, after: Int64 = 0
    )
        throws(ServerError) -> (state: LiveState, html: String)?
    {
        let store = screens.screens
        let newer = try store.snapshots(
            projectId: context.project.id, connectSessionId: session.id, after: after, limit: 1000)
        guard let newest = newer.last,
            let stored = try store.snapshot(id: newest.id, projectId: context.project.id)
        else { return nil }
        let (taps, cursor) = try sessionTaps(context, session: session, after: 0)
        let view = try snapshotView(
            context, stored, grouping: grouping, taps: taps.reduce(into: [:]) { $0[$1, default: 0] += 1 })
        return (LiveState(snapshot: newest.id, cursor: cursor), view.html)
    }

    /// The exact paths of the taps the session's devices made after the event sequence
    /// `after` (at most 50 of the store's bounded stretches), and the new cursor.
    func sessionTaps(_ context: Context, session: ConnectSession, after: Int64) throws(ServerError)
        -> (paths: [String], cursor: Int64)
    {
        var paths: [String] = []
        var cursor = after
        for _ in 0..<50 {
            let page = try service.stores.deviceClicks(
                projectId: context.project.id, session: session, after: cursor, limit: 1000)
            paths += page.clicks.map(\.path)
            guard page.cursor > cursor else { break }
            cursor = page.cursor
        }
        return (paths, cursor)
    }

    /// The live view's poll (`session`, the `snapshot` it shows and the event `after` which it
    /// has counted taps): the session's state, and either the drawing of a newer snapshot or
    /// the paths of the taps made since, which the script marks on the boxes.
    func liveScreens(_ context: Context) throws(ServerError) -> ServerResponse {
        let shown = Int64(try context.parameters.integer("snapshot", default: 0, in: 0...Int.max))
        let after = Int64(try context.parameters.integer("after", default: 0, in: 0...Int.max))
        guard let id = context.parameters.text("session").flatMap(Int64.init),
            let session = try self.screens.screens.connectSession(id: id, projectId: context.project.id)
        else { return .error(404, code: "not_found", message: "no such connect session") }
        var answer: JSONObject = ["open": .bool(session.state(at: context.now) == .open)]
        if let live = try liveSnapshot(
            context, session: session, grouping: try context.parameters.grouping(), after: shown)
        {
            answer["snapshot"] = .int(live.state.snapshot)
            answer["cursor"] = .int(live.state.cursor)
            answer["html"] = .string(live.html)
        } else {
            let taps =
                shown == 0
                ? (paths: [], cursor: after) : try sessionTaps(context, session: session, after: after)
            answer["snapshot"] = .int(shown)
            answer["cursor"] = .int(taps.cursor)
            answer["taps"] = .array(taps.paths.map(JSONValue.string))
        }
        return .json(200, .object(answer))
    }

    /// A stored snapshot's screenshot.
    func snapshotImage(_ context: Context) throws(ServerError) -> ServerResponse {
        guard let id = context.parameters.text("id").flatMap(Int64.init),
            let image = try self.screens.screens.snapshotImage(id: id, projectId: context.project.id)
        else { return ServerResponse(status: 404) }
        return ServerResponse(
            status: 200,
            headers: ["Content-Type": image.contentType, "Cache-Control": "private, max-age=3600"],
            body: image.data)
    }
}

extension Dashboard {
    /// The connect panel: the open sessions (follow, end), the button that starts one, and a
    /// session just started with its link (shown once: the store keeps only its digest) and
    /// QR code.
    func connectPanel(_ context: Context, started: (session: ConnectSession, link: String, qrCode: String)?)
        throws(ServerError) -> String
    {
        let open = try self.screens.screens.connectSessions(projectId: context.project.id).filter {
            $0.state(at: context.now) == .open
        }
        var html = "<section class=\"connect\" id=\"connect\"><h2>Connect a device</h2>"
        if let started {
            html += """
                <div class="columns"><div><p>Open this link on a device running the app (shown only now; it works until \(HTML.escape(started.session.expiresAt.iso8601))):</p>
                <p><code class="link" id="connect-link">\(HTML.escape(started.link))</code></p>
                <p class="hint">The app hands it to <code>Tracker.handle(url:)</code>; from then on it uploads a snapshot of every page it shows until the session ends.</p></div>
                <div>\(started.qrCode)</div></div>
                """
        }
        let rows = open.map { session -> [String] in
            let follow = "/screens" + filterQuery(context, extra: [("session", String(session.id))])
            return [
                "<code>\(HTML.escape(session.hint))…</code>", HTML.escape(session.createdAt.iso8601),
                HTML.escape(session.expiresAt.iso8601), HTML.number(session.snapshotCount),
                "<a href=\"\(HTML.escape(follow))\">Follow</a> "
                    + postForm(
                        context, action: "/screens/connect/end", fields: ["session": String(session.id)],
                        button: "End", style: "danger"),
            ]
        }
        if !rows.isEmpty {
            html += HTML.table(
                ["Token", "Started", "Expires", "Snapshots", ""], rows, numeric: [3], id: "connect-sessions")
        }
        html += postForm(context, action: "/screens/connect", button: "Start a connect session")
        return html
            + "<p class=\"hint\">A connect session lasts 10 minutes. Snapshots are never taken otherwise; secure text fields and ignored views are painted over and their text is never sent.</p></section>"
    }

    /// Starts a connect session: a new random token, kept only as its digest; the page shows
    /// its link and QR code once.
    func startConnect(_ context: Context) throws(ServerError) -> ServerResponse {
        let started: ConnectSessions.Started
        do {
            started = try connectSessions.start(project: context.project, now: context.now)
        } catch  where error.code == .connectSession {
            return try screensPage(context, message: .failure(error.message), status: 409)
        }
        return try screensPage(
            context, started: (started.session, started.link, started.qrCodeSVG),
            message: .success("Started a connect session: open the link on the device."))
    }

    /// Ends a connect session.
    func endConnect(_ context: Context, form: [String: String]) throws(ServerError) -> ServerResponse {
        guard let id = form["session"].flatMap(Int64.init),
            try connectSessions.end(id: id, project: context.project, now: context.now) != nil
        else {
            return try screensPage(context, message: .failure("No such connect session."), status: 404)
        }
        let query = HTML.query([
            ("project", context.parameters.project), ("notice", "Ended the connect session."),
        ])
        return ServerResponse(status: 303, headers: ["Location": "/screens" + query])
    }

}
