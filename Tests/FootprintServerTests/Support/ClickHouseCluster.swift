import FootprintLoopback
import FootprintServer
import FootprintWire
import Foundation
import Testing

/// What the cluster tests need beyond ``ClickHouseTesting``: the repository's scripts and
/// configs, the `footprint` executable, and plain SQL on a shard.
enum ClickHouseTestEnvironment {
    /// The repository's root (for scripts/ and deploy/).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The `footprint` executable built next to the test bundle.
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("footprint")

    /// The cluster's URL; records an issue (and throws) when there is none.
    static func requireURL(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(
            ClickHouseTesting.url, "FOOTPRINT_REQUIRE_CLICKHOUSE=1 but FOOTPRINT_CLICKHOUSE_URL is not set",
            sourceLocation: sourceLocation)
    }

    /// `url` with its database replaced by `database`.
    static func url(_ url: String, database: String) -> String {
        guard let schemeEnd = url.range(of: "://"),
            let pathStart = url[schemeEnd.upperBound...].firstIndex(of: "/")
        else { return url }
        let rest = url[pathStart...].drop { $0 != "?" }
        return String(url[..<pathStart]) + "/" + database + rest
    }

    /// The HTTP ports of the shards a URL names (`shards=`, else its own node).
    static func shardPorts(_ url: String) -> [UInt16] {
        shardAddresses(url).map(\.port)
    }

    /// The IPv4 addresses and HTTP ports of the servers a URL names (`shards=`, every replica
    /// of each shard with `replicas=`; else its own node).
    static func shardAddresses(_ url: String) -> [(host: String, port: UInt16)] {
        func address(_ text: Substring) -> (host: String, port: UInt16)? {
            let parts = text.split(separator: ":")
            guard parts.count == 2, let port = UInt16(parts[1]) else { return nil }
            return (String(parts[0]), port)
        }
        if let range = url.range(of: "shards=") {
            let list = url[range.upperBound...].prefix { $0 != "&" }
            return list.split(separator: ",").compactMap(address)
        }
        guard let schemeEnd = url.range(of: "://") else { return [] }
        let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" }
        return address(authority.split(separator: "@").last ?? authority).map { [$0] } ?? []
    }

    /// A new database name for one test.
    static func newDatabaseName(_ prefix: String) -> String {
        "\(prefix)_\(UInt64.random(in: 0..<UInt64.max) & 0xFFFF_FFFF_FFFF)"
    }

    /// Runs `sql` on the shard at `port` over ClickHouse's HTTP interface; returns the answer.
    @discardableResult
    static func query(
        _ sql: String, host: String = "127.0.0.1", port: UInt16,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws
        -> String
    {
        // HTTP/1.0: ClickHouse answers without chunked encoding and closes the connection.
        let client = LoopbackClient(port: port, host: host)
        let connection = try client.connect()
        defer { close(connection) }
        let body = Array(sql.utf8)
        try client.write(
            Array("POST / HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body,
            to: connection)
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            answer += chunk[0..<count]
        }
        let text = String(decoding: answer, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else {
            throw LoopbackClient.Failure(description: "ClickHouse on \(port) did not answer")
        }
        let result = String(text[headEnd.upperBound...])
        guard text.hasPrefix("HTTP/1.0 200") || text.hasPrefix("HTTP/1.1 200") else {
            throw LoopbackClient.Failure(description: "ClickHouse on \(port): \(result)")
        }
        return result
    }

    /// Drops `database` on every shard of `url` (ignoring shards that are down).
    static func dropDatabase(_ database: String, url: String) {
        for server in shardAddresses(url) {
            _ = try? query("DROP DATABASE IF EXISTS \(database)", host: server.host, port: server.port)
        }
    }
}

/// A free TCP port on 127.0.0.1 (free when asked; a server started right after takes it).
func freeLoopbackPort() throws -> UInt16 {
    let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw LoopbackClient.Failure(description: "socket() failed") }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
            bind(socket, raw, length) == 0 && getsockname(socket, raw, &length) == 0
        }
    }
    guard bound else { throw LoopbackClient.Failure(description: "no free port") }
    return UInt16(bigEndian: address.sin_port)
}

/// HAProxy from the checked-in template (deploy/haproxy/haproxy.cfg) in front of collectors, in
/// the foreground as a child of the test.
final class HAProxyProcess {
    let process = Process()
    let port: UInt16

