// `Process` exists only where a test can start another program: not on iOS, tvOS or watchOS.
#if os(macOS) || os(Linux) || os(Windows)
    import FootprintLoopback
    import FootprintSQLite
    import Foundation
    import Testing

    @testable import Footprint

    /// The durable queue survives `SIGKILL`: a child process tracks numbered events as fast as it can
    /// and is killed mid-stream; every event it reported as stored is on disk, in order, once, and
    /// the database is intact.
    struct QueueKillTests {
        let directory = ScratchFolder()

        /// The probe is built next to the test binary (`swift build --build-tests` builds it).
        var probePath: String {
            get throws {
                let testBinary =
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                    ?? Bundle.main.executablePath ?? CommandLine.arguments[0]
                var folder = URL(fileURLWithPath: testBinary).deletingLastPathComponent()
                while folder.path != "/" {
                    let candidate = folder.appendingPathComponent("FootprintQueueProbe").path
                    if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
                    folder = folder.deletingLastPathComponent()
                }
                throw ReceiverError(message: "FootprintQueueProbe is not built next to \(testBinary)")
            }
        }

        @Test(arguments: [2_000, 5_000]) func everyStoredEventSurvivesAKill(killAfter: Int) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try probePath)
            process.arguments = [directory.path, "10000000"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

            // Read `stored N` lines until N reaches `killAfter`, then kill the probe mid-stream.
            var reported = 0
            var pending = Data()
            let reader = output.fileHandleForReading
            while reported < killAfter {
                let chunk = reader.availableData
                try #require(!chunk.isEmpty, "the probe stopped before storing \(killAfter) events")
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    if line.hasPrefix("stored "), let count = Int(line.dropFirst(7)) { reported = count }
                }
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)

            let database = try SQLiteDatabase(path: directory.path + "/queue.sqlite")
            let check = try database.prepare("PRAGMA integrity_check")
            _ = try check.step()
            #expect(check.text(at: 0) == "ok")
            let sequence = try database.prepare("SELECT body FROM events ORDER BY id").rows { row in
                try JSONParser().parse(row.blob(at: 0))["properties"]?["seq"]?.int64Value ?? -1
            }
            // Everything reported as stored is there; what followed is there in order, without gaps
            // or duplicates, up to the moment of the kill.
            #expect(sequence.count >= reported)
            #expect(sequence == Array(0..<Int64(sequence.count)))
        }
    }
#endif
