import FootprintServer
import FootprintWire
import Foundation
import Testing

/// The `footprint` executable, run as a child process the way scripts run it. A class so that
/// each test's folder is removed when the test ends (`deinit`).
final class CommandLineTests {
    let directory: String
    let executable: URL

    init() throws {
        directory =
            NSTemporaryDirectory() + "footprint-cli-\(UUIDv7.make(at: Timestamp(millisecondsSince1970: 0)))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Built next to the test bundle by `swift build --build-tests`.
        executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("footprint")
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    struct Run {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs the executable to its end; with `killAfter`, a run still going after that many
    /// seconds (a command that should have refused its arguments and started a server) is killed.
    func run(
        _ arguments: [String], signalAfterStart signalNumber: Int32? = nil, currentDirectory: String? = nil,
        killAfter seconds: Double? = nil
    )
        throws -> Run
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = currentDirectory.map { URL(fileURLWithPath: $0) }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        if let seconds {
            let pid = process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [process] in
                if process.isRunning { kill(pid, SIGKILL) }
            }
        }
        if let signalNumber {
            // Wait for the server to be listening (it prints its URL), then signal it.
            let deadline = Date().addingTimeInterval(10)
            while !FileManager.default.fileExists(atPath: directory + "/serve.sqlite"), Date() < deadline {
                usleep(10_000)
            }
            usleep(300_000)
            kill(process.processIdentifier, signalNumber)
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            error: String(decoding: errorData, as: UTF8.self))
    }

    @Test func projectsConfigAndReportAreScriptable() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(FileManager.default.isExecutableFile(atPath: executable.path), "build footprint first")
        let database = directory + "/cli.sqlite"

        let missing = try run(["report", "--db", database])
        #expect(missing.status != 0)
        #expect(missing.error.contains("no database"))

        let created = try run(["projects", "create", "shop", "--db", database, "--json"])
        #expect(created.status == 0)
        let project = try JSONDecoder().decode(Project.self, from: Data(created.output.utf8))
        #expect(project.name == "shop")
        #expect(project.writeKey.hasPrefix("fp_"))

        let listed = try run(["projects", "list", "--db", database, "--json"])
        #expect(try JSONDecoder().decode([Project].self, from: Data(listed.output.utf8)) == [project])

        try Data(#"{"version": 1, "pageMode": "all"}"#.utf8).write(
            to: URL(fileURLWithPath: directory + "/plan.json"))
        let published = try run(["config", "publish", directory + "/plan.json", "--db", database, "--json"])
        #expect(published.status == 0)
        #expect(try JSONParser().parse(published.output)["version"] == 1)
        let republished = try run(["config", "publish", directory + "/plan.json", "--db", database, "--json"])
        #expect(try JSONParser().parse(republished.output)["version"] == 2)
        try Data(#"{"version": 1, "pages": []}"#.utf8).write(
            to: URL(fileURLWithPath: directory + "/bad.json"))
        let refused = try run(["config", "publish", directory + "/bad.json", "--db", database])
        #expect(refused.status != 0)
        #expect(refused.error.contains("pages"))

        let report = try run(["report", "--db", database, "--project", "shop", "--json"])
        #expect(report.status == 0)
        #expect(try JSONDecoder().decode(Report.self, from: Data(report.output.utf8)).totalEvents == 0)

        let unknown = try run(["projects", "list", "--db", database, "--colour"])
        #expect(unknown.status == 64)
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func serveCreatesTheDatabasePrintsTheKeyAndStopsOnASignal(_ signalNumber: Int32) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let served = try run(
            ["serve", "--db", directory + "/serve.sqlite", "--port", "0"], signalAfterStart: signalNumber)
        #expect(served.status == 0, "\(served.error)")
        #expect(served.output.contains("write key: fp_"))
        #expect(served.output.contains("/v1/batch"))
        #expect(served.output.contains("Stopped."))
    }
}
