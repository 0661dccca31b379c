import FootprintServer
import FootprintWire

/// `footprint projects create NAME` and `footprint projects list`.
enum ProjectsCommand {
    static let usage = """
        footprint projects create NAME [--db PATH] [--json]
        footprint projects list [--db PATH] [--json]
          create NAME  add a project and print its write key
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
            if parsed.flags.contains("json") {
                try Output.json(project)
            } else {
                print("Created project \(project.name)")
                print("  write key: \(project.writeKey)")
            }
        case "list":
            let store = try StoreAccess.open(parsed.options["db"], existing: true, readOnly: true)
            defer { store.close() }
            let projects = try store.projects()
            if parsed.flags.contains("json") {
                try Output.json(projects)
            } else {
                Output.table(
                    ["name", "write key", "events", "created"],
                    try projects.map { project in
                        [
                            project.name, project.writeKey,
                            String(try store.eventCount(projectId: project.id)),
                            project.createdAt.iso8601,
                        ]
                    })
            }
        default:
            throw CommandLineArguments.UsageError(description: usage)
        }
    }
}
