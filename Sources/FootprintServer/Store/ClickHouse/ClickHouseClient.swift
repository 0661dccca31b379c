import Foundation

/// Sends SQL to ClickHouse's HTTP interface and returns the answer's bytes.
///
/// Plain HTTP/1.1 over POSIX sockets (``HTTPConnection``), connections kept alive between
/// requests and reused per node (``HTTPConnectionPool``). Every request is a POST: a statement
/// without data in the body; an INSERT's statement in the `query` parameter and its rows in
/// the body; or a read's statement in the `query` parameter and the rows of a table it reads
/// (``ClickHouseExternalTable``) as a form in the body. Settings travel as URL parameters. An
/// answer is read into memory up to ``Configuration/maximumResponseBytes``; a longer one is cut
/// off and fails.
///
/// With replicas (``ClickHouseLocation/isReplicated``) a request for no node in particular goes to
/// the location's node, or, once that cannot be reached, to the next server the location lists
/// (every one holds the `Distributed` tables): a read is sent there at once, a write fails as
/// `unavailable` (its clients resend it, and the resend goes there).
///
/// Failures carry ClickHouse's own message. A node that cannot be reached, does not answer in
/// time or reports a transient fault (too many queries, a shard unreachable, a timeout) gives
/// `unavailable`; anything else ClickHouse refuses gives `storage`. The HTTP layer answers both
/// with 503 and `Retry-After`.
final class ClickHouseClient: Sendable {
    /// Time-outs and limits.
    struct Configuration: Sendable {
        /// Seconds a request may take (connecting, sending, the whole answer), and ClickHouse's
        /// `max_execution_time`, unless the call gives its own (the store's writes do). Default 60.
        var requestTimeout: Double = 60
        /// The largest answer read, in bytes. Default 512 MiB.
        var maximumResponseBytes = 512 << 20
        /// Settings every request carries unless it gives its own. Default: a `GROUP BY` whose
        /// state outgrows 2 GB goes on on disk (`max_bytes_before_external_group_by`) instead of
        /// failing at the server's memory limit, half the 4 GB `max_memory_usage` of
        /// `deploy/clickhouse/users.xml`: at 100M events the merge of every session's marks
        /// (dwell, paths, page moves) needs more than that, and failed (docs/BENCHMARKS.md).
        var settings = ["max_bytes_before_external_group_by": "2000000000"]
        /// Idle connections kept per node. Default 16.
        var maximumIdleConnections = 16
        /// Seconds an idle connection may wait and still be reused. Default 2
        /// (see ``HTTPConnectionPool/maximumIdleSeconds``).
        var maximumIdleSeconds: Double = 2
    }

    /// Settings of every request unless it gives its own: statements up to 64 MiB and their
    /// syntax trees up to a million elements (ClickHouse's defaults, 256 KiB and 50,000, refuse a
    /// copy check of a large group, or a report over a definition that matches thousands of
    /// pages or paths).
    static let defaultSettings = [
        "max_query_size": "67108864", "max_ast_elements": "1000000", "max_expanded_ast_elements": "10000000",
    ]

    /// Settings of every request with replicas: the `Distributed` tables write to and read from
    /// each shard's first replica that answers, in the order the cluster lists them, whichever
    /// server runs the query. So the writer's check of its copies reads the replica its INSERT
    /// just wrote to, not a twin that has yet to fetch the rows (see docs/ARCHITECTURE.md,
    /// *Replicated shards*).
    static let replicaSettings = ["load_balancing": "in_order", "prefer_localhost_replica": "0"]

    let location: ClickHouseLocation
    let configuration: Configuration
    private let pool: HTTPConnectionPool
    /// Where requests for no node in particular go, in order: the location's node, then with
    /// replicas every other server.
    private let entries: [ClickHouseLocation.Node]
    /// The index in ``entries`` of the one they go to now: the next after one that could not be
    /// reached.
    private let entry = LockedValue(0)
    /// `Authorization: Basic …` and its line break, or nothing.
    private let authorization: String

    init(location: ClickHouseLocation, configuration: Configuration = Configuration()) {
        self.location = location
        self.configuration = configuration
        self.pool = HTTPConnectionPool(
            maximumIdlePerNode: configuration.maximumIdleConnections,
            maximumIdleSeconds: configuration.maximumIdleSeconds)
        self.entries =
            [location.node] + (location.isReplicated ? location.shards.filter { $0 != location.node } : [])
        if let user = location.user {
            let credentials = Data("\(user):\(location.password ?? "")".utf8).base64EncodedString()
            self.authorization = "Authorization: Basic \(credentials)\r\n"
        } else {
            self.authorization = ""
        }
    }

