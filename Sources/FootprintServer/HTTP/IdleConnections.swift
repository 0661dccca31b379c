/// The connections that have no request in progress (idle between requests, or still sending a
/// request head), oldest first: the one a full connection table gives up for a newcomer.
///
/// When every slot is taken, a new connection evicts the connection that has waited longest for
/// a request head (nginx does the same with its keep-alive connections), so clients holding
/// every slot idle, or trickling heads, cannot shut out others. A connection whose head has
/// arrived is in flight (its body arriving, its request handled or its answer sent) and is
/// never evicted; it is bounded by the body deadline instead.
///
/// A value type with no clock of its own: callers pass monotonic times. Every operation is O(1)
/// amortized (a queue in waiting order; entries of connections that stopped waiting are
/// skipped when reached, and dropped in bulk once they are most of the queue).
struct IdleConnections: Sendable {
    /// When each waiting connection began to wait.
    private var waitingSince: [UInt: UInt64] = [:]
    /// (connection, since) in the order the connections began to wait; may hold stale entries.
    private var order: [(connection: UInt, since: UInt64)] = []
    /// Entries of `order` before this index are gone.
    private var start = 0
    /// The last time given out.
    private var lastSince: UInt64 = 0

    /// Connections waiting for a request head.
    var count: Int { waitingSince.count }

    /// Whether `connection` is waiting for a request head.
    func isWaiting(_ connection: UInt) -> Bool { waitingSince[connection] != nil }

    /// `connection` opened, or its last answer was sent: it waits for a request head from `now`.
    mutating func waiting(_ connection: UInt, since now: UInt64) {
        // Strictly increasing, so an entry names one wait of one connection even when a closed
        // connection's key is reused at the same instant.
        let since = max(now, lastSince &+ 1)
        lastSince = since
        waitingSince[connection] = since
        order.append((connection, since))
    }

    /// A request head arrived on `connection`: it is in flight until ``waiting(_:since:)``.
    mutating func inFlight(_ connection: UInt) {
        waitingSince[connection] = nil
        compactIfMostlyStale()
    }

    /// `connection` closed (or is being closed).
    mutating func removed(_ connection: UInt) {
        waitingSince[connection] = nil
        compactIfMostlyStale()
    }

    /// Takes the connection that has waited longest for a request head, `nil` when none waits.
    mutating func takeOldest() -> UInt? {
        while start < order.count {
            let entry = order[start]
            start += 1
            if waitingSince[entry.connection] == entry.since {
                waitingSince[entry.connection] = nil
                compactIfMostlyStale()
                return entry.connection
            }
        }
        compactIfMostlyStale()
        return nil
    }

    /// Drops the stale entries once they outnumber the live ones (and there are enough of them
    /// to be worth the copy), so the queue stays within twice the waiting connections.
    private mutating func compactIfMostlyStale() {
        let entries = order.count - start
        guard entries > 64, entries > 2 * waitingSince.count else { return }
        order = order[start...].filter { waitingSince[$0.connection] == $0.since }
        start = 0
    }
}
