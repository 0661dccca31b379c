import FootprintLoopback
import FootprintServer
import FootprintWire
import Foundation
import Testing

/// The README's quick start, its commands as written: `footprint serve`, the `curl` request with
/// the write key as the Basic user, then `footprint report` showing the event.
extension CommandLineTests {
    /// The quick start's shell block, its continued lines joined.
    static func quickStartCommands() throws -> [String] {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../README.md").standardized, encoding: .utf8)
        let section = try #require(readme.range(of: "### Quick start"))
        let block = try #require(readme[section.upperBound...].range(of: "```sh\n"))
        let end = try #require(readme[block.upperBound...].range(of: "```"))
        return readme[block.upperBound..<end.lowerBound].replacingOccurrences(of: "\\\n", with: " ")
            .split(separator: "\n").map { String($0) }.filter { !$0.hasPrefix("#") }
    }

    @Test func theReadmesQuickStartStoresAndReportsOneEvent() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let commands = try Self.quickStartCommands()
        let serve = try #require(commands.first { $0.contains("footprint serve") })
        let curl = try #require(commands.first { $0.hasPrefix("curl ") })
        let report = try #require(commands.first { $0.contains("footprint report") })
        #expect(serve.contains("footprint serve --db footprint.sqlite"))
        #expect(report.contains("footprint report --db footprint.sqlite"))
        #expect(curl.contains("-u WRITEKEY: "))
        #expect(curl.contains("http://127.0.0.1:8080/v1/track"))

        // The server as the README starts it (on a free port instead of 8080), in a folder of its own.
        let server = try ServeProcess(executable: executable, database: directory + "/footprint.sqlite")
        defer { server.stop() }
        let request =
            curl
            .replacingOccurrences(of: "WRITEKEY", with: server.writeKey)
            .replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(server.port)")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") {
            // The command itself, through a shell.
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", request + " --silent --show-error"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(answer == #"{"accepted":1,"duplicates":0,"rejected":[],"stored":1,"success":true}"#)
        } else {
            // Without curl: the same body, path and Basic user over loopback.
            let body = try #require(curl.components(separatedBy: "-d '").last?.dropLast())
            let answer = try server.client.post("/v1/track", json: String(body), writeKey: server.writeKey)
            #expect(answer.status == 200, "\(answer.text)")
        }

        let printed = try run(
            report.components(separatedBy: "footprint ").last!.split(separator: " ").prefix {
                !$0.hasPrefix("#")
            }
            .map(String.init),
            currentDirectory: directory)
        #expect(printed.status == 0, "\(printed.error)")
        #expect(printed.output.contains("1 events stored"), "\(printed.output)")
        #expect(printed.output.contains(": 1 visitors"), "\(printed.output)")
        let topEvent = try #require(
            printed.output.split(separator: "\n").first { $0.hasPrefix("Signed Up") }, "\(printed.output)")
        #expect(topEvent.split(separator: " ").suffix(2) == ["1", "1"])
    }
}