    deinit {
        pool.closeIdle()
    }

    /// Connections opened and requests sent so far.
    var connectionStatistics: HTTPConnectionPool.Statistics { pool.statistics }

    /// Runs `sql` (with `data` as an INSERT's rows) on `node` (default: the location's node, or
    /// with replicas the server requests go to now).
    /// - Parameters:
    ///   - timeout: seconds it may take (default ``Configuration/requestTimeout``).
    ///   - isRead: whether `sql` only reads (default `false`): a read is sent once more on a new
    ///     connection when a kept-alive one turns out closed before a byte of the answer; a write
    ///     never is (it fails as `unavailable`, and its clients resend it), so that no INSERT can
    ///     run twice with the same sequences.
    /// - Returns: the answer's body.
    func execute(
        _ sql: String, data: [UInt8]? = nil, external: [ClickHouseExternalTable] = [],
        settings: [String: String] = [:], on node: ClickHouseLocation.Node? = nil, timeout: Double? = nil,
        isRead: Bool = false
    ) throws(ServerError) -> [UInt8] {
        let timeout = min(timeout ?? configuration.requestTimeout, configuration.requestTimeout)
        var parameters = settings.merging(Self.defaultSettings) { given, _ in given }
        if location.isReplicated { parameters.merge(Self.replicaSettings) { given, _ in given } }
        parameters.merge(configuration.settings) { given, _ in given }
        if settings["max_execution_time"] == nil {
            parameters["max_execution_time"] = String(max(1, Int(timeout)))
        }
        var body = data ?? Array(sql.utf8)
        var contentType = "text/plain; charset=UTF-8"
        if !external.isEmpty {
            for table in external {
                parameters[table.name + "_structure"] = table.structure
                parameters[table.name + "_format"] = "RowBinary"
            }
            let form = ClickHouseExternalTable.formData(external, query: data == nil ? sql : nil)
            body = form.body
            contentType = "multipart/form-data; boundary=\(form.boundary)"
        }
        var path =
            "/?"
            + parameters.sorted { $0.key < $1.key }.map {
                Self.percentEncoded($0.key) + "=" + Self.percentEncoded($0.value)
            }.joined(separator: "&")
        if data != nil { path += "&query=" + Self.percentEncoded(sql) }
        var attempts = 0
        while true {
            let chosen = node == nil ? entry.withLock { $0 } : nil
            let target = node ?? entries[chosen ?? 0]
            let head = Array(
                ("POST \(path) HTTP/1.1\r\nHost: \(target)\r\nContent-Length: \(body.count)\r\n"
                    + "Content-Type: \(contentType)\r\n\(authorization)\r\n").utf8)
            let response: HTTPResponseParser.Response
            do {
                response = try send(head: head, body: body, to: target, timeout: timeout, retries: isRead)
            } catch {
                attempts += 1
                guard let chosen, Self.isUnreachable(error) else { throw self.error(error, node: target) }
                // The next server from now on (unless another request moved on already); a read
                // goes there at once.
                entry.withLock { if $0 == chosen { $0 = (chosen + 1) % entries.count } }
                guard isRead, attempts < entries.count else { throw self.error(error, node: target) }
                continue
            }
            return try answer(response, node: target)
        }
    }

    /// Whether `failure` says the node is gone (no connection, or one closed or reset without
    /// an answer), rather than slow or answering something unexpected.
    static func isUnreachable(_ failure: HTTPConnection.Failure) -> Bool {
        switch failure {
        case .cannotConnect, .closedBeforeAnswer, .broken: true
        case .timedOut, .response: false
        }
    }

    /// The body of a 200 answer without an exception; else its error.
    private func answer(_ response: HTTPResponseParser.Response, node target: ClickHouseLocation.Node)
        throws(ServerError) -> [UInt8]
    {
        guard response.status == 200, response.header("X-ClickHouse-Exception-Code") == nil else {
            throw Self.error(
                status: response.status, body: response.body, node: target,
                code: response.header("X-ClickHouse-Exception-Code").flatMap { Int($0) })
        }
        return response.body
    }

