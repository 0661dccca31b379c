import FootprintServer
import FootprintWire

/// `footprint projects create NAME` and `footprint projects list`.
enum ProjectsCommand {
    static let usage = """
        footprint projects create NAME [--db PATH] [--json]
        footprint projects list [--db PATH] [--json]
          create NAME  add a project; print its write key and a read token of it (shown once)
          list         the projects, their write keys and event counts
          --db         SQLite database file (default footprint.sqlite)
          --json       print JSON
        """

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(arguments, options: ["db"], flags: ["json"])
        switch parsed.positional.first {
        case "create":
            let store = try StoreAccess.open(parsed.options["db"], existing: false)
            defer { store.close() }
            guard parsed.positional.count == 2 else {
                throw CommandLineArguments.UsageError(description: "usage: footprint projects create NAME")
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
            let store = try StoreAccess.open(parsed.options["db"], existing: true, readOnly: true)
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
            throw CommandLineArguments.UsageError(description: usage)
        }
    }
}
