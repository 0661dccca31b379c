import FootprintCommandLine
import FootprintServer
import FootprintWire

/// `footprint tokens create|list|revoke` (project read tokens) and `footprint tokens signout`
/// (dashboard sessions).
enum TokensCommand: Command {
    static let name = "tokens"
    static let summary = "read tokens of one project; end dashboard sessions"
    static let usage = """
        footprint tokens create --project NAME [--db PATH | --meta URL] [--json]
        footprint tokens list [--db PATH | --meta URL] [--json]
        footprint tokens revoke ID [--db PATH | --meta URL]
        footprint tokens signout [--db PATH | --meta URL]
          create     make a read token of one project and print it (shown once: the database
                     keeps only its SHA-256); it reads that project's reports and nothing else
                     (project tokens only read: there is no other kind)
          list       the project read tokens: id, project, first characters, creation time
          revoke ID  delete a read token (every server sharing the database refuses it at once)
          signout    end every dashboard session
          --project  the project the token reads
          --db       SQLite database file (PATH or sqlite:PATH; default footprint.sqlite)
          --meta     the PostgreSQL metadata of a ClickHouse deployment (postgres://USER@HOST:PORT/DATABASE)
          --json     print JSON
        """

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(
            arguments, options: ["db", "meta", "project"], flags: ["json"],
            actions: [("create", []), ("list", []), ("revoke", ["ID"]), ("signout", [])])
        switch parsed.positional.first {
        case "create":
            guard parsed.positional.count == 1, let name = parsed.options["project"] else {
                throw UsageError(
                    description: "usage: footprint tokens create --project NAME")
            }
            let store = try StoreAccess.openMetadata(parsed)
            defer { store.close() }
            let project = try StoreAccess.project(named: name, in: store)
            let (token, secret) = try store.createReadToken(projectId: project.id, at: SystemClock().now())
            if parsed.flags.contains("json") {
                try Output.json(WithReadToken(value: token, readToken: secret))
            } else {
                print("Created read token \(token.id) of project \(project.name)")
                print("  read token: \(secret)  (shown once; the database keeps only its hash)")
            }
        case "list":
            let store = try StoreAccess.openMetadata(parsed, readOnly: true)
            defer { store.close() }
            try Output.list(
                try store.readTokens(), json: parsed.flags.contains("json"),
                headers: ["id", "project", "token", "created"]
            ) { [String($0.id), $0.projectName, $0.hint + "…", $0.createdAt.iso8601] }
        case "revoke":
            guard parsed.positional.count == 2, let id = Int64(parsed.positional[1]) else {
                throw UsageError(description: "usage: footprint tokens revoke ID")
            }
            let store = try StoreAccess.openMetadata(parsed)
            defer { store.close() }
            guard try store.revokeReadToken(id: id) else {
                throw UsageError(description: "no read token \(id)")
            }
            print("Revoked read token \(id)")
        case "signout":
            let store = try StoreAccess.openMetadata(parsed)
            defer { store.close() }
            let ended = try store.endEveryDashboardSession()
            print("Ended \(ended) dashboard session\(ended == 1 ? "" : "s")")
        default:
            throw UsageError(description: usage)
        }
    }

    /// A new project or read token with the token itself, as `--json` prints them (the
    /// value's fields and `readToken`).
    struct WithReadToken<Value: Encodable>: Encodable {
        var value: Value
        var readToken: String

        func encode(to encoder: any Encoder) throws {
            try value.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(readToken, forKey: .readToken)
        }

        enum Key: String, CodingKey { case readToken }
    }
}
