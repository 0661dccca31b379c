import FootprintCommandLine
import FootprintServer
import FootprintWire

/// `footprint projects create NAME` and `footprint projects list`.
enum ProjectsCommand: Command {
    static let name = "projects"
    static let summary = "create and list projects; set a project's retention"
    static let usage = """
        footprint projects create NAME [--db PATH] [--json]
        footprint projects list [--db PATH] [--json]
        footprint projects set NAME --retention-days N|default [--db PATH]
          create NAME  add a project; print its write key and a read token of it (shown once)
          list         the projects, their write keys and event counts
          set NAME     the project's own retention: N days of events kept (1 to 36500), or
                       default (the server's --retention-days)
          --db         SQLite database file (PATH or sqlite:PATH; default footprint.sqlite)
          --json       print JSON
        """

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(
            arguments, options: ["db", "retention-days"], flags: ["json"],
            actions: [("create", ["NAME"]), ("list", []), ("set", ["NAME"])])
        switch parsed.positional.first {
        case "set":
            guard parsed.positional.count == 2, let days = parsed.options["retention-days"] else {
                throw UsageError(
                    description: "usage: footprint projects set NAME --retention-days N|default")
            }
            let store = try StoreAccess.open(StoreAccess.databasePath(parsed), existing: true)
            defer { store.close() }
            let project = try StoreAccess.project(named: parsed.positional[1], in: store)
            let own =
                days == "default" ? nil : try parsed.integer("retention-days", default: 0, in: 1...36_500)
            try store.setRetentionDays(own, projectId: project.id)
            print(
                "Project \(project.name) keeps "
                    + (own.map { "\($0) days of events" } ?? "the server's retention"))
        case "create":
            let store = try StoreAccess.open(StoreAccess.databasePath(parsed), existing: false)
            defer { store.close() }
            guard parsed.positional.count == 2 else {
                throw UsageError(description: "usage: footprint projects create NAME")
            }
            let project = try store.createProject(named: parsed.positional[1])
            let (_, readToken) = try store.createReadToken(projectId: project.id, at: SystemClock().now())
            if parsed.flags.contains("json") {
                try Output.json(TokensCommand.WithReadToken(value: project, readToken: readToken))
            } else {
                print("Created project \(project.name)")
                print("  write key:  \(project.writeKey)")
                print(
                    "  read token: \(readToken)  (reads this project only; shown once, the database keeps only its hash)"
                )
            }
        case "list":
            let store = try StoreAccess.open(StoreAccess.databasePath(parsed), existing: true, readOnly: true)
            defer { store.close() }
            try Output.list(
                try store.projects(), json: parsed.flags.contains("json"),
                headers: ["name", "write key", "events", "created"]
            ) { project in
                [
                    project.name, project.writeKey, String(try store.eventCount(projectId: project.id)),
                    project.createdAt.iso8601,
                ]
            }
        default:
            throw UsageError(description: usage)
        }
    }
}
