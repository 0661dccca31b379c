import Dispatch
import Foundation

/// The open connections of an ``HTTPServer`` and the deadline each must meet: the head of its
/// next request, or the end of the body it is sending. A timer closes the connections past
/// their deadline (libmicrohttpd itself only notices silence, not a client that trickles bytes).
///
/// It also keeps the table within ``limit``: a connection opened when the table is full evicts the
/// one that has waited longest for a request head (``IdleConnections``), or is itself shut down
/// when every other connection has a request in flight. libmicrohttpd's own limit is set higher
/// (``HTTPServer/Configuration/connectionLimit`` plus ``reserve(for:)``) so that it keeps accepting
/// the connections this table decides about.
///
/// A connection's socket is shut down, never closed, here: libmicrohttpd closes it after it has
/// told ``closed(_:)``, which takes the same lock, so a descriptor number reused by a newer
/// connection is never touched.
final class ConnectionTable: @unchecked Sendable {
    private struct Entry {
        var socket: Int32
        /// Monotonic nanoseconds; 0 while a request is being handled (no deadline).
        var deadline: UInt64
        /// The target of the request whose line has just arrived, as sent, until its head is read.
        var target: [UInt8]?
        /// Shut down here (past its deadline, or evicted); libmicrohttpd has yet to close it.
        var closing = false
    }

    private let lock = NSLock()
    private var entries: [UInt: Entry] = [:]
    private var inFlight = 0
    private var timer: (any DispatchSourceTimer)?
    private var idle = IdleConnections()
    /// Entries shut down and not yet closed.
    private var closingCount = 0
    private var evictedCount = 0
    /// The most connections kept open; a new one past it evicts an idle one.
    let limit: Int

    /// Creates a table that keeps at most `limit` connections (at least 1).
    init(limit: Int = .max) {
        self.limit = max(1, limit)
    }

    /// The connections libmicrohttpd may hold beyond `limit`: those being evicted, and newcomers
    /// while libmicrohttpd has not yet closed the connections they evicted.
    static func reserve(for limit: Int) -> Int {
        min(1_024, max(16, limit / 10))
    }

    /// Starts the timer that checks the deadlines every `interval` seconds.
    func startReaping(every interval: Double) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "footprint.http.deadlines"))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.reap(now: Self.now()) }
        timer.resume()
        lock.withLock { self.timer = timer }
    }

    /// Stops the timer.
    func stopReaping() {
        lock.withLock {
            timer?.cancel()
            timer = nil
        }
    }

    /// Monotonic nanoseconds.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// The deadline `seconds` from now.
    static func deadline(in seconds: Double) -> UInt64 {
        now() + UInt64(max(0, min(seconds, 1e6)) * 1e9)
    }

    /// A connection opened. When that makes more than ``limit`` connections, the one waiting
    /// longest for a request head is shut down (this one, when no other waits).
    func opened(_ connection: UInt, socket: Int32, deadline: UInt64, now: UInt64 = now()) {
        lock.withLock {
            entries[connection] = Entry(socket: socket, deadline: deadline)
            idle.waiting(connection, since: now)
            guard entries.count - closingCount > limit, let oldest = idle.takeOldest() else { return }
            shutDown(oldest)
            evictedCount += 1
        }
    }

    func closed(_ connection: UInt) {
        lock.withLock {
            if entries.removeValue(forKey: connection)?.closing == true { closingCount -= 1 }
            idle.removed(connection)
        }
    }

    /// Sets a connection's deadline (0: none).
    func setDeadline(_ connection: UInt, _ deadline: UInt64) {
        lock.withLock { entries[connection]?.deadline = deadline }
    }

    /// Keeps the target of the request line that has just arrived on `connection`, as sent.
    func setTarget(_ connection: UInt, _ target: [UInt8]) {
        lock.withLock { entries[connection]?.target = target }
    }

    /// The target kept by ``setTarget(_:_:)`` for `connection`'s current request (once).
    func takeTarget(_ connection: UInt) -> [UInt8]? {
        lock.withLock {
            defer { entries[connection]?.target = nil }
            return entries[connection]?.target
        }
    }

    /// A request head arrived on `connection`: it is in flight (never evicted) until its end.
    func requestBegan(_ connection: UInt) {
        lock.withLock {
            inFlight += 1
            idle.inFlight(connection)
        }
    }

    /// A request ended; the connection's next head is due by `deadline`.
    func requestEnded(_ connection: UInt, nextHeadBy deadline: UInt64, now: UInt64 = now()) {
        lock.withLock {
            inFlight -= 1
            guard entries[connection] != nil else { return }
            entries[connection]?.deadline = deadline
            if entries[connection]?.closing == false { idle.waiting(connection, since: now) }
        }
    }

    /// Connections open.
    var count: Int { lock.withLock { entries.count } }

    /// Connections evicted so far to make room for new ones.
    var evictions: Int { lock.withLock { evictedCount } }

    /// Requests between a complete head and the end of their answer.
    var requestsInFlight: Int { lock.withLock { inFlight } }

    /// Shuts down the sockets of the connections past their deadline; returns how many.
    @discardableResult
    func reap(now: UInt64) -> Int {
        lock.withLock {
            var reaped = 0
            for (key, entry) in entries where entry.deadline != 0 && entry.deadline < now && !entry.closing {
                shutDown(key)
                reaped += 1
            }
            return reaped
        }
    }

    /// Shuts down `connection`'s socket; libmicrohttpd closes it and reports ``closed(_:)``.
    /// Called with the lock held.
    private func shutDown(_ connection: UInt) {
        guard let entry = entries[connection], !entry.closing else { return }
        shutdown(entry.socket, Int32(SHUT_RDWR))
        entries[connection]?.closing = true
        entries[connection]?.deadline = 0
        closingCount += 1
        idle.removed(connection)
    }
}
