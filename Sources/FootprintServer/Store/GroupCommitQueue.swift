import Dispatch
import Foundation

/// Group commit for any store: requests queue their batches, and one serial queue hands
/// everything queued so far to `commit` at once (one SQLite transaction, one ClickHouse INSERT),
/// then calls each request's completion with its own outcome.
///
/// Nothing waits on a thread meanwhile: the HTTP layer suspends the connection and the
/// completion resumes it. A group about to be committed waits a moment (at most `linger`) for
/// the batches being prepared at that instant (``preparingWrite(_:)``: decoded on other
/// threads), so that a few clients that each wait for their answer share one commit instead of
/// alternating small ones. A lone request, with nothing else being prepared, never waits.
///
/// With an `interval`, a group is also taken at most once per interval: a write queued sooner
/// after the previous group started waits for the rest of it, so that a store whose every commit
/// costs much on its own (a ClickHouse INSERT makes a part) gets fewer, larger ones under load.
final class GroupCommitQueue<Batch: Sendable, Outcome: Sendable>: @unchecked Sendable {
    /// Commits a group of batches on the queue: one outcome per batch, in order, or one failure
    /// for all of them.
    typealias Commit = ([Batch]) -> Result<[Outcome], ServerError>

    /// A batch waiting for its commit, and where its result goes.
    private struct PendingWrite {
        let batch: Batch
        let completion: @Sendable (Result<Outcome, ServerError>) -> Void
    }

    private struct State {
        var writes: [PendingWrite] = []
        var draining = false
        var closed = false
        /// Batches inside ``preparingWrite(_:)`` right now.
        var preparing = 0
        /// Groups taken for a commit so far.
        var groups = 0
        /// Whether the next group is waiting for batches being prepared.
        var lingering = false
        /// Whether the next group is waiting for the rest of the interval.
        var waitingForInterval = false
    }

    /// The serial queue commits run on; ``sync(_:)`` runs other work between them.
    private let queue: DispatchQueue
    /// Guards `state`; signalled when a write is queued or a preparation ends.
    private let condition = NSCondition()
    private var state = State()
    /// The longest a group waits for batches being prepared, in seconds.
    private let linger: Double
    /// The shortest time between the starts of two groups, in seconds (0: none).
    private let interval: Double
    /// When the last group was taken.
    private var lastGroup = Date.distantPast
    /// Set once by ``start(committing:)``; read only on `queue`.
    private var commit: Commit?

    /// - Parameters:
    ///   - label: the queue's name.
    ///   - linger: the longest a group waits for batches being prepared, in seconds (0: never).
    ///   - interval: the shortest time between the starts of two groups, in seconds (0: a group
    ///     is taken as soon as the previous commit ended); at most 10.
    init(label: String, linger: Double, interval: Double = 0) {
        self.queue = DispatchQueue(label: label)
        self.linger = linger.isFinite ? max(0, linger) : 0
        self.interval = interval.isFinite ? min(10, max(0, interval)) : 0
    }

    /// Sets what commits a group (before the first write; a write queued earlier waits for it).
    func start(committing commit: @escaping Commit) {
        queue.sync { self.commit = commit }
    }

    /// Queues `batch` and blocks until it is committed (or the commit failed).
    func write(_ batch: Batch) throws(ServerError) -> Outcome {
        let done = DispatchSemaphore(value: 0)
        let result = LockedValue<Result<Outcome, ServerError>?>(nil)
        write(batch) { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0 }!.get()
    }

    /// Queues `batch`; `completion` runs on the queue once it is committed (or the commit
    /// failed), or at once when the queue is closed.
    func write(_ batch: Batch, completion: @escaping @Sendable (Result<Outcome, ServerError>) -> Void) {
        let write = PendingWrite(batch: batch, completion: completion)
        let admission = withState { state -> GroupAdmission in
            if state.closed { return .closed }
            state.writes.append(write)
            if state.draining {
                // A lingering group may be waiting for this one.
                condition.broadcast()
                return .joined
            }
            state.draining = true
            return .startDrain
        }
        switch admission {
        case .closed: completion(.failure(ServerError(code: .closed, message: "the store is closed")))
        case .startDrain: queue.async { self.drain() }
        case .joined: break
        }
    }

    /// Runs `body`, which prepares a batch and hands it to ``write(_:completion:)``; meanwhile a
    /// group about to be committed may wait for that batch (at most `linger`).
    func preparingWrite<T>(_ body: () throws -> T) rethrows -> T {
        withState { $0.preparing += 1 }
        defer {
            withState { state in
                state.preparing -= 1
                condition.broadcast()
            }
        }
        return try body()
    }

    /// Batches waiting for the next group commit.
    var queuedWrites: Int { withState { $0.writes.count } }

    /// Groups of batches committed (or failed) so far.
    var groupsCommitted: Int { withState { $0.groups } }

    /// Whether the next group is waiting for batches being prepared.
    var isLingering: Bool { withState { $0.lingering } }

    /// Whether the next group is waiting for the rest of the interval since the last one.
    var isWaitingForInterval: Bool { withState { $0.waitingForInterval } }

    /// Runs `body` on the queue, between group commits.
    func sync<T>(_ body: () throws -> T) rethrows -> T {
        try queue.sync(execute: body)
    }

    /// Refuses new writes, commits the queued ones, then runs `finish` on the queue.
    func close(then finish: () -> Void = {}) {
        withState { state in
            state.closed = true
            condition.broadcast()
        }
        queue.sync {
            self.drainNow()
            finish()
        }
    }

    private func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body(&state)
    }

    private func drain() {
        while drainNow() {}
    }

    /// Commits every queued write as one group; returns whether there was any.
    @discardableResult
    private func drainNow() -> Bool {
        let group = takeGroup()
        guard !group.isEmpty else { return false }
        let outcome =
            commit?(group.map(\.batch))
            ?? .failure(ServerError(code: .closed, message: "the store is not open for writing"))
        for (index, write) in group.enumerated() {
            write.completion(outcome.map { $0[index] })
        }
        return true
    }

    /// Takes every queued write, after waiting (at most `linger`) for the batches being prepared
    /// at this instant, not for ones started meanwhile. Ends the drain when there is none.
    private func takeGroup() -> [PendingWrite] {
        condition.lock()
        defer { condition.unlock() }
        if interval > 0, !state.writes.isEmpty, !state.closed {
            // Writes queued meanwhile join this group; closing ends the wait.
            let deadline = lastGroup.addingTimeInterval(interval)
            state.waitingForInterval = true
            while !state.closed, condition.wait(until: deadline) {}
            state.waitingForInterval = false
        }
        if linger > 0, state.preparing > 0, !state.writes.isEmpty, !state.closed {
            let awaited = state.writes.count + state.preparing
            let deadline = Date(timeIntervalSinceNow: linger)
            state.lingering = true
            // `state` is read afresh after each wait: other threads change it meanwhile.
            while state.preparing > 0, state.writes.count < awaited, !state.closed,
                condition.wait(until: deadline)
            {}
            state.lingering = false
        }
        let taken = state.writes
        state.writes = []
        if taken.isEmpty {
            state.draining = false
        } else {
            state.groups += 1
            lastGroup = Date()
        }
        return taken
    }
}

/// What queuing a write led to.
private enum GroupAdmission { case startDrain, joined, closed }
