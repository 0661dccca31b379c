import FootprintServer
import Foundation
import Testing

/// `footprint serve` as a child process (its memory, threads and descriptors are its own) under
/// 10,000 idle connections from 10,000 loopback addresses and 1,000 clients trickling bytes,
/// while one normal client sends 100 batches.
///
/// The one timing bound is a hang guard (no batch waits 30 s, where one that waited for a
/// connection slot would wait for the 300 s time-outs); everything else is counted.
///
/// `make test` runs this suite in a test process of its own: the clients' 11,000 sockets would
/// otherwise leave the tests running beside it in the same process short of descriptors.
@Suite(.serialized) struct HTTPLoadTests {
    static let idleConnections = 10_000
    static let slowSenders = 1_000
    static let batches = 100

    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("footprint")

    /// One `footprint serve` child on a free port, stopped by ``stop()``.
    final class ServeProcess {
        let process = Process()
        let directory: String
        var port: UInt16 = 0
        var writeKey = ""
        var readToken = ""
        var output = ""

        init(executable: URL, arguments: [String]) throws {
            directory = NSTemporaryDirectory() + "footprint-load-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            process.executableURL = executable
            process.arguments = ["serve", "--port", "0", "--db", directory + "/events.sqlite"] + arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = Pipe()
            try process.run()
            let reader = pipe.fileHandleForReading
            while !output.contains("Press Ctrl-C") {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                output += String(decoding: chunk, as: UTF8.self)
            }
            for line in output.split(separator: "\n") {
                if let range = line.range(of: "listening on http://127.0.0.1:") {
                    port = UInt16(line[range.upperBound...]) ?? 0
                }
                if let range = line.range(of: "write key: ") { writeKey = String(line[range.upperBound...]) }
                if let range = line.range(of: "Authorization: Bearer ") {
                    readToken = String(line[range.upperBound...].prefix { $0 != ")" })
                }
            }
        }

        /// A line of `/proc/PID/status` (`VmRSS`, `Threads`) as a number (kB for sizes).
        func status(_ field: String) -> Int {
            let text = String(
                decoding: FileHandle(forReadingAtPath: "/proc/\(process.processIdentifier)/status")?
                    .readDataToEndOfFile() ?? Data(), as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
                let words = line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
                return Int(words.first ?? "") ?? -1
            }
            return -1
        }

        /// Sends batch `index` (20 events) on a new connection; its status and how long it took.
        func postBatch(_ index: Int, client: LoopbackClient) throws -> (status: Int, seconds: Double) {
            let messages = (0..<20).map { Payloads.track("load-\(index)-\($0)", anonymousId: "normal") }
            let started = Date()
            let response = try client.post("/v1/batch", json: Payloads.batch(messages), writeKey: writeKey)
            return (response.status, Date().timeIntervalSince(started))
        }

        /// A counter or gauge of `GET /metrics`, `nil` when absent.
        func metric(_ name: String, client: LoopbackClient) throws -> Int? {
            let response = try client.send(
                "GET", "/metrics", headers: ["Authorization": "Bearer \(readToken)"])
            for line in response.text.split(separator: "\n") where line.hasPrefix(name + " ") {
                return Int(line.dropFirst(name.count + 1))
            }
            return nil
        }

        /// Descriptors the process has open.
        var openDescriptors: Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd"))?
                .count
                ?? -1
        }

