import FootprintWire

/// The web dashboard at `/`: server-rendered HTML pages with SVG charts, behind an admin
/// sign-in (cookie session), with a CSRF token on every form.
///
/// Reads go through the same ``ReportService`` as the JSON API; changes through
/// ``ConfigPublisher`` and the store.
public final class Dashboard: Sendable {
    let service: ReportService
    let publisher: ConfigPublisher
    let access: AccessConfiguration
    let sessions: DashboardSessions
    /// Wrong admin tokens per client address and overall (shared with ``ReportAPI`` when the
    /// server runs both).
    let signIns: LockedValue<SignInLimiter>
    /// Snapshots, their figures, the live view and plan health (the Screens and config pages).
    let screens: ScreenService
    /// Starts and ends connect sessions.
    let connectSessions: ConnectSessions

    /// The session cookie's name.
    static let sessionCookie = "fp_session"
    /// The sign-in form's double-submit cookie (CSRF before a session exists).
    static let signInCookie = "fp_signin"

    /// Creates the dashboard over `stores`.
    /// - Parameters:
    ///   - connectSessions: lifetimes and how many connect sessions a project has (default
    ///     ``ConnectSession/Limits/init()``).
    public convenience init(
        stores: Stores, access: AccessConfiguration,
        connectSessions: ConnectSession.Limits = ConnectSession.Limits()
    ) {
        self.init(
            stores: stores, access: access, signIns: LockedValue(SignInLimiter(access: access)),
            connectSessions: connectSessions)
    }

    /// Creates the dashboard over `stores`, counting wrong tokens in `signIns`.
    init(
        stores: Stores, access: AccessConfiguration, signIns: LockedValue<SignInLimiter>,
        connectSessions limits: ConnectSession.Limits
    ) {
        service = ReportService(stores: stores)
        publisher = ConfigPublisher(store: stores.metadata)
        self.access = access
        sessions = DashboardSessions(store: stores.metadata, lifetimeSeconds: access.sessionLifetimeSeconds)
        self.signIns = signIns
        screens = ScreenService(stores: stores)
        connectSessions = ConnectSessions(stores: stores, limits: limits)
    }

    /// A request as the pages see it: its parameters, session and project.
    struct Context {
        let request: ServerRequest
        var parameters: ReportParameters
        let project: Project
        let projects: [Project]
        let csrfToken: String
        /// The reports of this request, sharing what their reads look up
        /// (``ReportService/sharingLookups()``).
        let reports: ReportService
        var now: Timestamp { request.receivedAt }
    }

    /// Paths besides the navigation's pages: the live feed and the forms' targets.
    static let otherPaths: Set<String> = [
        "/live.json", "/signout", "/definitions/delete", "/definitions/publish", "/config/publish",
        "/config/rollback", "/config/page-name", "/screens/define", "/screens/live.json", "/screens/image",
        "/screens/connect", "/screens/connect/end",
    ]

    /// Answers one request.
    public func handle(_ request: ServerRequest) -> ServerResponse {
        var response = route(request)
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"
        response.headers["Content-Security-Policy"] =
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'"
        if response.headers["Cache-Control"] == nil { response.headers["Cache-Control"] = "no-store" }
        return response
    }

