import Dispatch
import FootprintServer
import FootprintWire
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The ingest load generator, run as its own process (`FootprintBenchmarks loadgen PORT KEY
/// CONNECTIONS BATCHES [IDLE]`) so that it does not share the server's CPU accounting or heap.
///
/// It first opens IDLE connections that send nothing (from 127.1.0.0/16 addresses), then each
/// of CONNECTIONS is a keep-alive HTTP/1.1 socket that POSTs pre-built `/v1/batch` bodies of 100
/// events, one after another. Prints one JSON line (events, seconds, latency quantiles), then
/// holds the idle connections open until its standard input ends.
enum LoadGenerator {
    static let eventsPerBatch = 100

    static func main(_ arguments: [String]) {
        guard arguments.count == 4 || arguments.count == 5, let port = UInt16(arguments[0]),
            let connections = Int(arguments[2]), let batchesPerConnection = Int(arguments[3]),
            let idleCount = arguments.count == 5 ? Int(arguments[4]) : 0
        else {
            print(
                "usage: FootprintBenchmarks loadgen PORT WRITE_KEY CONNECTIONS BATCHES_PER_CONNECTION [IDLE]")
            exit(64)
        }
        OpenFileLimit.raise(toward: idleCount + connections + 256)
        var idle: [Int32] = []
        for index in 0..<idleCount {
            guard
                let socket = KeepAliveClient.openSocket(
                    port: port, from: "127.1.\(index / 250).\(1 + index % 250)")
            else {
                print("cannot open idle connection \(index)")
                exit(1)
            }
            idle.append(socket)
        }
        let writeKey = arguments[1]
        let bodies = (0..<connections).map { connection in
            (0..<batchesPerConnection).map { batch in makeBody(connection: connection, batch: batch) }
        }
        let latencies = LockedList()
        let failures = LockedList()
        @Sendable func run(_ connection: Int) {
            do {
                let client = try KeepAliveClient(port: port, writeKey: writeKey)
                for body in bodies[connection] {
                    let begin = Measure.now()
                    let status = try client.post(body)
                    latencies.append(Double(Measure.now() - begin))
                    if status != 200 { failures.append(Double(status)) }
                }
            } catch {
                failures.append(-1)
            }
        }
        // One thread per connection (concurrentPerform would cap the concurrency at the CPU count).
        let start = Measure.now()
        let finished = DispatchGroup()
        for connection in 0..<connections {
            finished.enter()
            Thread.detachNewThread {
                defer { finished.leave() }
                run(connection)
            }
        }
        finished.wait()
        let seconds = Double(Measure.now() - start) / 1e9
        let sorted = latencies.values.sorted()
        let summary: JSONValue = [
            "requests": .int(Int64(sorted.count)),
            "events": .int(Int64(sorted.count * eventsPerBatch)),
            "failures": .int(Int64(failures.values.count)),
            "seconds": .double(seconds),
            "p50": .double(Measure.quantile(sorted, 0.5)),
            "p99": .double(Measure.quantile(sorted, 0.99)),
        ]
        print(JSONWriter.string(summary))
        fflush(nil)
        while readLine() != nil {}
        for socket in idle { close(socket) }
    }

    /// What a run printed: events sent, seconds, failed requests and latency quantiles.
    struct Summary {
        var events: Int
        var seconds: Double
        var failures: Int
        var p50: Double
        var p99: Double
        /// Events per second.
        var rate: Double { Double(events) / seconds }
    }

