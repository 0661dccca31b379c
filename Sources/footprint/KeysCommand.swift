import FootprintCommandLine
import FootprintServer
import FootprintWire

/// `footprint keys list|create|revoke`: the write keys of projects, in the SQLite file or in
/// the PostgreSQL metadata of a ClickHouse deployment.
enum KeysCommand: Command {
    static let name = "keys"
    static let summary = "list, create and revoke projects' write keys (rotate a key)"
    static let usage = """
        footprint keys list [--project NAME] [--db PATH | --meta URL] [--json]
        footprint keys create --project NAME [--db PATH | --meta URL] [--json]
        footprint keys revoke KEY [--db PATH | --meta URL]
          list       the write keys: key, project, creation time (every project's, or --project's)
          create     add a write key to a project; its other keys keep working. To rotate a key:
                     create its successor, ship it in the app, then revoke the old one
          revoke KEY ingest refuses the key from now on: every server on the same file or database
                     within its metadata cache interval (1 s unless --meta-cache-interval). A
                     project's only key cannot be revoked
          --project  the project
          --db       SQLite database file (PATH or sqlite:PATH; default footprint.sqlite)
          --meta     the PostgreSQL metadata of a ClickHouse deployment (postgres://USER@HOST:PORT/DATABASE)
          --json     print JSON
        """

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(
            arguments, options: ["db", "meta", "project"], flags: ["json"],
            actions: [("list", []), ("create", []), ("revoke", ["KEY"])])
        switch parsed.positional.first {
        case "list":
            let store = try StoreAccess.openMetadata(parsed)
            defer { store.close() }
            let projects =
                try parsed.options["project"].map { [try StoreAccess.project(named: $0, in: store)] }
                ?? store.projects()
            let names = Dictionary(projects.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
            let keys = try projects.flatMap { project in try store.writeKeys(projectId: project.id) }
            try Output.list(
                keys, json: parsed.flags.contains("json"), headers: ["key", "project", "created"]
            ) {
                [$0.key, names[$0.projectId] ?? "", $0.createdAt.iso8601]
            }
        case "create":
            guard parsed.positional.count == 1, let name = parsed.options["project"] else {
                throw UsageError(description: "usage: footprint keys create --project NAME")
            }
            let store = try StoreAccess.openMetadata(parsed)
            defer { store.close() }
            let project = try StoreAccess.project(named: name, in: store)
            let key = try store.createWriteKey(projectId: project.id, at: SystemClock().now())
            if parsed.flags.contains("json") {
                try Output.json(key)
            } else {
                print("Created a write key of project \(project.name)")
                print("  write key: \(key.key)  (its other keys keep working until revoked)")
            }
        case "revoke":
            guard parsed.positional.count == 2 else {
                throw UsageError(description: "usage: footprint keys revoke KEY")
            }
            let key = parsed.positional[1]
            let store = try StoreAccess.openMetadata(parsed)
            defer { store.close() }
            guard try store.revokeWriteKey(key) else {
                throw UsageError(description: "no write key \(key)")
            }
            print("Revoked write key \(key)")
        default:
            throw UsageError(description: usage)
        }
    }
}