    private func route(_ request: ServerRequest) -> ServerResponse {
        let path =
            request.path.count > 1 && request.path.hasSuffix("/")
            ? String(request.path.dropLast()) : request.path
        switch path {
        case "/assets/dashboard.css":
            return ServerResponse(
                status: 200,
                headers: ["Content-Type": "text/css; charset=utf-8", "Cache-Control": "max-age=300"],
                body: Array(DashboardAssets.css.utf8))
        case "/assets/live.js", "/assets/screens.js":
            return ServerResponse(
                status: 200,
                headers: ["Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "max-age=300"],
                body: Array(
                    (path == "/assets/live.js" ? DashboardAssets.liveScript : DashboardAssets.screensScript)
                        .utf8))
        case "/favicon.ico":
            return ServerResponse(status: 204)
        case "/signin":
            if request.method == "POST" { return signIn(request) }
            guard request.method == "GET" || request.method == "HEAD" else {
                return Self.methodNotAllowed("GET, POST")
            }
            return signInPage(message: nil, status: 200)
        default:
            break
        }
        guard Self.navigation.contains(where: { $0.path == path }) || Self.otherPaths.contains(path) else {
            return page(
                status: 404, title: "Not found",
                body: "<p>No page \(HTML.escape(String(path.prefix(200)))). <a href=\"/\">Overview</a></p>")
        }
        let cookies = FormBody.cookies(request.headers["cookie"])
        let signedIn: DashboardSessions.Session?
        do {
            signedIn = try sessions.session(id: cookies[Self.sessionCookie], now: request.receivedAt)
        } catch {
            return failure(error)
        }
        guard let session = signedIn else {
            if request.method == "GET" || request.method == "HEAD" {
                if path.hasSuffix(".json") {
                    return .error(401, code: "unauthorized", message: "sign in again")
                }
                return ServerResponse(status: 303, headers: ["Location": "/signin"])
            }
            return page(
                status: 403, title: "Forbidden",
                body: "<p>Sign in first: <a href=\"/signin\">sign in</a>.</p>")
        }
        do {
            let parameters = try ReportParameters(query: request.query, now: request.receivedAt)
            let projects = try service.metadata.projects()
            let project = try service.project(named: parameters.project)
            let context = Context(
                request: request, parameters: parameters, project: project, projects: projects,
                csrfToken: session.csrfToken, reports: service.sharingLookups())
            if request.method == "POST" {
                let form = try FormBody.fields(request.body)
                guard let token = form["csrf"],
                    AccessConfiguration.constantTimeEquals(token, session.csrfToken)
                else {
                    return page(
                        status: 403, title: "Forbidden",
                        body:
                            "<p>The form's security token is missing or stale. Go back, reload the page and try again.</p>"
                    )
                }
                return try post(path, form: form, context: context, sessionId: cookies[Self.sessionCookie])
            }
            guard request.method == "GET" || request.method == "HEAD" else {
                return Self.methodNotAllowed("GET, POST")
            }
            return try get(path, context: context)
        } catch {
            return failure(error)
        }
    }

    /// The page of a failure, with the report API's status (and its `Retry-After` when the
    /// store cannot be reached).
    private func failure(_ error: ServerError) -> ServerResponse {
        let status = ReportAPI.response(for: error)
        var response = page(
            status: status.status, title: "Cannot show this page",
            body:
                "<p class=\"error\">\(HTML.escape(error.message))</p><p><a href=\"/\">Back to the overview</a></p>"
        )
        if let retry = status.headers["Retry-After"] { response.headers["Retry-After"] = retry }
        return response
    }

    private func get(_ path: String, context: Context) throws(ServerError) -> ServerResponse {
        switch path {
        case "/": return try overviewPage(context)
        case "/pages": return try pagesPage(context)
        case "/events": return try eventsPage(context)
        case "/elements": return try elementsPage(context)
        case "/items": return try itemsPage(context)
        case "/funnels": return try funnelsPage(context)
        case "/retention": return try retentionPage(context)
        case "/live": return livePage(context)
        case "/live.json": return try liveEvents(context)
        case "/definitions": return try definitionsPage(context, message: nil)
        case "/config": return try configPage(context, message: nil, draft: nil)
        case "/screens": return try screensPage(context)
        case "/screens/define": return try defineFromScreenPage(context)
        case "/screens/live.json": return try liveScreens(context)
        case "/screens/image": return try snapshotImage(context)
        default:
            return page(
                status: 404, title: "Not found",
                body: "<p>No page \(HTML.escape(String(path.prefix(200)))). <a href=\"/\">Overview</a></p>")
        }
    }

    private func post(_ path: String, form: [String: String], context: Context, sessionId: String?)
        throws(ServerError)
        -> ServerResponse
    {
        let projectId = context.project.id
        switch path {
        case "/signout":
            try sessions.end(id: sessionId)
            return ServerResponse(
                status: 303,
                headers: [
                    "Location": "/signin",
                    "Set-Cookie": "\(Self.sessionCookie)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0",
                ])
        case "/definitions":
            do {
                let definition = try EventDefinition(json: Self.definitionJSON(form))
                try service.metadata.saveEventDefinition(definition, projectId: projectId, at: context.now)
                return redirect("/definitions", context, notice: "Saved the definition \(definition.name).")
            } catch  where error.code == .invalidDefinition {
                return try definitionsPage(context, message: .failure(error.message), form: form, status: 400)
            }
        case "/definitions/delete":
            let id = form["id"] ?? ""
            guard try service.metadata.deleteEventDefinition(id: id, projectId: projectId) else {
                return try definitionsPage(context, message: .failure("No definition \(id)."), status: 404)
            }
            return redirect("/definitions", context, notice: "Deleted the definition \(id).")
        case "/definitions/publish":
            guard let version = try publisher.publishDefinitions(projectId: projectId, at: context.now) else {
                return try definitionsPage(
                    context,
                    message: .failure("No definition has an element path: nothing for the SDK to match."),
                    status: 409)
            }
            return redirect(
                "/config", context, notice: "Published the definitions as config version \(version.version).")
        case "/config/publish":
            let document = form["document"] ?? ""
            do {
                if form["action"] == "validate" {
                    _ = try RemoteConfigValidator.validate(Array(document.utf8))
                    return try configPage(
                        context, message: .success("The document is a valid tracking plan."), draft: document)
                }
                let version = try publisher.publish(document: document, projectId: projectId, at: context.now)
                return redirect("/config", context, notice: "Published config version \(version.version).")
            } catch  where error.code == .invalidConfig {
                return try configPage(context, message: .failure(error.message), draft: document, status: 400)
            }
        case "/screens/define":
            return try defineFromScreen(context, form: form)
        case "/screens/connect":
            return try startConnect(context)
        case "/screens/connect/end":
            return try endConnect(context, form: form)
        case "/config/rollback":
            guard let version = Int64(form["version"] ?? "") else {
                return try configPage(
                    context, message: .failure("Choose a version to roll back to."), draft: nil, status: 400)
            }
            let published = try publisher.rollBack(to: version, projectId: projectId, at: context.now)
            return redirect(
                "/config", context,
                notice: "Rolled back: version \(version)'s document is now version \(published.version).")
        case "/config/page-name":
            do {
                let version = try publisher.publishPageName(
                    controller: form["controller"] ?? "", name: form["name"] ?? "", projectId: projectId,
                    at: context.now)
                return redirect(
                    "/config", context,
                    notice: "Published the page name as config version \(version.version).")
            } catch  where error.code == .invalidConfig {
                return try configPage(context, message: .failure(error.message), draft: nil, status: 400)
            }
        default:
            return page(
                status: 404, title: "Not found",
                body: "<p>No form \(HTML.escape(String(path.prefix(200)))).</p>")
        }
    }

    /// A definition's JSON from the definition form's fields (up to five matchers).
    static func definitionJSON(_ form: [String: String]) -> JSONValue {
        var matchers: [JSONValue] = []
        for index in 1...5 {
            var fields: JSONObject = [:]
            for key in ["event", "path", "page"] {
                if let value = form["\(key)\(index)"]?.trimmingSpaces, !value.isEmpty {
                    fields[key] = .string(value)
                }
            }
            guard !fields.isEmpty else { continue }
            if fields["path"] != nil, let match = form["match\(index)"], !match.isEmpty {
                fields["match"] = .string(match)
            }
            if let conditions = form["attributes\(index)"]?.trimmingSpaces, !conditions.isEmpty,
                fields["path"] != nil
            {
                var attributes: JSONObject = [:]
                for line in conditions.split(whereSeparator: \.isNewline) {
                    let pair = line.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpaces }
                    if pair.count == 2, !pair[0].isEmpty { attributes[pair[0]] = .string(pair[1]) }
                }
                fields["attributes"] = .object(attributes)
            }
            matchers.append(.object(fields))
        }
        return [
            "id": .string(form["id"] ?? ""), "name": .string(form["name"] ?? ""),
            "matchers": .array(matchers),
        ]
    }