    /// Runs the load generator (this executable, `loadgen`) against `port` and waits for its
    /// summary; `whileOpen` runs when the summary has come, while the generator still holds its
    /// connections open (readings of the server under that load), before it is let go.
    static func drive<T>(
        port: UInt16, writeKey: String, connections: Int, batchesPerConnection: Int, idle: Int = 0,
        whileOpen: () throws -> T
    ) throws -> (summary: Summary, whileOpen: T) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = [
            "loadgen", String(port), writeKey, String(connections), String(batchesPerConnection),
            String(idle),
        ]
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        var data = Data()
        while !data.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            data += chunk
        }
        let held = try whileOpen()
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let line = try JSONParser().parse(Array(data.prefix { $0 != UInt8(ascii: "\n") }))
        let summary = Summary(
            events: Int(line["events"]?.int64Value ?? 0), seconds: line["seconds"]?.doubleValue ?? 1,
            failures: Int(line["failures"]?.int64Value ?? -1), p50: line["p50"]?.doubleValue ?? 0,
            p99: line["p99"]?.doubleValue ?? 0)
        return (summary, held)
    }

    /// One `/v1/batch` body of 100 events shaped like the SDK's.
    static func makeBody(connection: Int, batch: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let now = Timestamp(millisecondsSince1970: 1_795_981_800_000 + Int64(batch) * 1000)
        let events: [JSONValue] = (0..<eventsPerBatch).map { index in
            let message = sampleMessage(
                messageId: UUIDv7.make(at: now, using: &generator),
                visitor: "device-\(connection)-\(batch % 50)",
                index: index, time: now)
            return message.json
        }
        return JSONWriter.bytes(["batch": .array(events), "sentAt": .string(now.iso8601)])
    }

    /// A typical event of the contract: page views, leaves and taps with full context.
    static func sampleMessage(messageId: String, visitor: String, index: Int, time: Timestamp) -> Message {
        let pages = ["Home", "Product List", "Product Detail", "Cart", "Checkout"]
        let page = pages[index % pages.count]
        let context: JSONObject = [
            "library": ["name": "footprint", "version": "0.1.0"],
            "app": ["name": "Shop", "version": "2.4.1", "build": "241", "namespace": "com.example.shop"],
            "os": ["name": "iOS", "version": "18.1"],
            "device": ["model": "iPhone16,2", "manufacturer": "Apple", "type": "ios"],
            "locale": "en-US", "timezone": "Europe/Berlin", "sessionId": .string(visitor + "-s1"),
        ]
        switch index % 3 {
        case 0:
            return Message(
                type: .screen, messageId: messageId, anonymousId: visitor, name: page, timestamp: time,
                context: context,
                properties: [
                    "$screen_class": .string(page.replacingOccurrences(of: " ", with: "") + "ViewController")
                ])
        case 1:
            return Message(
                type: .track, messageId: messageId, anonymousId: visitor, event: "$screen_leave",
                timestamp: time,
                context: context,
                properties: ["$page_name": .string(page), "duration_ms": .int(Int64(1000 + index * 37))])
        default:
            return Message(
                type: .track, messageId: messageId, anonymousId: visitor, event: "$element_click",
                timestamp: time,
                context: context,
                properties: [
                    "$page_name": .string(page), "$element_path": "UIButton[0]/UIStackView[1]/ProductCell[3]",
                    "$element_type": "UIButton", "$element_text": "Add to cart",
                    "$item_id": .string("sku-\(index)"),
                ])
        }
    }
}

/// A list many threads append to.
final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Double] = []

    func append(_ value: Double) {
        lock.lock()
        storage.append(value)
        lock.unlock()
    }

    var values: [Double] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}

/// One keep-alive HTTP/1.1 connection that POSTs bodies to `/v1/batch`.
final class KeepAliveClient {
    struct Failure: Error {}

    private let socketHandle: Int32
    private let head: [UInt8]
    private var buffer: [UInt8] = []

    /// A socket connected to 127.0.0.1:`port`, from `source` when given; `nil` on failure.
    static func openSocket(port: UInt16, from source: String? = nil) -> Int32? {
        let socketHandle = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketHandle >= 0 else { return nil }
        func connectTo(_ host: String, bind: Bool) -> Int32 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = bind ? 0 : port.bigEndian
            address.sin_addr.s_addr = inet_addr(host)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind
                        ? Glibc.bind(socketHandle, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        : connect(socketHandle, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        if let source, connectTo(source, bind: true) != 0 {
            close(socketHandle)
            return nil
        }
        guard connectTo("127.0.0.1", bind: false) == 0 else {
            close(socketHandle)
            return nil
        }
        return socketHandle
    }

    init(port: UInt16, writeKey: String) throws {
        guard let socketHandle = Self.openSocket(port: port) else { throw Failure() }
        self.socketHandle = socketHandle
        var one: Int32 = 1
        setsockopt(socketHandle, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let credentials = Data("\(writeKey):".utf8).base64EncodedString()
        self.head = Array(
            "POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic \(credentials)\r\nContent-Type: application/json\r\n"
                .utf8)
    }

    deinit {
        close(socketHandle)
    }

    /// Sends one request and returns the response status.
    func post(_ body: [UInt8]) throws -> Int {
        let request = head + Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        var offset = 0
        while offset < request.count {
            let written = request[offset...].withUnsafeBytes {
                send(socketHandle, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { throw Failure() }
            offset += written
        }
        let separator = Array("\r\n\r\n".utf8)
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            if let end = buffer.firstRange(of: separator)?.upperBound {
                let headText = String(decoding: buffer[0..<end], as: UTF8.self)
                let status = Int(headText.split(separator: " ").dropFirst().first ?? "") ?? 0
                var length = 0
                for line in headText.split(separator: "\r\n")
                where line.lowercased().hasPrefix("content-length:") {
                    length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
                while buffer.count < end + length {
                    let count = chunk.withUnsafeMutableBytes {
                        recv(socketHandle, $0.baseAddress, $0.count, 0)
                    }
                    guard count > 0 else { throw Failure() }
                    buffer += chunk[0..<count]
                }
                buffer.removeFirst(end + length)
                return status
            }
            let count = chunk.withUnsafeMutableBytes { recv(socketHandle, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw Failure() }
            buffer += chunk[0..<count]
        }
    }
}