        func stop() {
            if process.isRunning {
                kill(process.processIdentifier, SIGTERM)
                process.waitUntilExit()
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// The default `--connection-limit` is 10,000; 11,000 idle connections and 1,000 slow senders
    /// hold more than every slot. Before, each new client then waited in the listen queue for
    /// the idle deadline to free a slot (2.6–5 s, some timed out); now a newcomer evicts the
    /// connection idle longest, so each of 100 batches is answered within a second, and no
    /// request in flight (the 500 senders trickling a declared body) is ever evicted.
    ///
    /// Default settings but the body deadline (300 s instead of 30 s), so that the in-flight
    /// senders outlive the test on a slow machine and any of them closed was evicted.
    @Test(
        .enabled(
            if: OpenFileLimit.current.hard >= evictionDescriptorsNeeded,
            "the hard open-file limit (ulimit -Hn) is below the 12,512 descriptors the clients need")
    )
    func aFullTableEvictsTheLongestIdleConnectionsSoEveryBatchIsAnsweredWithinASecond() throws {
        try #require(
            OpenFileLimit.raise(toward: Self.evictionDescriptorsNeeded) >= Self.evictionDescriptorsNeeded)
        let server = try ServeProcess(executable: executable, arguments: ["--body-timeout", "300"])
        defer { server.stop() }
        try #require(server.port != 0, "serve did not start: \(server.output)")
        let client = LoopbackClient(port: server.port)
        for index in 0..<5 { #expect(try server.postBatch(-1 - index, client: client).status == 200) }

        let attack = try Attackers(
            client: client, writeKey: server.writeKey, idle: Self.idleConnections + 1_000)
        defer { attack.stop() }
        var latencies: [Double] = []
        for index in 0..<Self.batches {
            let (status, seconds) = try server.postBatch(index, client: client)
            #expect(status == 200, "batch \(index)")
            latencies.append(seconds)
        }
        let evicted = try #require(
            try server.metric("footprint_http_connections_evicted_total", client: client))
        let open = try #require(try server.metric("footprint_http_connections_open", client: client))
        let closedIdle = attack.idle.filter { LoopbackClient.wasClosed($0) }.count
        let closedInFlight = attack.bodyTricklers.filter { LoopbackClient.wasClosed($0) }.count
        #expect(closedInFlight == 0, "a request in flight is never evicted")
        #expect(evicted > 0 && closedIdle > 0, "the table was full: \(evicted) evicted")
        #expect(open <= 10_000 + 1, "the table stays within the limit (and the metrics request): \(open)")
        let sorted = latencies.sorted()
        #expect(sorted.last ?? 0 < 1, "every batch within 1 s; the slowest took \(sorted.last ?? 0) s")
        print(
            "eviction: 12,000 connections against 10,000 slots; \(evicted) evicted, \(closedIdle) idle closed, \(closedInFlight) in flight closed, \(open) open; batch latency p50 \(Int(sorted[sorted.count / 2] * 1000)) ms, slowest \(sorted.suffix(3).reversed().map { "\(Int($0 * 1000)) ms" }.joined(separator: ", "))"
        )
    }

    static let evictionDescriptorsNeeded = idleConnections + 1_000 + slowSenders + 512

    /// This process holds every client socket (the server child holds the other ends).
    static let descriptorsNeeded = idleConnections + slowSenders + 512

    @Test(
        .enabled(
            if: OpenFileLimit.current.hard >= descriptorsNeeded,
            "the hard open-file limit (ulimit -Hn) is below the 11,512 descriptors the clients need")
    )
    func tenThousandIdleConnectionsAndAThousandSlowSendersDoNotDelayABatch() throws {
        let connections = Self.idleConnections + Self.slowSenders
        try #require(OpenFileLimit.raise(toward: Self.descriptorsNeeded) >= Self.descriptorsNeeded)
        let server = try ServeProcess(
            executable: executable,
            arguments: [
                "--connection-limit", String(connections + 200), "--idle-timeout", "300", "--header-timeout",
                "300",
                "--body-timeout", "300",
            ])
        defer { server.stop() }
        try #require(server.port != 0, "serve did not start: \(server.output)")
        let client = LoopbackClient(port: server.port)
        let postBatch = { (index: Int) in try server.postBatch(index, client: client) }
        // Warm up, then the baseline.
        for index in 0..<5 { #expect(try postBatch(-1 - index).status == 200) }
        let rssBefore = server.status("VmRSS")
        let threadsBefore = server.status("Threads")

        let attack = try Attackers(client: client, writeKey: server.writeKey, idle: Self.idleConnections)
        defer { attack.stop() }
        let deadline = Date().addingTimeInterval(120)
        while server.openDescriptors < connections, Date() < deadline { usleep(20_000) }
        #expect(server.openDescriptors >= connections, "every connection accepted")

        var latencies: [Double] = []
        for index in 0..<Self.batches {
            let (status, seconds) = try postBatch(index)
            #expect(status == 200, "batch \(index)")
            latencies.append(seconds)
        }
        let rssAfter = server.status("VmRSS")
        let threadsAfter = server.status("Threads")
        #expect(attack.trickling.bytesSent > Self.slowSenders, "the slow senders kept sending")
        let stillOpen = attack.idle.filter { !LoopbackClient.wasClosed($0) }.count
        #expect(stillOpen == Self.idleConnections, "the idle connections stay open")
        // A batch that had to wait for a connection slot or a deadline would wait for the 300 s
        // time-outs above; 30 s separates that from a busy machine's scheduling (each batch takes
        // 3–10 ms alone; the figure is printed below and kept in docs/BENCHMARKS.md).
        let slowest = latencies.max() ?? 0
        #expect(slowest < 30, "no batch waited for the idle connections; the slowest took \(slowest) s")
        #expect(
            threadsAfter - threadsBefore < 8, "no thread per connection: \(threadsBefore) → \(threadsAfter)")
        // What the server keeps per open connection: about 5 KB measured (docs/ARCHITECTURE.md);
        // libmicrohttpd's buffer (up to 32 KB) is reserved, not touched, while a connection idles.
        let perConnection = Double(rssAfter - rssBefore) * 1024 / Double(connections)
        #expect(perConnection < 16 * 1024, "\(Int(perConnection)) bytes per connection")
        let sorted = latencies.sorted()
        print(
            "load: \(connections) connections open; RSS \(rssBefore) kB → \(rssAfter) kB (\(Int(perConnection)) B/connection); threads \(threadsBefore) → \(threadsAfter); batch latency p50 \(Int(sorted[sorted.count / 2] * 1000)) ms, slowest \(sorted.suffix(3).reversed().map { "\(Int($0 * 1000)) ms" }.joined(separator: ", "))"
        )
    }
}

/// What holds a server's connections in the load tests: `idle` connections from as many loopback
/// addresses (250 per /24) that send nothing, and ``HTTPLoadTests/slowSenders`` that trickle a
/// byte every 50 ms: half a request head, half a body they declared 100,000 bytes long (their
/// heads have arrived, so their requests are in flight).
final class Attackers {
    let idle: [Int32]
    let headTricklers: [Int32]
    let bodyTricklers: [Int32]
    let trickling: TrickleLoop

