import FootprintCommandLine
import FootprintServer
import FootprintWire
import Foundation

/// `footprint report`: PV, UV and dwell per page, top events, users per day, named events, top
/// element paths and list items, from the daily rollups and the range's events
/// (``ReportService/overview(project:parameters:)``): the projects from the SQLite file or the
/// PostgreSQL metadata, the events from the file or ClickHouse.
enum ReportCommand: Command {
    static let name = "report"
    static let summary = "pages, events, users per day, elements and items, as tables or JSON"
    static let usage = """
        footprint report [--db PATH | --meta URL] [--store URL] [--project NAME] [--from YYYY-MM-DD]
                         [--to YYYY-MM-DD] [--json]
          --db       SQLite database file (PATH or sqlite:PATH; default footprint.sqlite; opened read-only)
          --meta     the PostgreSQL metadata of a ClickHouse deployment (postgres://USER@HOST:PORT/DATABASE;
                     needs --store): the projects are read there
          --store    the ClickHouse store the server was started with (clickhouse://...; see
                     footprint serve); the events are read there, the projects from --db or --meta
          --project  the project (default: the first one)
          --from     first UTC day (default: the day of the oldest event)
          --to       last UTC day, included (default: the day of the newest event)
          --json     print the report as JSON
        """

    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(
            arguments, options: ["db", "meta", "store", "project", "from", "to"], flags: ["json"])
        var query: [String: String] = [:]
        for name in ["from", "to"] {
            guard let day = parsed.options[name] else { continue }
            guard isDay(day) else {
                throw UsageError(
                    description: "--\(name) must be a UTC day such as 2026-11-01")
            }
            query[name] = day
        }
        if let from = query["from"], let to = query["to"], from > to {
            throw UsageError(description: "--from must not be after --to")
        }
        let stores = try StoreAccess.openStores(parsed, readOnly: true)
        defer { stores.close() }
        let project = try StoreAccess.project(named: parsed.options["project"], in: stores.metadata)
        let report = try Report.load(from: stores, project: project, query: query)
        if parsed.flags.contains("json") {
            try Output.json(report)
        } else {
            print(ReportText().render(report))
        }
    }

    /// Whether `text` is a day `YYYY-MM-DD` that exists.
    static func isDay(_ text: String) -> Bool {
        let shape = text.utf8.enumerated().allSatisfy { index, byte in
            index == 4 || index == 7
                ? byte == UInt8(ascii: "-") : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard text.utf8.count == 10, shape, let time = Timestamp(iso8601: text + "T00:00:00Z") else {
            return false
        }
        return time.dayString == text
    }
}
