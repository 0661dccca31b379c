import FootprintCommandLine
import FootprintDemo
import FootprintServer
import FootprintWire
import Foundation
import Testing

/// What `footprint` prints for people: `report` draws its tables as the demo's report does (one
/// renderer, ``ReportText``), `config publish` points at the example plan, and the demo names
/// its store.
extension CommandLineTests {
    @Test func theReportDrawsTheSameTablesAsTheDemo() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/report.sqlite"
        let generated = try run([
            "generate", "--events", "15000", "--people", "1500", "--days", "2", "--db", database,
        ])
        #expect(generated.status == 0, "\(generated.error)")
        let report = try Report.load(databasePath: database)
        let printed = try run(["report", "--db", database])
        #expect(printed.status == 0, "\(printed.error)")
        #expect(printed.output == ReportText().render(report) + "\n")

        // The demo's report of the same overview: the same header, rule and rows, cut shorter.
        func section(_ title: String, of text: String) -> [Substring] {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            guard let start = lines.firstIndex(where: { $0 == title }) else { return [] }
            return Array(lines[(start + 1)...].prefix { !$0.isEmpty })
        }
        let demo = DemoText.report(report)
        for title in ["Pages", "Top events", "Users per day"] {
            let full = section(title, of: printed.output)
            let cut = section(title, of: demo)
            #expect(full.count >= 3, "\(title)")
            #expect(
                Array(cut.prefix(min(cut.count, 14))) == Array(full.prefix(min(cut.count, 14))), "\(title)")
        }
        // Counts have thousands separators and sit right-aligned under their header.
        let pages = section("Pages", of: printed.output)
        #expect(pages[0].hasPrefix("page") && pages[0].hasSuffix("avg dwell"))
        #expect(pages[1].allSatisfy { $0 == "-" || $0 == " " })
        let pageViews = report.pages.map(\.pageViews).max() ?? 0
        try #require(pageViews >= 1000, "the fixture needs a page with 1,000 views")
        #expect(printed.output.contains(pageViews.grouped))
        let header = try #require(pages[0].range(of: "PV"))
        let row = try #require(pages.dropFirst(2).first { $0.contains(pageViews.grouped) })
        let cell = try #require(row.range(of: pageViews.grouped))
        #expect(
            row.distance(from: row.startIndex, to: cell.upperBound)
                == pages[0].distance(from: pages[0].startIndex, to: header.upperBound))
    }

    @Test func aTableAlignsTextLeftAndNumbersRight() {
        let table = TextTable(
            [.init("name"), .init("events", .right)],
            rows: [["shop", 12_345.grouped], ["a-longer-name", "7"]])
        #expect(
            table.lines == [
                "name           events",
                "-------------  ------",
                "shop           12,345",
                "a-longer-name       7",
            ])
    }

    /// `config publish` of a missing file says so and names the example plan, which publishes.
    @Test func configPublishPointsAtTheExamplePlan() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/config.sqlite"
        #expect(try run(["projects", "create", "shop", "--db", database]).status == 0)
        let missing = try run(["config", "publish", directory + "/plan.json", "--db", database])
        #expect(missing.status == 64)
        #expect(missing.error.contains("\(directory)/plan.json: file not found"), "\(missing.error)")
        let example = "Examples/FootprintExample/FootprintExample/footprint-plan.json"
        #expect(missing.error.contains(example))
        let help = try run(["config", "--help"])
        #expect(help.output.contains(example))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../..").standardized.path
        let published = try run(["config", "publish", example, "--db", database], currentDirectory: root)
        #expect(published.status == 0, "\(published.error)")
        #expect(published.output.contains("Published config version 1"))
    }

    /// The demo says where its events are in its first and last lines.
    @Test func theDemoNamesItsStore() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(["demo", "--users", "3", "--days", "1", "--seed", "9"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.first?.contains("events in SQLite") == true, "\(lines.first ?? "")")
        #expect(lines.last?.hasPrefix("Elapsed:") == true)
        #expect(lines.last?.contains("events in SQLite (") == true, "\(lines.last ?? "")")
        var configuration = DemoConfiguration()
        configuration.clickHouse = try ClickHouseLocation(url: "clickhouse://127.0.0.1:23123/demo")
        #expect(
            DemoText.store(configuration)
                == "ClickHouse (clickhouse://127.0.0.1:23123/demo?cluster=footprint)")
    }

    /// A step past 2 s shows its progress at most once a second; a quick one shows none.
    @Test func progressWaitsTwoSecondsThenComesAtMostOnceASecond() {
        var throttle = ProgressThrottle(start: 100)
        var shown: [Double] = []
        for time in stride(from: 100.0, through: 106, by: 0.25) where throttle.shouldShow(at: time) {
            shown.append(time)
        }
        #expect(shown == [102, 103, 104, 105, 106])
        var quick = ProgressThrottle(start: 0)
        let early = quick.shouldShow(at: 1.9)
        #expect(!early)
        #expect(!quick.hasShown)
        #expect(
            DemoText.progress(.userPlayed(day: 2, days: 7, played: 1200, users: 3000))
                == "  day 2/7: 1,200 of 3,000 virtual users played")
    }
}