    init(client: LoopbackClient, writeKey: String, idle count: Int) throws {
        var idle: [Int32] = []
        var heads: [Int32] = []
        var bodies: [Int32] = []
        do {
            for index in 0..<count {
                idle.append(try client.from("127.1.\(index / 250).\(1 + index % 250)").connect())
            }
            let head = Array("POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
            let bodyHead = LoopbackClient.requestBytes(
                method: "POST", path: "/v1/batch",
                headers: ["Content-Length": "100000", "Authorization": LoopbackClient.basic(writeKey)])
            for index in 0..<HTTPLoadTests.slowSenders {
                let connection = try client.from("127.2.\(index / 250).\(1 + index % 250)").connect()
                if index % 2 == 0 {
                    heads.append(connection)
                    try client.write(head, to: connection)
                } else {
                    bodies.append(connection)
                    try client.write(bodyHead, to: connection)
                }
            }
        } catch {
            (idle + heads + bodies).forEach { close($0) }
            throw error
        }
        self.idle = idle
        self.headTricklers = heads
        self.bodyTricklers = bodies
        trickling = TrickleLoop(sockets: heads + bodies)
        trickling.start()
    }

    func stop() {
        trickling.stop()
        (idle + headTricklers + bodyTricklers).forEach { close($0) }
    }
}

/// One thread that sends a byte to each of its sockets in turn, every 50 ms, until stopped.
final class TrickleLoop: @unchecked Sendable {
    private let sockets: [Int32]
    private let lock = NSLock()
    private var stopping = false
    private var sent = 0
    private let finished = DispatchSemaphore(value: 0)

    init(sockets: [Int32]) {
        self.sockets = sockets
    }

    var bytesSent: Int { lock.withLock { sent } }

    func start() {
        Thread.detachNewThread { [self] in
            while !lock.withLock({ stopping }) {
                var count = 0
                for socket in sockets {
                    var byte = UInt8(ascii: "a")
                    if send(socket, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) == 1 { count += 1 }
                }
                lock.withLock { sent += count }
                usleep(50_000)
            }
            finished.signal()
        }
    }

    func stop() {
        lock.withLock { stopping = true }
        finished.wait()
    }
}
