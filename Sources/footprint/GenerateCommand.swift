import FootprintCommandLine
import FootprintServer
import FootprintSynthetic
import FootprintWire
import Foundation

/// `footprint generate`: fills a database with synthetic traffic, for load tests and for
/// trying reports and the dashboard at scale.
enum GenerateCommand: Command {
    static let name = "generate"
    static let summary = "fill a database with synthetic traffic"
    static let usage = """
        footprint generate --events N [--db PATH] [--project NAME] [--people N] [--days N] [--seed N]
          --events   about how many events to write (whole sessions)
          --db       SQLite database file (PATH or sqlite:PATH; default footprint.sqlite; created when missing)
          --project  the project (default: the first one, else a new one named default)
          --people   distinct devices (default 20000)
          --days     days the events spread over, ending today (default 30)
          --seed     random seed (default 1; the same seed writes the same events)
        """

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(
            arguments, options: ["events", "db", "project", "people", "days", "seed"], flags: [])
        guard parsed.options["events"] != nil else {
            throw UsageError(description: "--events N is required\n\n\(usage)")
        }
        let count = try parsed.integer("events", default: 0, in: 1...1_000_000_000)
        var configuration = SyntheticTraffic.Configuration()
        configuration.people = try parsed.integer("people", default: 20_000, in: 1...100_000_000)
        configuration.days = try parsed.integer("days", default: 30, in: 1...3650)
        configuration.seed = UInt64(try parsed.integer("seed", default: 1, in: 0...Int.max))
        let today = SystemClock().now().dayNumber
        configuration.end = Timestamp(millisecondsSince1970: (today + 1) * 86_400_000)
        var storeConfiguration = SQLiteEventStore.Configuration()
        storeConfiguration.synchronous = "NORMAL"
        let store = try SQLiteEventStore.openingOwnEvents(
            path: StoreAccess.databasePath(parsed), configuration: storeConfiguration)
        defer { store.close() }
        let name = parsed.options["project"]
        let project =
            try name.flatMap { try store.project(named: $0) } ?? (name == nil ? store.projects().first : nil)
            ?? store.createProject(named: name ?? "default")
        var traffic = SyntheticTraffic(configuration: configuration)
        let started = Date()
        var reported = 0
        let written = try traffic.write(count: count, into: store, projectId: project.id) { written in
            if written - reported >= 100_000 {
                reported = written
                print("  \(written) events...")
                fflush(nil)
            }
        }
        let seconds = Date().timeIntervalSince(started)
        print(
            "Wrote \(written) events into project \(project.name) in \(String(format: "%.1f", seconds)) s (\(Int(Double(written) / max(seconds, 0.001))) events/s)."
        )
    }
}