    /// Sends one request on a kept-alive connection to `node`, or on a new one; with `retries`,
    /// once more on a new one when a kept-alive connection turns out closed before a byte of the
    /// answer.
    private func send(
        head: [UInt8], body: [UInt8], to node: ClickHouseLocation.Node, timeout: Double, retries: Bool
    )
        throws(HTTPConnection.Failure) -> HTTPResponseParser.Response
    {
        let deadline = HTTPConnection.now + timeout
        var limits = HTTPResponseParser.Limits()
        limits.maximumBodyBytes = configuration.maximumResponseBytes
        var retried = !retries
        while true {
            do {
                let (connection, reused) = try pool.connection(to: node, deadline: deadline)
                do {
                    let response = try connection.exchange(
                        head: head, body: body, limits: limits, deadline: deadline)
                    if response.keepsAlive { pool.release(connection) }
                    return response
                } catch .closedBeforeAnswer where reused && !retried {
                    retried = true
                    continue
                }
            }
        }
    }

    /// `text` for a URL's query: every byte but the unreserved ones (RFC 3986) as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case 48...57, 65...90, 97...122, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The error for a failed exchange with `node`.
    private func error(_ failure: HTTPConnection.Failure, node: ClickHouseLocation.Node) -> ServerError {
        switch failure {
        case .timedOut:
            ServerError(code: .unavailable, message: "ClickHouse at \(node) did not answer in time")
        case .cannotConnect(let reason):
            ServerError(code: .unavailable, message: "ClickHouse at \(node) cannot be reached: \(reason)")
        case .closedBeforeAnswer:
            ServerError(
                code: .unavailable,
                message: "ClickHouse at \(node) cannot be reached: it closed the connection")
        case .broken(let reason):
            ServerError(code: .unavailable, message: "ClickHouse at \(node) cannot be reached: \(reason)")
        case .response(.bodyTooLarge):
            ServerError(
                code: .storage,
                message: "ClickHouse's answer is larger than \(configuration.maximumResponseBytes) bytes")
        case .response(let failure):
            ServerError(code: .storage, message: "ClickHouse at \(node) answered with \(failure)")
        }
    }

    /// Runs `sql` and returns its rows in ClickHouse's `TabSeparated` format, each as its fields.
    /// - Parameter external: tables of rows sent along, which `sql` reads by their names.
    func rows(
        _ sql: String, external: [ClickHouseExternalTable] = [], settings: [String: String] = [:],
        on node: ClickHouseLocation.Node? = nil, timeout: Double? = nil
    ) throws(ServerError) -> [[Substring]] {
        let body = try execute(
            sql + " FORMAT TabSeparated", external: external, settings: settings, on: node, timeout: timeout,
            isRead: true)
        let text = String(decoding: body, as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: true).map {
            $0.split(separator: "\t", omittingEmptySubsequences: false)
        }
    }

    /// Runs `query` and returns its rows, each decoded by the query.
    /// - Throws: ``ServerError/Code/storage`` for a row the query cannot decode
    ///   (``ClickHouseQuery/decode(_:)``).
    func rows<Row>(
        _ query: ClickHouseQuery<Row>, settings: [String: String] = [:],
        on node: ClickHouseLocation.Node? = nil,
        timeout: Double? = nil
    ) throws(ServerError) -> [Row] {
        try rows(query.sql, external: query.external, settings: settings, on: node, timeout: timeout).map {
            fields throws(ServerError) in try query.decode(fields)
        }
    }

    /// ClickHouse error codes that say "not now": timeouts, network faults, overload, a shard
    /// that cannot be reached, too many parts to merge.
    static let transientCodes: Set<Int> = [
        159, 160, 164, 202, 203, 209, 210, 241, 242, 252, 279, 285, 286, 319, 394, 425,
    ]

    /// The error for a non-200 answer, or one with `X-ClickHouse-Exception-Code`: its
    /// ClickHouse code (`header`, else the `Code: N` that starts the body) and message.
    static func error(status: Int, body: [UInt8], node: ClickHouseLocation.Node, code header: Int? = nil)
        -> ServerError
    {
        let text = String(decoding: body.prefix(2_000), as: UTF8.self).trimmingSpaces
        var code = header
        if code == nil, text.hasPrefix("Code: ") {
            code = Int(text.dropFirst(6).prefix { $0.isNumber })
        }
        let transient =
            status == 503 || status == 502 || status == 504 || code.map(transientCodes.contains) == true
        return ServerError(
            code: transient ? .unavailable : .storage,
            message: "ClickHouse at \(node) answered \(status): \(text.isEmpty ? "(no message)" : text)")
    }
}
