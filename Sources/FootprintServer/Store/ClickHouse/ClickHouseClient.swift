import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends SQL to ClickHouse's HTTP interface and returns the answer's bytes.
///
/// Built on Foundation's `URLSession` (libcurl on Linux), which keeps connections alive between
/// requests. Every request is a POST: a statement without data in the body, or an INSERT's
/// statement in the `query` parameter and its rows in the body. Settings travel as URL
/// parameters. An answer is read into memory up to ``Configuration/maximumResponseBytes``;
/// a longer one is cut off and fails.
///
/// Failures carry ClickHouse's own message. A node that cannot be reached, does not answer in
/// time or reports a transient fault (too many queries, a shard unreachable, a timeout) gives
/// `unavailable`; anything else ClickHouse refuses gives `storage`. The HTTP layer answers both
/// with 503 and `Retry-After`.
final class ClickHouseClient: Sendable {
    /// Time-outs and limits.
    struct Configuration: Sendable {
        /// Seconds a request may take, and ClickHouse's `max_execution_time`, unless the call
        /// gives its own (the store's writes do). Default 60.
        var requestTimeout: Double = 60
        /// The largest answer read, in bytes. Default 512 MiB.
        var maximumResponseBytes = 512 << 20
    }

    /// Settings of every request unless it gives its own: statements up to 64 MiB and their
    /// syntax trees up to a million elements (ClickHouse's defaults, 256 KiB and 50,000, refuse a
    /// copy check of a large group, or a report over a definition that matches thousands of
    /// pages or paths).
    static let defaultSettings = [
        "max_query_size": "67108864", "max_ast_elements": "1000000", "max_expanded_ast_elements": "10000000",
    ]

    let location: ClickHouseLocation
    let configuration: Configuration
    private let session: URLSession
    private let delegate: Delegate

    init(location: ClickHouseLocation, configuration: Configuration = Configuration()) {
        self.location = location
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = configuration.requestTimeout
        sessionConfiguration.timeoutIntervalForResource = configuration.requestTimeout
        sessionConfiguration.httpMaximumConnectionsPerHost = 16
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let delegate = Delegate(maximumBytes: configuration.maximumResponseBytes)
        self.delegate = delegate
        self.session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Runs `sql` (with `data` as an INSERT's rows) on `node` (default: the location's node).
    /// - Parameter timeout: seconds it may take (default ``Configuration/requestTimeout``).
    /// - Returns: the answer's body.
    func execute(
        _ sql: String, data: [UInt8]? = nil, settings: [String: String] = [:],
        on node: ClickHouseLocation.Node? = nil, timeout: Double? = nil
    ) throws(ServerError) -> [UInt8] {
        let timeout = min(timeout ?? configuration.requestTimeout, configuration.requestTimeout)
        let target = node ?? location.node
        var components = URLComponents()
        components.scheme = "http"
        components.host = target.host.contains(":") ? "[\(target.host)]" : target.host
        components.port = Int(target.port)
        components.path = "/"
        var items = settings.merging(Self.defaultSettings) { given, _ in given }.sorted { $0.key < $1.key }
            .map { URLQueryItem(name: $0.key, value: $0.value) }
        if settings["max_execution_time"] == nil {
            items.append(
                URLQueryItem(name: "max_execution_time", value: String(max(1, Int(timeout)))))
        }
        if data != nil { items.append(URLQueryItem(name: "query", value: sql)) }
        components.queryItems = items
        // `+` is a space in a query string: escape it, which URLComponents does not.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(
            of: "+", with: "%2B")
        guard let url = components.url else {
            throw ServerError(code: .invalidStore, message: "cannot make a URL for ClickHouse at \(target)")
        }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = Data(data ?? Array(sql.utf8))
        if let user = location.user {
            let credentials = Data("\(user):\(location.password ?? "")".utf8).base64EncodedString()
            request.setValue("Basic \(credentials)", forHTTPHeaderField: "Authorization")
        }
        let task = session.dataTask(with: request)
        let done = DispatchSemaphore(value: 0)
        delegate.begin(task.taskIdentifier, done: done)
        task.resume()
        // The resource time-out ends the task; the extra wait only guards against a lost callback.
        if done.wait(timeout: .now() + timeout + 30) == .timedOut {
            task.cancel()
            _ = delegate.finish(task.taskIdentifier)
            throw ServerError(code: .unavailable, message: "ClickHouse at \(target) did not answer in time")
        }
        let outcome = delegate.finish(task.taskIdentifier)
        if outcome.tooLarge {
            throw ServerError(
                code: .storage,
                message: "ClickHouse's answer is larger than \(configuration.maximumResponseBytes) bytes")
        }
        if let error = outcome.error {
            throw ServerError(
                code: .unavailable,
                message: "ClickHouse at \(target) cannot be reached: \(error.localizedDescription)")
        }
        guard outcome.status == 200 else {
            throw Self.error(status: outcome.status, body: outcome.body, node: target)
        }
        return outcome.body
    }