    /// Starts HAProxy on a free port, round robin over `collectors` (ports), and waits until it
    /// answers `GET /health`.
    init(collectors: [UInt16], directory: String) throws {
        port = try freeLoopbackPort()
        let template = try String(
            contentsOf: ClickHouseTestEnvironment.root.appendingPathComponent("deploy/haproxy/haproxy.cfg"),
            encoding: .utf8)
        let servers = collectors.enumerated().map {
            "    server collector\($0.offset + 1) 127.0.0.1:\($0.element) check"
        }
        let configuration = template.replacingOccurrences(of: "@PORT@", with: String(port))
            .replacingOccurrences(of: "@PIDFILE@", with: directory + "/haproxy.pid")
            .replacingOccurrences(of: "@SERVERS@", with: servers.joined(separator: "\n"))
        let path = directory + "/haproxy.cfg"
        try configuration.write(toFile: path, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // -db: stay in the foreground, logs to stderr.
        process.arguments = ["haproxy", "-db", "-f", path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // A hang guard: HAProxy starts in well under a second.
        let deadline = Date().addingTimeInterval(60)
        while (try? LoopbackClient(port: port).send("GET", "/health"))?.status != 200 {
            guard process.isRunning, Date() < deadline else {
                stop()
                throw LoopbackClient.Failure(description: "HAProxy did not start on \(port)")
            }
            usleep(20_000)
        }
    }

    var client: LoopbackClient { LoopbackClient(port: port) }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
    }
}

/// Collectors (`footprint serve --store clickhouse://…`, sharing one metadata file) on a fresh
/// database of the shards, and HAProxy in front of them; ``shutDown()`` stops them and drops the
/// database.
final class CollectorCluster {
    let directory: String
    let database: String
    let url: String
    let metadata: String
    let adminToken = "admin-" + String(UInt64.random(in: 0..<UInt64.max), radix: 16)
    let readToken = "read-" + String(UInt64.random(in: 0..<UInt64.max), radix: 16)
    private(set) var collectors: [ServeProcess] = []
    private(set) var haproxy: HAProxyProcess!
    private(set) var writeKey = ""

    /// Whether each collector runs with a spool of its own (``spool(of:)``).
    let spools: Bool

    /// - Parameters:
    ///   - baseURL: the shards (default `FOOTPRINT_CLICKHOUSE_URL`).
    ///   - count: collectors behind HAProxy.
    ///   - spools: whether each collector runs with a spool of its own (`--spool`).
    init(
        baseURL: String? = nil, collectors count: Int = 2, spools: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        self.spools = spools
        let base = try baseURL ?? ClickHouseTestEnvironment.requireURL(sourceLocation: sourceLocation)
        database = ClickHouseTestEnvironment.newDatabaseName("footprint_test")
        url = ClickHouseTestEnvironment.url(base, database: database)
        directory = NSTemporaryDirectory() + "footprint-cluster-\(database)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        metadata = directory + "/metadata.sqlite"
        // One after the other: the first creates the metadata file and its default project.
        var started: [ServeProcess] = []
        do {
            for index in 0..<count {
                started.append(try startCollector(spool: spools ? spool(of: index) : nil))
            }
            collectors = started
            writeKey = started[0].writeKey
            haproxy = try HAProxyProcess(collectors: started.map(\.port), directory: directory)
        } catch {
            for collector in started { collector.stop(signal: SIGKILL) }
            ClickHouseTestEnvironment.dropDatabase(database, url: url)
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// The spool directory of collector `index`.
    func spool(of index: Int) -> String {
        directory + "/spool-\(index)"
    }

    /// The collectors started so far: each gets the next `--collector-tag`, so that no two
    /// give one message's copies the same sequence.
    private var started = 0

    /// Starts one more collector on a free port (not behind HAProxy), with `spool` when given.
    func startCollector(spool: String? = nil) throws -> ServeProcess {
        let tag = started % Int(ClickHouseEventStore.sequenceTags)
        started += 1
        return try ServeProcess(
            executable: ClickHouseTestEnvironment.executable, database: metadata,
            arguments: [
                "--store", url, "--trusted-proxy", "127.0.0.1", "--admin-token", adminToken, "--read-token",
                readToken, "--collector-tag", String(tag),
            ] + (spool.map { ["--spool", $0] } ?? []))
    }

    /// Sends through HAProxy.
    var client: LoopbackClient { haproxy.client }

    /// Runs `sql` on the first shard (its first replica).
    @discardableResult
    /// The unsettled messages the running collectors keep (`footprint_unsettled_messages` of their
    /// `/metrics`, summed); `nil` when one cannot be read.
    func unsettledMessages() -> Int? { collectorMetric("footprint_unsettled_messages") }

    /// The sample `name` of the running collectors' `/metrics`, summed; `nil` when one cannot be
    /// read.
    func collectorMetric(_ name: String) -> Int? {
        var total = 0
        for collector in collectors where collector.process.isRunning {
            guard
                let response = try? LoopbackClient(port: collector.port).send(
                    "GET", "/metrics", headers: ["Authorization": "Bearer \(readToken)"]),
                response.status == 200,
                let line = response.text.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }),
                let count = Int(line.dropFirst(name.count + 1))
            else { return nil }
            total += count
        }
        return total
    }

