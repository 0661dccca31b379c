import Foundation
import Testing

/// `footprint demo` as people run it: the executable built next to the test bundle.
struct EndToEndCommandLineDemoTests {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("footprint")

    /// Runs the executable on a thread of its own (waiting for a child process must not hold one
    /// of Swift's shared task threads, which other tests' trackers deliver on); with
    /// `stopWhenPrinted`, sends SIGTERM once that text is on standard output.
    func run(_ arguments: [String], stopWhenPrinted marker: String? = nil) async throws -> (
        status: Int32, output: String
    ) {
        let executable = executable
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result { try Self.runBlocking(executable, arguments, stopWhenPrinted: marker) })
            }.start()
        }
    }

    private static func runBlocking(_ executable: URL, _ arguments: [String], stopWhenPrinted marker: String?)
        throws -> (
            status: Int32, output: String
        )
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        var text = ""
        let reader = output.fileHandleForReading
        if let marker {
            while !text.contains(marker) {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            kill(process.processIdentifier, SIGTERM)
        }
        text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func theDemoPrintsTheReportAndAMatchingCheck() async throws {
        let result = try await run(["demo", "--users", "6", "--days", "2", "--seed", "5"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("day 2/2"))
        #expect(result.output.contains("Pages"))
        #expect(result.output.contains("Product feed items"))
        #expect(result.output.contains("figures match."))
        #expect(result.output.contains("Elapsed:"))
    }

    @Test func serveKeepsTheServerUpUntilStopped() async throws {
        let result = try await run(
            ["demo", "--users", "3", "--days", "1", "--serve"], stopWhenPrinted: "Press Ctrl-C")
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("Serving the demo data at http://127.0.0.1:"))
        #expect(result.output.contains("Stopping..."))
    }

    @Test func badFlagsAreUsageErrors() async throws {
        #expect(try await run(["demo", "--users", "0"]).status == 64)
        #expect(try await run(["demo", "--weeks", "2"]).status == 64)
    }
}