    private func redirect(_ path: String, _ context: Context, notice: String) -> ServerResponse {
        let query = HTML.query([("project", context.parameters.project), ("notice", notice)])
        return ServerResponse(status: 303, headers: ["Location": path + query])
    }

    static func methodNotAllowed(_ allowed: String) -> ServerResponse {
        ServerResponse(
            status: 405, headers: ["Allow": allowed, "Content-Type": "text/plain; charset=utf-8"],
            body: Array("Method not allowed; use \(allowed).".utf8))
    }

    // MARK: Sign-in

    private func signInPage(message: String?, status: Int) -> ServerResponse {
        let token = AccessConfiguration.makeToken(prefix: "")
        let body = """
            <form class="signin" method="post" action="/signin">
            <h1>Sign in to Footprint</h1>
            \(message.map { "<p class=\"error\">\(HTML.escape($0))</p>" } ?? "")
            <label>Admin token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
            <input type="hidden" name="csrf" value="\(token)">
            <button type="submit">Sign in</button>
            <p class="hint">The admin token is printed by <code>footprint serve</code> when it starts.</p>
            </form>
            """
        var response = Self.document(title: "Sign in", body: body, status: status)
        response.headers["Set-Cookie"] =
            "\(Self.signInCookie)=\(token); Path=/signin; HttpOnly; SameSite=Strict\(access.secureCookies ? "; Secure" : "")"
        return response
    }