    func query(_ sql: String) throws -> String {
        let server = ClickHouseTestEnvironment.shardAddresses(url)[0]
        return try ClickHouseTestEnvironment.query(sql, host: server.host, port: server.port)
    }

    func shutDown() {
        haproxy?.stop()
        for collector in collectors where collector.process.isRunning { collector.stop(signal: SIGTERM) }
        ClickHouseTestEnvironment.dropDatabase(database, url: url)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Two ClickHouse shards of the test's own (scripts/cluster.sh on a random port base), for tests
/// that stop a shard, with `replicas` servers each (and a ZooKeeper, with more than one);
/// ``stop()`` stops them and deletes their data.
final class PrivateShards {
    let state: String
    let url: String

    init(replicas: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) throws {
        state = NSTemporaryDirectory() + "footprint-shards-\(UInt32.random(in: 0..<UInt32.max))"
        // Ports base+123…, base+1101…, base+1201…: a base in 27000…31200 keeps clear of the
        // clusters make test, make cluster and make bench start, and below the kernel's ephemeral
        // ports (32768…), which outgoing connections take and a listener then cannot bind.
        var lastOutput = ""
        for _ in 0..<5 {
            let base = 27_000 + Int.random(in: 0..<22) * 200
            let run = try Self.script([
                "start", "--base", String(base), "--state", state, "--replicas", String(replicas),
            ])
            lastOutput = run.output
            if run.status == 0 {
                let env = try String(contentsOfFile: state + "/cluster.env", encoding: .utf8)
                let line =
                    env.split(separator: "\n").first { $0.hasPrefix("FOOTPRINT_CLICKHOUSE_URL=") } ?? ""
                url = String(line.dropFirst("FOOTPRINT_CLICKHOUSE_URL=".count)).trimmingCharacters(
                    in: CharacterSet(charactersIn: "'"))
                return
            }
            _ = try? Self.script(["clean", "--state", state])
        }
        throw LoopbackClient.Failure(description: "scripts/cluster.sh start failed: \(lastOutput)")
    }

    /// Runs scripts/cluster.sh; returns its status and output. The output goes through a file,
    /// not a pipe read to its end: the servers it starts outlive it.
    static func script(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let log = NSTemporaryDirectory() + "footprint-cluster-\(UInt32.random(in: 0..<UInt32.max)).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        FileManager.default.createFile(atPath: log, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? output.close() }
        let process = Process()
        process.executableURL = ClickHouseTestEnvironment.root.appendingPathComponent("scripts/cluster.sh")
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    /// Stops shard `number` (1 or 2).
    func stopShard(_ number: Int) throws {
        let run = try Self.script(["stop-shard", String(number), "--state", state])
        guard run.status == 0 else { throw LoopbackClient.Failure(description: run.output) }
    }

    /// Starts shard `number` again and waits until it answers.
    func startShard(_ number: Int) throws {
        let run = try Self.script(["start-shard", String(number), "--state", state])
        guard run.status == 0 else { throw LoopbackClient.Failure(description: run.output) }
    }

    /// Runs a fault drill of scripts/cluster.sh on these shards (`stop-replica 1 2`,
    /// `stop-zookeeper`, ...); throws its output when it fails.
    func drill(_ arguments: String...) throws {
        let run = try Self.script(arguments + ["--state", state])
        guard run.status == 0 else { throw LoopbackClient.Failure(description: run.output) }
    }

    func stop() {
        _ = try? Self.script(["clean", "--state", state])
    }
}
