import FootprintWire
import Foundation

/// The JSON API for reports, event definitions, remote config and people's data. Reads need a
/// read token or the admin token (`Authorization: Bearer …`); changes and people's data need the
/// admin token. A project's read token reads that project only (any other is answered `404`, as
/// if it did not exist); the server-wide read and admin tokens read every project. Write keys
/// read nothing.
///
/// Every report takes `project`, `from`, `to` (UTC days, both included; default the last 30
/// days), `app_version`, `os` and `page` (see ``ReportParameters``).
public final class ReportAPI: Sendable {
    private let service: ReportService
    private let publisher: ConfigPublisher
    private let access: AccessConfiguration
    private let signIns: LockedValue<SignInLimiter>

    /// Creates the API over `stores`.
    public convenience init(stores: Stores, access: AccessConfiguration) {
        self.init(stores: stores, access: access, signIns: LockedValue(SignInLimiter(access: access)))
    }

    /// Creates the API over `stores`, counting wrong bearer tokens in `signIns`.
    init(stores: Stores, access: AccessConfiguration, signIns: LockedValue<SignInLimiter>) {
        self.service = ReportService(stores: stores)
        self.publisher = ConfigPublisher(store: stores.metadata)
        self.access = access
        self.signIns = signIns
    }

    /// Whether `path` is one of this API's.
    public static func serves(_ path: String) -> Bool {
        path.hasPrefix("/v1/reports/") || path == "/v1/events/recent" || path == "/v1/definitions"
            || path.hasPrefix("/v1/definitions/") || path == "/v1/configs" || path.hasPrefix("/v1/configs/")
            || path.hasPrefix(PeopleAPI.prefix)
    }

    /// Answers one request for a path this API ``serves(_:)``.
    ///
    /// A bearer token that is neither the read nor the admin token counts as a failed sign-in
    /// (``AccessConfiguration/failedSignInsPerAddress``); past the limit every bearer token is
    /// answered `429` with `Retry-After` without being compared.
    public func handle(_ request: ServerRequest) -> ServerResponse {
        let grant: AccessGrant
        switch BearerAuthorization(access: access, signIns: signIns, store: service.metadata).decide(request)
        {
        case .allowed(let allowed): grant = allowed
        case .refused(let response): return response
        }
        do {
            if request.path.hasPrefix(PeopleAPI.prefix) {
                guard grant.level == .admin else {
                    return .error(403, code: "forbidden", message: "people's data needs the admin token")
                }
                return try PeopleAPI(stores: service.stores).handle(request)
            }
            let isRead = request.method == "GET" || request.method == "HEAD"
            if !isRead && grant.level < .admin {
                return .error(403, code: "forbidden", message: "changes need the admin token")
            }
            return try route(request, isRead: isRead, grant: grant)
        } catch {
            return Self.response(for: error)
        }
    }

    private func route(_ request: ServerRequest, isRead: Bool, grant: AccessGrant) throws(ServerError)
        -> ServerResponse
    {
        let parameters = try ReportParameters(query: request.query, now: request.receivedAt)
        let project = try Self.project(named: parameters.project, grant: grant, service: service)
        let path = request.path
        if path.hasPrefix("/v1/reports/") {
            guard isRead else { return Self.methodNotAllowed("GET") }
            return try report(
                String(path.dropFirst("/v1/reports/".count)), project: project, parameters: parameters)
        }
        switch (request.method, path) {
        case ("GET", "/v1/events/recent"), ("HEAD", "/v1/events/recent"):
            let limit = try parameters.integer("limit", default: 50, in: 1...500)
            let after = try parameters.integer("after", default: 0, in: 0...Int.max)
            let events = try service.events.recentEvents(
                projectId: project.id, limit: limit, after: Int64(after))
            return .json(
                200,
                [
                    "events": .array(
                        events.map { event in
                            [
                                "sequence": .int(event.sequence), "type": .string(event.type.rawValue),
                                "name": event.name.map(JSONValue.string) ?? .null,
                                "time": .string(event.time.iso8601),
                                "receivedAt": .string(event.receivedAt.iso8601),
                                "person": event.person.map(JSONValue.string) ?? .null,
                                "page": event.page.map(JSONValue.string) ?? .null,
                                "message": (try? JSONParser().parse(Array(event.payload.utf8))) ?? .null,
                            ]
                        })
                ])
        case ("GET", "/v1/definitions"), ("HEAD", "/v1/definitions"):
            let definitions = try service.metadata.eventDefinitions(projectId: project.id)
            return .json(200, ["definitions": .array(definitions.map(\.jsonValue))])
        case ("POST", "/v1/definitions"):
            let json: JSONValue
            do { json = try JSONParser().parse(request.body) } catch {
                throw ServerError(code: .invalidDefinition, message: "the body is not JSON: \(error)")
            }
            let definition = try EventDefinition(json: json)
            try service.metadata.saveEventDefinition(
                definition, projectId: project.id, at: request.receivedAt)
            return .json(200, definition.jsonValue)
        case ("POST", "/v1/definitions/publish"):
            let version = try publisher.publishDefinitions(projectId: project.id, at: request.receivedAt)
            guard let version else {
                return .error(409, code: "nothing_to_publish", message: "no definition has an element path")
            }
            return .json(200, Self.json(version))
        case ("DELETE", _) where path.hasPrefix("/v1/definitions/"):
            let id = try RequestTarget.identifier(
                path.dropFirst("/v1/definitions/".count), name: "definition id")
            guard try service.metadata.deleteEventDefinition(id: id, projectId: project.id) else {
                return .error(404, code: "not_found", message: "no definition \(id.prefix(64))")
            }
            return .json(200, ["deleted": .string(id)])
        case ("GET", "/v1/configs"), ("HEAD", "/v1/configs"):
            let versions = try service.metadata.configVersions(projectId: project.id)
            return .json(200, ["versions": .array(versions.map(Self.json))])
        case ("POST", "/v1/configs"):
            let version = try publisher.publish(
                document: String(decoding: request.body, as: UTF8.self), projectId: project.id,
                at: request.receivedAt)
            return .json(200, Self.json(version))
        case ("POST", "/v1/configs/validate"):
            do {
                _ = try RemoteConfigValidator.validate(request.body)
                return .json(200, ["valid": true])
            } catch {
                return .json(200, ["valid": false, "message": .string(error.message)])
            }
        case ("POST", _) where path.hasPrefix("/v1/configs/") && path.hasSuffix("/rollback"):
            let text = path.dropFirst("/v1/configs/".count).dropLast("/rollback".count)
            guard let version = Int64(text) else {
                return .error(404, code: "not_found", message: "no endpoint \(path.prefix(200))")
            }
            return .json(
                200,
                Self.json(try publisher.rollBack(to: version, projectId: project.id, at: request.receivedAt)))
        default:
            return .error(
                404, code: "not_found", message: "no endpoint \(request.method) \(path.prefix(200))")
        }
    }

