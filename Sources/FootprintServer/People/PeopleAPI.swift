import FootprintWire

/// People's data over HTTP, admin token only (``ReportAPI`` checks it first):
/// `DELETE /v1/people/{id}` deletes a person (see ``EventStore/deletePerson(id:projectId:request:)``)
/// and `GET /v1/people/{id}/export` answers everything stored about one. Both take `project`
/// (default: the only project); the deletion also `refuse_days` (0 to 3,650, default 30).
struct PeopleAPI {
    /// The paths this API answers start with this.
    static let prefix = "/v1/people/"

    let stores: Stores

    func handle(_ request: ServerRequest) throws(ServerError) -> ServerResponse {
        let parameters = try ReportParameters(query: request.query, now: request.receivedAt)
        let project = try ReportService(stores: stores).project(named: parameters.project)
        let rest = String(request.path.dropFirst(Self.prefix.count))
        switch request.method {
        case "DELETE":
            let id = try RequestTarget.identifier(rest, name: "person id")
            let days = try parameters.integer("refuse_days", default: 30, in: 0...3_650)
            let deletion = try stores.events.deletePerson(
                id: id, projectId: project.id,
                request: PersonDeletion.Request(
                    requestedBy: "admin-token", at: request.receivedAt, refuseForDays: days))
            return .json(200, deletion.jsonValue)
        case "GET", "HEAD":
            guard rest.hasSuffix("/export") else {
                return .error(404, code: "not_found", message: "use /v1/people/{id}/export")
            }
            let id = try RequestTarget.identifier(rest.dropLast("/export".count), name: "person id")
            let export = try stores.events.exportPerson(id: id, projectId: project.id)
            return .json(200, export.jsonValue)
        default:
            return ReportAPI.methodNotAllowed("GET, DELETE")
        }
    }
}
