import FootprintServer
import FootprintWire

/// `footprint projects create NAME` and `footprint projects list`.
enum ProjectsCommand {
    static let usage = """
        footprint projects create NAME [--db PATH] [--json]
        footprint projects list [--db PATH] [--json]
        """

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(arguments, options: ["db"], flags: ["json"])
        let store = try SQLiteEventStore(path: parsed.options["db"] ?? "footprint.sqlite")
        defer { store.close() }
        switch parsed.positional.first {
        case "create":
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
