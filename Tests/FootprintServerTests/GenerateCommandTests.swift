import FootprintServer
import FootprintWire
import Foundation
import Testing

/// `footprint generate` as scripts run it.
@Suite(.serialized) struct GenerateCommandTests {
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("footprint")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func generatedEventsAreStoredWithTheirRollups() throws {
        try withTemporaryDatabase("footprint-generate") { path in
            let generated = try Self.run([
                "generate", "--events", "2000", "--people", "30", "--days", "5", "--db", path,
            ])
            #expect(generated.status == 0, "\(generated.output)")
            #expect(generated.output.contains("events into project default"))
            let report = try Report.load(databasePath: path)
            #expect(report.totalEvents >= 2000)
            #expect(report.uniqueVisitors <= 30)
            var configuration = SQLiteEventStore.Configuration()
            configuration.readOnly = true
            let store = try SQLiteEventStore(path: path, configuration: configuration)
            defer { store.close() }
            let project = try #require(try store.projects().first)
            let counts = try store.rollupCounts(projectId: project.id, filter: ReportFilter())
            #expect(
                counts.reduce(0) { $0 + ($1.kind == .pageViews ? $1.count : 0) }
                    == report.pages.reduce(0) { $0 + $1.pageViews })
        }
    }

    @Test func reportCoversEveryDayOrTheDaysAsked() throws {
        try withTemporaryDatabase("footprint-report-range") { path in
            let generated = try Self.run([
                "generate", "--events", "1000", "--people", "20", "--days", "5", "--db", path,
            ])
            #expect(generated.status == 0, "\(generated.output)")
            let whole = try JSONDecoder().decode(
                Report.self, from: Data(try Self.run(["report", "--db", path, "--json"]).output.utf8))
            #expect(whole.usersPerDay.count == 5)
            #expect(whole.fromDay == whole.usersPerDay.first?.day)
            #expect(whole.toDay == whole.usersPerDay.last?.day)
            let lastDay = try #require(whole.usersPerDay.last)
            let ranged = try Self.run([
                "report", "--db", path, "--from", lastDay.day, "--to", lastDay.day, "--json",
            ])
            #expect(ranged.status == 0, "\(ranged.output)")
            let oneDay = try JSONDecoder().decode(Report.self, from: Data(ranged.output.utf8))
            #expect(oneDay.usersPerDay == [lastDay])
            #expect(oneDay.uniqueVisitors == lastDay.users)
            #expect(oneDay.totalEvents == whole.totalEvents, "the stored total, whatever the range")
            #expect(
                oneDay.pages.reduce(0) { $0 + $1.pageViews } < whole.pages.reduce(0) { $0 + $1.pageViews })
            let table = try Self.run(["report", "--db", path, "--from", lastDay.day])
            #expect(table.output.contains("\(lastDay.day) to \(lastDay.day): \(lastDay.users) visitors"))

            for bad in [
                ["--from", "2026-13-01"], ["--to", "1 Dec"], ["--from", "2026-12-02", "--to", "2026-12-01"],
            ] {
                let refused = try Self.run(["report", "--db", path] + bad)
                #expect(refused.status == 64, "\(bad): \(refused.output)")
            }
        }
    }

    @Test func generateWithoutACountIsAUsageError() throws {
        let run = try Self.run(["generate"])
        #expect(run.status == 64)
        #expect(run.output.contains("--events N is required"))
    }
}
