/// The idle keep-alive connections of one client, per node, and the counts that show how often
/// they are reused.
///
/// A request takes an idle connection to its node when there is one (the most recently used,
/// unless it has sat idle longer than ``maximumIdleSeconds`` or the server has closed it) and
/// opens a new one otherwise; a connection whose answer allows it goes back afterwards. At most
/// ``maximumIdlePerNode`` wait per node; more in use at once is fine, the extra ones are closed
/// when given back.
final class HTTPConnectionPool: Sendable {
    /// Connections made and requests sent so far.
    struct Statistics: Sendable, Equatable {
        /// TCP connections opened.
        var connects = 0
        /// Requests sent (a request sent again on a new connection counts twice).
        var requests = 0
    }

    /// Idle connections kept per node. Default 16.
    let maximumIdlePerNode: Int
    /// Seconds a connection may sit idle and still be reused, below the server's own keep-alive
    /// time-out (ClickHouse's `keep_alive_timeout`, 3 s by default, 10 s in deploy/), so that a
    /// request is not sent on a connection the server is closing. Default 2.
    let maximumIdleSeconds: Double

    private struct State {
        var idle: [ClickHouseLocation.Node: [HTTPConnection]] = [:]
        var statistics = Statistics()
    }

    private let state = LockedValue(State())

    init(maximumIdlePerNode: Int = 16, maximumIdleSeconds: Double = 2) {
        self.maximumIdlePerNode = maximumIdlePerNode
        self.maximumIdleSeconds = maximumIdleSeconds
    }

    /// The counts so far.
    var statistics: Statistics { state.withLock { $0.statistics } }

    /// A connection to `node`: an idle one, or a new one made by `deadline`.
    /// - Returns: the connection, and whether it carried requests before.
    func connection(to node: ClickHouseLocation.Node, deadline: HTTPConnection.Instant) throws(HTTPConnection
        .Failure)
        -> (connection: HTTPConnection, reused: Bool)
    {
        let now = HTTPConnection.now
        // Stale ones are dropped (closed) outside the lock.
        var dropped: [HTTPConnection] = []
        let idle = state.withLock { state -> HTTPConnection? in
            state.statistics.requests += 1
            while let candidate = state.idle[node]?.popLast() {
                if now - candidate.lastUsed <= maximumIdleSeconds && !candidate.isStale { return candidate }
                dropped.append(candidate)
            }
            return nil
        }
        dropped.removeAll()
        if let idle { return (idle, true) }
        let connection = try HTTPConnection.open(to: node, deadline: deadline)
        state.withLock { $0.statistics.connects += 1 }
        return (connection, false)
    }

    /// Takes `connection` back to carry another request.
    func release(_ connection: HTTPConnection) {
        let extra = state.withLock { state -> HTTPConnection? in
            guard state.idle[connection.node, default: []].count < maximumIdlePerNode else {
                return connection
            }
            state.idle[connection.node, default: []].append(connection)
            return nil
        }
        _ = extra
    }

    /// Closes every idle connection.
    func closeIdle() {
        let all = state.withLock { state -> [HTTPConnection] in
            defer { state.idle.removeAll() }
            return state.idle.values.flatMap { $0 }
        }
        _ = all
    }
}
