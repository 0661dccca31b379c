import FootprintWire

/// The JSON API of screens, connect sessions and plan health: what the dashboard's Screens page,
/// its live connect view and the config page read, for scripts too. Reads need a read or admin
/// token (`Authorization: Bearer …`; a project's read token reads that project only); starting
/// and ending connect sessions need the admin token. Every path takes `project`; the figures
/// take the report filters (`from`, `to`, `app_version`, `os`, `page`).
///
/// - `GET /v1/screens`: each page and app version with its newest snapshot.
/// - `GET /v1/screens/snapshots?page=P&app_version=V`: that screen's snapshots, newest first.
/// - `GET /v1/snapshots/{id}`, `GET /v1/snapshots/{id}/image`, `GET /v1/snapshots/{id}/elements`.
/// - `GET|POST /v1/connect-sessions`, `GET|DELETE /v1/connect-sessions/{id}`,
///   `GET /v1/connect-sessions/{id}/live`.
/// - `GET /v1/plan-health`.
public final class ScreenAPI: Sendable {
    private let service: ScreenService
    private let sessions: ConnectSessions
    private let bearer: BearerAuthorization

    /// Creates the API over `stores`, counting wrong bearer tokens in `signIns` (shared with the
    /// report API).
    init(
        stores: Stores, access: AccessConfiguration, signIns: LockedValue<SignInLimiter>,
        limits: ConnectSession.Limits
    ) {
        service = ScreenService(stores: stores)
        sessions = ConnectSessions(stores: stores, limits: limits)
        bearer = BearerAuthorization(access: access, signIns: signIns, store: stores.metadata)
    }

    /// Creates the API with its own allowance of wrong tokens.
    public convenience init(
        stores: Stores, access: AccessConfiguration, limits: ConnectSession.Limits = ConnectSession.Limits()
    ) {
        self.init(
            stores: stores, access: access, signIns: LockedValue(SignInLimiter(access: access)),
            limits: limits)
    }

    /// Whether `path` is one of this API's (`POST /v1/snapshots` is the upload's,
    /// ``SnapshotUploadAPI``).
    public static func serves(_ path: String) -> Bool {
        path == "/v1/screens" || path == "/v1/screens/snapshots" || path.hasPrefix("/v1/snapshots/")
            || path == "/v1/connect-sessions" || path.hasPrefix("/v1/connect-sessions/")
            || path == "/v1/plan-health"
    }

    /// Answers one request for a path this API ``serves(_:)``.
    public func handle(_ request: ServerRequest) -> ServerResponse {
        let grant: AccessGrant
        switch bearer.decide(request) {
        case .allowed(let allowed): grant = allowed
        case .refused(let response): return response
        }
        let isRead = request.method == "GET" || request.method == "HEAD"
        if !isRead && grant.level < .admin {
            return .error(
                403, code: "forbidden", message: "connect sessions are started and ended with the admin token"
            )
        }
        do {
            let parameters = try ReportParameters(query: request.query, now: request.receivedAt)
            let project = try ReportAPI.project(
                named: parameters.project, grant: grant, service: service.reports)
            return try route(request, parameters: parameters, project: project)
        } catch {
            switch error.code {
            case .connectSession: return .error(400, code: error.code.name, message: error.message)
            case .tooManyConnectSessions: return .error(409, code: error.code.name, message: error.message)
            default: return ReportAPI.response(for: error)
            }
        }
    }

    private func route(_ request: ServerRequest, parameters: ReportParameters, project: Project)
        throws(ServerError) -> ServerResponse
    {
        let path =
            request.path.count > 1 && request.path.hasSuffix("/")
            ? String(request.path.dropLast()) : request.path
        let parts = path.split(separator: "/").map(String.init)
        let method = request.method == "HEAD" ? "GET" : request.method
        let screens = service.screens
        guard parts.count >= 2 else { return Self.notFound(request) }
        switch (parts[1], parts.count) {
        case ("screens", 2):
            guard method == "GET" else { return ReportAPI.methodNotAllowed("GET") }
            return .json(200, ["screens": .array(try screens.screens(projectId: project.id).map(Self.json))])
        case ("screens", 3) where parts[2] == "snapshots":
            guard method == "GET" else { return ReportAPI.methodNotAllowed("GET") }
            guard let page = request.query["page"], let version = request.query["app_version"] else {
                throw ServerError(code: .invalidQuery, message: "page, app_version: name the screen")
            }
            let limit = try parameters.integer("limit", default: 50, in: 1...500)
            let snapshots = try screens.snapshots(
                projectId: project.id, page: page, appVersion: version, limit: limit)
            return .json(200, ["snapshots": .array(snapshots.map(\.jsonValue))])
        case ("snapshots", 3), ("snapshots", 4):
            guard method == "GET" else { return ReportAPI.methodNotAllowed("GET") }
            return try snapshot(request, parts: parts, parameters: parameters, project: project)
        case ("connect-sessions", 2):
            switch method {
            case "GET":
                let list = try screens.connectSessions(projectId: project.id)
                return .json(200, ["sessions": .array(list.map { $0.jsonValue(at: request.receivedAt) })])
            case "POST":
                return try startSession(request, project: project)
            default:
                return ReportAPI.methodNotAllowed("GET, POST")
            }
        case ("connect-sessions", 3):
            return try session(
                request, method: method, parts: parts, parameters: parameters, project: project)
        case ("connect-sessions", 4) where parts[3] == "live":
            return try session(
                request, method: method, parts: parts, parameters: parameters, project: project)
        case ("plan-health", 2):
            guard method == "GET" else { return ReportAPI.methodNotAllowed("GET") }
            return .json(200, try service.planHealth(project: project, parameters: parameters).jsonValue)
        default:
            return Self.notFound(request)
        }
    }

