import FootprintLoopback
import FootprintSQLite
import FootprintWire
import Foundation
import Testing

/// The real `footprint serve` process, SIGKILLed while clients that resend each batch until it
/// is answered 200 keep sending, then started again on the same database: nothing lost, nothing
/// stored twice.
struct ServerKillTests {
    struct Progress {
        /// The server's port; `nil` while it is down.
        var port: UInt16?
        var answered = 0
        var failedAttempts = 0
        var finishedClients = 0
        /// Set when the test ends, so that clients of a failed test stop.
        var abandoned = false
    }

    static let clients = 4
    static let batchesPerClient = 25
    static let eventsPerBatch = 20

    static func batch(client: Int, index: Int) -> String {
        Payloads.batch(
            (0..<eventsPerBatch).map {
                Payloads.track("c\(client)-b\(index)-e\($0)", anonymousId: "device-\(client)")
            })
    }

    /// Waits (polling) until `condition` holds; a hang guard, never the assertion.
    static func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            usleep(5000)
        }
        return true
    }

    @Test(.timeLimit(.minutes(5)))
    func aKilledServerLosesNothingAndStoresNothingTwice() throws {
        let cli = try CommandLineTests()
        defer { try? FileManager.default.removeItem(atPath: cli.directory) }
        let database = cli.directory + "/events.sqlite"
        var server = try ServeProcess(executable: cli.executable, database: database)
        let writeKey = server.writeKey
        let progress = SharedValue(Progress(port: server.port))
        defer {
            progress.withLock { $0.abandoned = true }
            if server.process.isRunning { server.stop(signal: SIGKILL) }
        }

        for client in 0..<Self.clients {
            Thread.detachNewThread {
                for index in 0..<Self.batchesPerClient {
                    let body = Self.batch(client: client, index: index)
                    // Resent until answered 200, as a delivering client does.
                    while !progress.withLock({ $0.abandoned }) {
                        if let port = progress.withLock({ $0.port }),
                            let response = try? LoopbackClient(port: port).post(
                                "/v1/batch", json: body, writeKey: writeKey),
                            response.status == 200
                        {
                            break
                        }
                        progress.withLock { $0.failedAttempts += 1 }
                        usleep(2000)
                    }
                    progress.withLock { $0.answered += 1 }
                }
                progress.withLock { $0.finishedClients += 1 }
            }
        }
        let total = Self.clients * Self.batchesPerClient
        // Mid-stream: a third of the batches answered, the rest being sent.
        #expect(Self.wait(seconds: 120) { progress.withLock { $0.answered } >= total / 3 })
        let failuresBefore = progress.withLock { $0.failedAttempts }
        server.stop(signal: SIGKILL)
        #expect(server.process.terminationReason == .uncaughtSignal)
        progress.withLock { $0.port = nil }
        // The clients find the server gone before it comes back.
        #expect(Self.wait(seconds: 60) { progress.withLock { $0.failedAttempts } > failuresBefore })
        let answeredWhileDown = progress.withLock { $0.answered }
        #expect(answeredWhileDown < total)

        server = try ServeProcess(executable: cli.executable, database: database)
        #expect(server.writeKey == writeKey)
        progress.withLock { $0.port = server.port }
        #expect(Self.wait(seconds: 180) { progress.withLock { $0.finishedClients } == Self.clients })
        server.stop(signal: SIGTERM)
        #expect(server.process.terminationStatus == 0)

        var options = SQLiteDatabase.Options()
        options.readOnly = true
        let stored = try SQLiteDatabase(path: database, options: options)
        let counts = try stored.prepare("SELECT count(*), count(DISTINCT message_id) FROM events").rows([]) {
            [$0.int64(at: 0), $0.int64(at: 1)]
        }
        let expected = Int64(total * Self.eventsPerBatch)
        #expect(counts == [[expected, expected]])
        // Every sent messageId is there (the only ones sent), and the rollups counted each once.
        let unexpected = try stored.prepare(
            "SELECT count(*) FROM events WHERE message_id NOT GLOB 'c*-b*-e*'"
        )
        .rows([]) { $0.int64(at: 0) }
        #expect(unexpected == [0])
        #expect(
            try stored.prepare("SELECT sum(stored) FROM project_events").rows([]) { $0.int64(at: 0) } == [
                expected
            ])
    }
}
