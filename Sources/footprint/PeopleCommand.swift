import FootprintCommandLine
import FootprintServer
import FootprintWire

/// `footprint people delete ID` and `footprint people export ID`: a person's data, for deletion
/// and access requests.
enum PeopleCommand: Command {
    static let name = "people"
    static let summary = "export or delete one person's data; the deletion log"
    static let usage = """
        footprint people delete ID [--project NAME] [--refuse-days N] [--db PATH | --meta URL] [--store URL] [--json]
        footprint people export ID [--project NAME] [--db PATH | --meta URL] [--store URL] [--json]
        footprint people deletions [--project NAME] [--db PATH | --meta URL] [--json]
          delete ID     delete the person ID names (a user id, or an anonymous id and the user it is
                        linked to): every event of the person's ids and their identity links, and
                        every report's rollups; events carrying those ids are then refused
          export ID     every stored event and identity link of the person, as JSON
          deletions     the deletion log: who asked, when, how many events (no ids)
          --project     the project (default: the first one)
          --refuse-days how long later events of the deleted ids are refused (default 30, 0 to 3650)
          --db          SQLite database file (PATH or sqlite:PATH; default footprint.sqlite)
          --meta        the PostgreSQL metadata of a ClickHouse deployment (postgres://USER@HOST:PORT/DATABASE;
                        delete and export need --store with it)
          --store       with delete and export: the ClickHouse store the events are in (clickhouse://…,
                        as footprint serve --store; the projects and the deletion log stay in --db or --meta)
          --json        print JSON
        """

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(
            arguments, options: ["db", "meta", "store", "project", "refuse-days"], flags: ["json"],
            actions: [("delete", ["ID"]), ("export", ["ID"]), ("deletions", [])])
        let json = parsed.flags.contains("json")
        switch (parsed.positional.first, parsed.positional.count) {
        case ("delete", 2):
            let days = try parsed.integer("refuse-days", default: 30, in: 0...3_650)
            let stores = try StoreAccess.openStores(parsed)
            defer { stores.close() }
            let project = try StoreAccess.project(named: parsed.options["project"], in: stores.metadata)
            let deletion = try stores.events.deletePerson(
                id: parsed.positional[1], projectId: project.id,
                request: PersonDeletion.Request(
                    requestedBy: "cli", at: SystemClock().now(), refuseForDays: days))
            if json {
                print(JSONWriter.string(deletion.jsonValue))
            } else {
                print("Deleted \(deletion.events) events and \(deletion.identityLinks) identity links")
                print("  their \(deletion.refusedIds) ids are refused until \(deletion.refusedUntil.iso8601)")
            }
        case ("export", 2):
            let stores = try StoreAccess.openStores(parsed, readOnly: true)
            defer { stores.close() }
            let project = try StoreAccess.project(named: parsed.options["project"], in: stores.metadata)
            print(
                JSONWriter.string(
                    try stores.events.exportPerson(id: parsed.positional[1], projectId: project.id).jsonValue)
            )
        case ("deletions", 1):
            let store = try StoreAccess.openMetadata(parsed, readOnly: true)
            defer { store.close() }
            let project = try StoreAccess.project(named: parsed.options["project"], in: store)
            let deletions = try store.personDeletions(projectId: project.id)
            if json {
                print(JSONWriter.string(.array(deletions)))
            } else {
                Output.table(
                    ["deleted at", "requested by", "events", "identity links"],
                    deletions.map { entry in
                        [
                            entry["deletedAt"]?.stringValue ?? "", entry["requestedBy"]?.stringValue ?? "",
                            JSONWriter.string(entry["events"] ?? .null),
                            JSONWriter.string(entry["identityLinks"] ?? .null),
                        ]
                    })
            }
        default:
            throw UsageError(description: usage)
        }
    }
}
