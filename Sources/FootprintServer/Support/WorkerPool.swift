import Foundation

/// A fixed set of threads that run submitted work in order, with a bounded queue: where the
/// server runs what may take long (reports, dashboard pages), away from the HTTP event loop.
public final class WorkerPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var stopping = false
    private var running = 0
    private let maximumQueued: Int

    /// Starts `threads` threads.
    /// - Parameters:
    ///   - name: the threads' name.
    ///   - threads: how many run work at once (at least 1).
    ///   - maximumQueued: the most pieces of work waiting; ``submit(_:)`` refuses more.
    public init(name: String, threads: Int, maximumQueued: Int) {
        self.maximumQueued = max(1, maximumQueued)
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in run() }
            thread.name = "\(name)-\(index)"
            running += 1
            thread.start()
        }
    }

    /// Queues `work`; `false` (and nothing queued) when the queue is full or the pool stopped.
    @discardableResult
    public func submit(_ work: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping, queue.count - head < maximumQueued else { return false }
        queue.append(work)
        condition.signal()
        return true
    }

    /// Work waiting for a thread.
    public var queued: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.count - head
    }

    /// Runs what is queued, then ends the threads; returns once they have ended.
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            if head < queue.count {
                let work = queue[head]
                head += 1
                if head > 64, head * 2 > queue.count {
                    queue.removeFirst(head)
                    head = 0
                }
                condition.unlock()
                work()
                condition.lock()
            } else if stopping {
                running -= 1
                condition.broadcast()
                condition.unlock()
                return
            } else {
                condition.wait()
            }
        }
    }
}