    /// Runs `sql` and returns its rows in ClickHouse's `TabSeparated` format, each as its fields.
    func rows(
        _ sql: String, settings: [String: String] = [:], on node: ClickHouseLocation.Node? = nil,
        timeout: Double? = nil
    ) throws(ServerError) -> [[Substring]] {
        let body = try execute(sql + " FORMAT TabSeparated", settings: settings, on: node, timeout: timeout)
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
        try rows(query.sql, settings: settings, on: node, timeout: timeout).map {
            fields throws(ServerError) in try query.decode(fields)
        }
    }

    /// ClickHouse error codes that say "not now": timeouts, network faults, overload, a shard
    /// that cannot be reached, too many parts to merge.
    static let transientCodes: Set<Int> = [
        159, 160, 164, 202, 203, 209, 210, 241, 242, 252, 279, 285, 286, 319, 394, 425,
    ]

    /// The error for a non-200 answer: its ClickHouse code and message.
    static func error(status: Int, body: [UInt8], node: ClickHouseLocation.Node) -> ServerError {
        let text = String(decoding: body.prefix(2_000), as: UTF8.self).trimmingSpaces
        var code: Int?
        if text.hasPrefix("Code: ") {
            code = Int(text.dropFirst(6).prefix { $0.isNumber })
        }
        let transient =
            status == 503 || status == 502 || status == 504 || code.map(transientCodes.contains) == true
        return ServerError(
            code: transient ? .unavailable : .storage,
            message: "ClickHouse at \(node) answered \(status): \(text.isEmpty ? "(no message)" : text)")
    }

    /// Collects each task's answer; cancels one that grows past the limit.
    private final class Delegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        /// One task's answer so far (changed only under the lock of `tasks`).
        final class Outcome {
            var status = 0
            var body: [UInt8] = []
            var error: (any Error)?
            var tooLarge = false
            var done: DispatchSemaphore?
        }

        let maximumBytes: Int
        private let tasks = LockedValue<[Int: Outcome]>([:])

        init(maximumBytes: Int) {
            self.maximumBytes = maximumBytes
        }

        func begin(_ id: Int, done: DispatchSemaphore) {
            let outcome = Outcome()
            outcome.done = done
            tasks.withLock { $0[id] = outcome }
        }

        func finish(_ id: Int) -> Outcome {
            tasks.withLock { $0.removeValue(forKey: id) } ?? Outcome()
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            tasks.withLock { $0[dataTask.taskIdentifier]?.status = status }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let cut = tasks.withLock { tasks -> Bool in
                guard let outcome = tasks[dataTask.taskIdentifier], !outcome.tooLarge else { return false }
                if outcome.body.count + data.count > maximumBytes {
                    outcome.tooLarge = true
                    return true
                }
                outcome.body.append(contentsOf: data)
                return false
            }
            if cut { dataTask.cancel() }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?)
        {
            let done = tasks.withLock { tasks -> DispatchSemaphore? in
                guard let outcome = tasks[task.taskIdentifier] else { return nil }
                if !outcome.tooLarge { outcome.error = error }
                return outcome.done
            }
            done?.signal()
        }
    }
}