    /// The project a request names (or, without a name, the grant's project or the first one).
    /// Another project than a project token's own is answered like one that does not exist.
    static func project(named name: String?, grant: AccessGrant, service: ReportService) throws(ServerError)
        -> Project
    {
        guard let own = grant.project else { return try service.project(named: name) }
        if let name, name != own.name {
            throw ServerError(code: .project, message: "no project named \(name)")
        }
        return own
    }

    private func report(_ name: String, project: Project, parameters: ReportParameters) throws(ServerError)
        -> ServerResponse
    {
        let response = try unmarkedReport(name, project: project, parameters: parameters)
        guard response.status == 200,
            let horizon = try service.metadata.retentionHorizon(projectId: project.id),
            parameters.filter.from.map({ $0 < horizon }) ?? true
        else { return response }
        return RetentionNote(horizon: horizon).mark(response)
    }

    /// One report; its reads share what they look up about the store
    /// (``ReportService/sharingLookups()``).
    private func unmarkedReport(_ name: String, project: Project, parameters: ReportParameters)
        throws(ServerError) -> ServerResponse
    {
        let limit = try parameters.integer("limit", default: 50, in: 1...1000)
        let service = service.sharingLookups()
        switch name {
        case "traffic":
            return try Self.encoded(service.traffic(project: project, parameters: parameters))
        case "events":
            let definitions = try service.metadata.eventDefinitions(projectId: project.id)
            return try Self.encoded(
                EventsBody(
                    events: service.topEvents(project: project, parameters: parameters, limit: limit),
                    defined: service.definedEvents(
                        project: project, parameters: parameters, definitions: definitions)))
        case "elements":
            return try Self.encoded(
                service.elements(
                    project: project, parameters: parameters, grouping: parameters.grouping(), limit: limit))
        case "items":
            return try Self.encoded(service.items(project: project, parameters: parameters, limit: limit))
        case "sessions":
            return try Self.encoded(service.sessions(project: project, parameters: parameters))
        case "paths":
            if let page = parameters.text("from_page") {
                return try Self.encoded(
                    service.paths(project: project, parameters: parameters, after: page, limit: limit))
            }
            return try Self.encoded(
                service.transitions(project: project, parameters: parameters, limit: limit))
        case "funnel":
            return try Self.encoded(service.funnel(project: project, parameters: parameters))
        case "retention":
            return try Self.encoded(service.retention(project: project, parameters: parameters))
        default:
            return .error(404, code: "not_found", message: "no report \(name.prefix(64))")
        }
    }

    private struct EventsBody: Encodable {
        var events: [EventStatistics]
        var defined: [EventStatistics]
    }

    static func encoded(_ value: some Encodable) throws(ServerError) -> ServerResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return ServerResponse(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Array(try encoder.encode(value)))
        } catch {
            throw ServerError(code: .storage, message: "cannot encode the report: \(error)")
        }
    }

    static func json(_ version: RemoteConfigVersion) -> JSONValue {
        [
            "version": .int(version.version), "publishedAt": .string(version.publishedAt.iso8601),
            "etag": .string(version.etag),
            "document": (try? JSONParser().parse(Array(version.document.utf8))) ?? .string(version.document),
        ]
    }

    static func methodNotAllowed(_ allowed: String) -> ServerResponse {
        .error(405, code: "method_not_allowed", message: "use \(allowed)", headers: ["Allow": allowed])
    }

    /// The status for a failure: the caller's fault (400/404), something the store cannot do
    /// (501), or the server's (503).
    static func response(for error: ServerError) -> ServerResponse {
        switch error.code {
        case .invalidQuery, .invalidPath, .invalidDefinition, .invalidConfig:
            return .error(400, code: error.code.name, message: error.message)
        case .project:
            return .error(404, code: error.code.name, message: error.message)
        case .unsupported:
            return .error(501, code: error.code.name, message: error.message)
        default:
            return .error(503, code: error.code.name, message: error.message, headers: ["Retry-After": "5"])
        }
    }
}
