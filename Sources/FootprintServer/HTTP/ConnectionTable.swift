import Dispatch
import Foundation

/// The open connections of an ``HTTPServer`` and the deadline each must meet: the head of its
/// next request, or the end of the body it is sending. A timer closes the connections past
/// their deadline (libmicrohttpd itself only notices silence, not a client that trickles bytes).
///
/// A connection's socket is shut down, never closed, here: libmicrohttpd closes it after it has
/// told ``closed(_:)``, which takes the same lock, so a descriptor number reused by a newer
/// connection is never touched.
final class ConnectionTable: @unchecked Sendable {
    private struct Entry {
        var socket: Int32
        /// Monotonic nanoseconds; 0 while a request is being handled (no deadline).
        var deadline: UInt64
    }

    private let lock = NSLock()
    private var entries: [UInt: Entry] = [:]
    private var inFlight = 0
    private var timer: (any DispatchSourceTimer)?

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

    func opened(_ connection: UInt, socket: Int32, deadline: UInt64) {
        lock.withLock { entries[connection] = Entry(socket: socket, deadline: deadline) }
    }

    func closed(_ connection: UInt) {
        lock.withLock { _ = entries.removeValue(forKey: connection) }
    }

    /// Sets a connection's deadline (0: none).
    func setDeadline(_ connection: UInt, _ deadline: UInt64) {
        lock.withLock { entries[connection]?.deadline = deadline }
    }

    func requestBegan() { lock.withLock { inFlight += 1 } }

    /// A request ended; the connection's next head is due by `deadline`.
    func requestEnded(_ connection: UInt, nextHeadBy deadline: UInt64) {
        lock.withLock {
            inFlight -= 1
            entries[connection]?.deadline = deadline
        }
    }

    /// Connections open.
    var count: Int { lock.withLock { entries.count } }

    /// Requests between a complete head and the end of their answer.
    var requestsInFlight: Int { lock.withLock { inFlight } }

    /// Shuts down the sockets of the connections past their deadline; returns how many.
    @discardableResult
    func reap(now: UInt64) -> Int {
        lock.withLock {
            var reaped = 0
            for (key, entry) in entries where entry.deadline != 0 && entry.deadline < now {
                shutdown(entry.socket, Int32(SHUT_RDWR))
                entries[key]?.deadline = 0
                reaped += 1
            }
            return reaped
        }
    }
}