    private static func notFound(_ request: ServerRequest) -> ServerResponse {
        .error(404, code: "not_found", message: "no endpoint \(request.method) \(request.path.prefix(200))")
    }

    /// `GET /v1/snapshots/{id}`, `…/image` and `…/elements`.
    private func snapshot(
        _ request: ServerRequest, parts: [String], parameters: ReportParameters, project: Project
    )
        throws(ServerError) -> ServerResponse
    {
        guard let id = Int64(parts[2]), id > 0 else { return Self.notFound(request) }
        let screens = service.screens
        let what = parts.count == 4 ? parts[3] : ""
        if what == "image" {
            guard let image = try screens.snapshotImage(id: id, projectId: project.id) else {
                return .error(404, code: "not_found", message: "snapshot \(id) has no image")
            }
            // A snapshot's id is never reused and its image never changes.
            return ServerResponse(
                status: 200,
                headers: [
                    "Content-Type": image.contentType, "Cache-Control": "private, max-age=86400, immutable",
                    "X-Content-Type-Options": "nosniff",
                ],
                body: image.data)
        }
        guard what.isEmpty || what == "elements" else { return Self.notFound(request) }
        guard let snapshot = try screens.snapshot(id: id, projectId: project.id) else {
            return .error(404, code: "not_found", message: "no snapshot \(id)")
        }
        if what == "elements" {
            let figures = try service.elementFigures(
                project: project, snapshot: snapshot, parameters: parameters)
            return .json(200, ["snapshot": .int(id), "elements": .array(figures.map(\.jsonValue))])
        }
        let document = (try? JSONParser(maximumDepth: 8).parse(Array(snapshot.document.utf8))) ?? .null
        return .json(200, ["snapshot": snapshot.summary.jsonValue, "document": document])
    }

    /// `POST /v1/connect-sessions`: body `{"lifetime_seconds", "url_scheme", "server_url"}`, each optional.
    private func startSession(_ request: ServerRequest, project: Project) throws(ServerError)
        -> ServerResponse
    {
        var options: JSONObject = [:]
        if !request.body.isEmpty {
            guard request.body.count <= 4096, let json = try? JSONParser().parse(request.body),
                let object = json.objectValue
            else {
                throw ServerError(
                    code: .connectSession,
                    message:
                        "the body must be a JSON object (lifetime_seconds, url_scheme, server_url), at most 4 KB"
                )
            }
            options = object
        }
        func text(_ key: String) throws(ServerError) -> String? {
            guard let value = options[key], value != .null else { return nil }
            guard let text = value.stringValue else {
                throw ServerError(code: .connectSession, message: "\(key) must be a string")
            }
            return text
        }
        var lifetime: Int64?
        if let value = options["lifetime_seconds"], value != .null {
            guard let seconds = value.int64Value else {
                throw ServerError(code: .connectSession, message: "lifetime_seconds must be an integer")
            }
            lifetime = seconds
        }
        let started = try sessions.start(
            project: project, now: request.receivedAt, lifetimeSeconds: lifetime,
            urlScheme: try text("url_scheme"),
            serverURL: try text("server_url"))
        return .json(
            201,
            [
                "session": started.session.jsonValue(at: request.receivedAt), "token": .string(started.token),
                "link": .string(started.link), "qrCodeSVG": .string(started.qrCodeSVG),
            ],
            headers: ["Cache-Control": "no-store"])
    }

    /// `GET|DELETE /v1/connect-sessions/{id}` and `GET /v1/connect-sessions/{id}/live`.
    private func session(
        _ request: ServerRequest, method: String, parts: [String], parameters: ReportParameters,
        project: Project
    ) throws(ServerError) -> ServerResponse {
        guard let id = Int64(parts[2]), id > 0 else { return Self.notFound(request) }
        let now = request.receivedAt
        switch (method, parts.count) {
        case ("GET", 3):
            guard let session = try service.screens.connectSession(id: id, projectId: project.id) else {
                break
            }
            return .json(200, ["session": session.jsonValue(at: now)])
        case ("DELETE", 3):
            guard let session = try sessions.end(id: id, project: project, now: now) else { break }
            return .json(200, ["session": session.jsonValue(at: now)])
        case ("GET", 4):
            let live = try service.live(
                project: project, connectSessionId: id,
                afterSnapshot: Int64(try parameters.integer("after_snapshot", default: 0, in: 0...Int.max)),
                afterEvent: Int64(try parameters.integer("after_event", default: 0, in: 0...Int.max)),
                limit: try parameters.integer("limit", default: 100, in: 1...500))
            guard let live else { break }
            return .json(200, live.jsonValue(at: now), headers: ["Cache-Control": "no-store"])
        default:
            return ReportAPI.methodNotAllowed(parts.count == 3 ? "GET, DELETE" : "GET")
        }
        return .error(404, code: "not_found", message: "no connect session \(id)")
    }

    private static func json(_ screen: ScreenSummary) -> JSONValue {
        [
            "page": .string(screen.page), "appVersion": .string(screen.appVersion),
            "snapshots": .int(Int64(screen.snapshotCount)), "latest": screen.latest.jsonValue,
        ]
    }
}
