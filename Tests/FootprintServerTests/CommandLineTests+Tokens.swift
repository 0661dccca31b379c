import FootprintServer
import FootprintWire
import Foundation
import Testing

/// `footprint projects create` and `footprint tokens`: a read token printed once, listed by its
/// first characters only, working over HTTP until revoked.
extension CommandLineTests {
    @Test func tokensAreCreatedListedAndRevoked() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/tokens.sqlite"
        let created = try run(["projects", "create", "shop", "--db", database, "--json"])
        #expect(created.status == 0, "\(created.error)")
        let project = try JSONParser().parse(created.output)
        guard case .string(let projectToken)? = project["readToken"] else {
            Issue.record("no read token in \(created.output)")
            return
        }
        #expect(projectToken.hasPrefix("fpr_") && projectToken.count == 36)
        #expect(
            try run(["projects", "create", "other", "--db", database]).output.contains("read token: fpr_"))

        let made = try run(["tokens", "create", "--project", "other", "--db", database, "--json"])
        #expect(made.status == 0, "\(made.error)")
        let token = try JSONDecoder().decode(ProjectToken.self, from: Data(made.output.utf8))
        #expect(token.projectName == "other")
        guard case .string(let otherToken)? = try JSONParser().parse(made.output)["readToken"] else {
            Issue.record("no read token in \(made.output)")
            return
        }

        let listed = try run(["tokens", "list", "--db", database])
        #expect(listed.status == 0)
        #expect(listed.output.contains(String(otherToken.prefix(8))))
        for secret in [projectToken, otherToken] { #expect(!listed.output.contains(secret)) }
        let listedJSON = try JSONDecoder().decode(
            [ProjectToken].self, from: Data(run(["tokens", "list", "--db", database, "--json"]).output.utf8))
        #expect(listedJSON.map(\.projectName) == ["shop", "other", "other"])

        // The token reads its project over HTTP until it is revoked.
        var configuration = AnalyticsServer.Configuration(databasePath: database)
        configuration.store.synchronous = "NORMAL"
        let server = try AnalyticsServer(configuration: configuration)
        defer { server.stop() }
        let client = LoopbackClient(port: server.port)
        let headers = ["Authorization": "Bearer \(otherToken)"]
        #expect(try client.send("GET", "/v1/reports/traffic?project=other", headers: headers).status == 200)
        #expect(try client.send("GET", "/v1/reports/traffic?project=shop", headers: headers).status == 404)
        let revoked = try run(["tokens", "revoke", String(token.id), "--db", database])
        #expect(revoked.status == 0, "\(revoked.error)")
        #expect(try client.send("GET", "/v1/reports/traffic?project=other", headers: headers).status == 401)
        #expect(try run(["tokens", "revoke", String(token.id), "--db", database]).status == 64)
        #expect(try run(["tokens", "create", "--project", "nothing", "--db", database]).status == 64)
        #expect(
            try run(["tokens", "signout", "--db", database]).output.contains("Ended 0 dashboard sessions"))
    }
}