    /// The sign-in page refusing with `429` and `Retry-After` (no token was compared).
    private func tooManySignIns(_ message: String, _ seconds: Int) -> ServerResponse {
        var response = signInPage(message: message, status: 429)
        response.headers["Retry-After"] = String(seconds)
        return response
    }

    /// `45 seconds`, `2 minutes`, for people.
    static func wait(_ seconds: Int) -> String {
        if seconds < 90 { return seconds == 1 ? "1 second" : "\(seconds) seconds" }
        return "\((seconds + 59) / 60) minutes"
    }

    private func signIn(_ request: ServerRequest) -> ServerResponse {
        // A form that cannot be read is answered as one without its security token.
        let form = (try? FormBody.fields(request.body)) ?? [:]
        let cookie = FormBody.cookies(request.headers["cookie"])[Self.signInCookie] ?? ""
        guard let csrf = form["csrf"], AccessConfiguration.constantTimeEquals(csrf, cookie) else {
            return signInPage(message: "The sign-in form expired. Please try again.", status: 403)
        }
        let address = request.clientAddress
        switch signIns.withLock({ $0.check(address: address, now: request.receivedAt) }) {
        case .allow:
            break
        case .tooManyFromAddress(let seconds):
            return tooManySignIns(
                "Too many wrong tokens from your address. Try again in \(Self.wait(seconds)).", seconds)
        case .tooManyOverall(let seconds):
            return tooManySignIns(
                "Too many wrong tokens were sent to this server. Sign-in is paused for everyone; try again in \(Self.wait(seconds)).",
                seconds)
        }
        guard AccessConfiguration.constantTimeEquals(form["token"] ?? "", access.adminToken) else {
            signIns.withLock { $0.failed(address: address, now: request.receivedAt) }
            return signInPage(message: "That is not the admin token.", status: 401)
        }
        let id: String
        do {
            id = try sessions.start(now: request.receivedAt)
        } catch {
            var response = signInPage(
                message: "The session could not be stored. Please try again.", status: 503)
            response.headers["Retry-After"] = "5"
            return response
        }
        return ServerResponse(
            status: 303,
            headers: [
                "Location": "/",
                "Set-Cookie":
                    "\(Self.sessionCookie)=\(id); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(access.sessionLifetimeSeconds)\(access.secureCookies ? "; Secure" : "")",
            ])
    }
}
