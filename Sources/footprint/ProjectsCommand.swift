import FootprintCommandLine
import FootprintServer
import FootprintWire

/// `footprint projects create NAME` and `footprint projects list`.
enum ProjectsCommand: Command {
    static let name = "projects"
    static let summary = "create and list projects; set a project's retention"
    static let usage = """
        footprint projects create NAME [--db PATH | --meta URL] [--json]
        footprint projects list [--db PATH | --meta URL] [--store URL] [--json]
        footprint projects set NAME --retention-days N|default [--db PATH | --meta URL]
          create NAME  add a project; print its write key and a read token of it (shown once)
          list         the projects, their write keys and event counts
          set NAME     the project's own retention: N days of events kept (1 to 36500), or
                       default (the server's --retention-days)
          --db         SQLite database file (PATH or sqlite:PATH; default footprint.sqlite)
          --meta       the PostgreSQL metadata of a ClickHouse deployment (postgres://USER@HOST:PORT/DATABASE)
          --store      where the events are, for list's counts: clickhouse://… when the file or
                       --meta is a ClickHouse store's metadata
          --json       print JSON
        """

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(
            arguments, options: ["db", "meta", "store", "retention-days"], flags: ["json"],
            actions: [("create", ["NAME"]), ("list", []), ("set", ["NAME"])])
        switch parsed.positional.first {
        case "set":
            guard parsed.positional.count == 2, let days = parsed.options["retention-days"] else {
                throw UsageError(
                    description: "usage: footprint projects set NAME --retention-days N|default")
            }
            let store = try StoreAccess.openMetadata(parsed)
            defer { store.close() }
            let project = try StoreAccess.project(named: parsed.positional[1], in: store)
            let own =
                days == "default" ? nil : try parsed.integer("retention-days", default: 0, in: 1...36_500)
            try store.setRetentionDays(own, projectId: project.id)
            print(
                "Project \(project.name) keeps "
                    + (own.map { "\($0) days of events" } ?? "the server's retention"))
        case "create":
            let store: any MetadataStore =
                parsed.options["meta"] == nil
                ? try StoreAccess.open(StoreAccess.databasePath(parsed), existing: false)
                : try StoreAccess.openMetadata(parsed)
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
            // The counts come from where the events are: the file, or ClickHouse with --store
            // (and with --meta). A ClickHouse store's metadata file alone lists its projects
            // without counts, naming the store that has them.
            let stores: Stores
            if parsed.options["store"] != nil || parsed.options["meta"] != nil {
                stores = try StoreAccess.openStores(parsed, readOnly: true)
            } else {
                stores = Stores(
                    try StoreAccess.open(StoreAccess.databasePath(parsed), existing: true, readOnly: true))
            }
            defer { stores.close() }
            let elsewhere =
                parsed.options["store"] == nil
                ? try (stores.metadata as? SQLiteEventStore)?.eventStoreLocation() : nil
            if let elsewhere {
                Output.error("the events are in \(elsewhere): give --store \(elsewhere) to count them")
            }
            try Output.list(
                try stores.metadata.projects(), json: parsed.flags.contains("json"),
                headers: ["name", "write key", "events", "created"]
            ) { project in
                [
                    project.name, project.writeKey,
                    elsewhere == nil ? String(try stores.events.eventCount(projectId: project.id)) : "-",
                    project.createdAt.iso8601,
                ]
            }
        default:
            throw UsageError(description: usage)
        }
    }
}
