import Dispatch
import Foundation
import Testing

@testable import FootprintServer

/// With an interval, a group commit starts at most once per interval: writes that come sooner
/// wait for the rest of it and share one commit (the ClickHouse store's `--insert-interval`).
/// The interval is set far longer than the hang guards, and closing the queue ends the wait, so
/// no test waits out an interval or depends on the machine's speed.
struct GroupCommitIntervalTests {
    static let hangGuard = DispatchTimeInterval.seconds(30)

    /// A queue with `interval` that records each group it commits.
    static func queue(interval: Double) -> (GroupCommitQueue<String, Int>, SharedList<[String]>) {
        let queue = GroupCommitQueue<String, Int>(
            label: "footprint.test.interval", linger: 0, interval: interval)
        let groups = SharedList<[String]>()
        queue.start { batches in
            groups.append(batches)
            return .success(batches.map(\.count))
        }
        return (queue, groups)
    }

    /// Queues `batch`; the returned semaphore is signalled once its commit is done.
    static func write(_ batch: String, to queue: GroupCommitQueue<String, Int>) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        queue.write(batch) { _ in done.signal() }
        return done
    }

    /// Waits (at most the hang guard) until the next group waits for the rest of the interval.
    static func waitUntilWaiting(_ queue: GroupCommitQueue<String, Int>) -> Bool {
        let since = DispatchTime.now()
        while !queue.isWaitingForInterval, DispatchTime.now() < since + hangGuard { usleep(1000) }
        return queue.isWaitingForInterval
    }

    @Test func writesWithinTheIntervalShareOneCommit() throws {
        let (queue, groups) = Self.queue(interval: 10)
        // The first group has no earlier one to keep apart from: it is committed at once.
        #expect(Self.write("a", to: queue).wait(timeout: .now() + Self.hangGuard) == .success)
        let second = Self.write("b", to: queue)
        // Without the interval, b would be committed alone now and this wait end at the guard.
        #expect(Self.waitUntilWaiting(queue))
        let third = Self.write("c", to: queue)
        // Closing ends the wait: b and c go in one group.
        queue.close()
        #expect(second.wait(timeout: .now() + Self.hangGuard) == .success)
        #expect(third.wait(timeout: .now() + Self.hangGuard) == .success)
        #expect(groups.values == [["a"], ["b", "c"]])
        #expect(queue.groupsCommitted == 2)
    }

    @Test func withoutAnIntervalNoGroupWaits() throws {
        let (queue, groups) = Self.queue(interval: 0)
        for batch in ["a", "b", "c"] {
            #expect(Self.write(batch, to: queue).wait(timeout: .now() + Self.hangGuard) == .success)
            #expect(!queue.isWaitingForInterval)
        }
        queue.close()
        #expect(groups.values == [["a"], ["b"], ["c"]])
    }

    @Test(arguments: [-1, Double.nan, Double.infinity, 1e9])
    func anOutOfRangeIntervalIsClamped(interval: Double) throws {
        // A negative, NaN or infinite interval means none; a huge one at most 10 s; either way
        // closing the queue ends any wait.
        let (queue, groups) = Self.queue(interval: interval)
        #expect(Self.write("a", to: queue).wait(timeout: .now() + Self.hangGuard) == .success)
        let second = Self.write("b", to: queue)
        queue.close()
        #expect(second.wait(timeout: .now() + Self.hangGuard) == .success)
        #expect(groups.values.flatMap { $0 } == ["a", "b"])
    }
}
