import FootprintCommandLine
import FootprintServer
import FootprintWire
import Foundation

/// `footprint config publish FILE`: validates a remote config and stores it as a new version, in
/// the SQLite file or in the PostgreSQL metadata of a ClickHouse deployment.
enum ConfigCommand: Command {
    static let name = "config"
    static let summary = "publish a remote tracking plan"
    static let usage = """
        footprint config publish FILE [--project NAME] [--db PATH | --meta URL] [--json]
          publish FILE  validates FILE (a tracking plan, JSON) and stores it as the next version;
                        a server on the file serves it at once, collectors on --meta within their
                        metadata cache interval (1 s unless --meta-cache-interval); an example
                        plan: \(examplePlan)
          --project     the project (default: the first one)
          --db          SQLite database file (PATH or sqlite:PATH; default footprint.sqlite)
          --meta        the PostgreSQL metadata of a ClickHouse deployment
                        (postgres://USER@HOST:PORT/DATABASE)
          --json        print the published version as JSON
        """

    /// The example app's tracking plan, to start one from (docs/TRACKING-PLAN.md).
    static let examplePlan = "Examples/FootprintExample/FootprintExample/footprint-plan.json"

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(
            arguments, options: ["db", "meta", "project"], flags: ["json"], actions: [("publish", ["FILE"])])
        guard parsed.action == "publish" else {
            throw UsageError(description: usage)
        }
        let file = parsed.positional[1]
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) else {
            throw UsageError(
                description: "\(file): file not found; start from the example plan, \(examplePlan)")
        }
        guard !isFolder.boolValue, let data = FileManager.default.contents(atPath: file) else {
            throw UsageError(
                description: "cannot read \(file)\(isFolder.boolValue ? ": it is a folder" : "")")
        }
        let store = try StoreAccess.openMetadata(parsed)
        defer { store.close() }
        let project = try StoreAccess.project(named: parsed.options["project"], in: store)
        let version = try store.publishConfig(
            document: Array(data), projectId: project.id,
            at: Timestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000)))
        if parsed.flags.contains("json") {
            try Output.json(version)
        } else {
            print(
                "Published config version \(version.version) for project \(project.name) (ETag \(version.etag))"
            )
        }
    }
}
