import Dispatch
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// A group commit waits for the batches being decoded when it starts, and for nothing else.
/// The linger is set far longer than the hang guards, so that waiting out the linger fails a test
/// instead of passing it slowly.
struct GroupCommitLingerTests {
    static let day = Timestamp(iso8601: "2026-11-29T08:00:00.000Z")!
    /// Far shorter than the linger: a test that reaches it has waited for nothing.
    static let hangGuard = DispatchTimeInterval.seconds(30)

    /// Runs `body` with a store whose commits linger up to 120 s.
    func withLingeringStore(_ body: (SQLiteEventStore, Project) throws -> Void) throws {
        try withTemporaryStore("footprint-linger", configure: { $0.commitLinger = 120 }, body)
    }

    static func batch(_ id: String, project: Project) -> IngestBatch {
        let message = Message(type: .track, messageId: id, anonymousId: "a", event: "Tap", timestamp: day)
        return IngestBatch(
            projectId: project.id, events: [EventRecord(message: message, time: day, receivedAt: day)],
            receivedAt: day)
    }

    /// Writes `batch` and returns `done`, signalled once it is committed; the rows stored go to
    /// `stored`.
    @discardableResult
    static func write(
        _ batch: IngestBatch, to store: SQLiteEventStore, stored: SharedList<Int>,
        done: DispatchSemaphore = DispatchSemaphore(value: 0)
    ) -> DispatchSemaphore {
        store.write(batch) { result in
            stored.append((try? result.get().stored) ?? -1)
            done.signal()
        }
        return done
    }

    @Test func aBatchQueuedWhileAnotherIsDecodedSharesItsCommit() throws {
        try withLingeringStore { store, project throws in
            let groupsBefore = store.groupsCommitted
            let decoding = DispatchSemaphore(value: 0)
            let decoded = DispatchSemaphore(value: 0)
            let stored = SharedList<Int>()
            let second = DispatchSemaphore(value: 0)
            let thread = Thread {
                store.preparingWrite {
                    decoding.signal()
                    decoded.wait()
                    Self.write(Self.batch("m2", project: project), to: store, stored: stored, done: second)
                }
            }
            thread.start()
            decoding.wait()
            let first = Self.write(Self.batch("m1", project: project), to: store, stored: stored)
            // The writer has m1 and waits for the batch being decoded (without the linger it
            // would commit m1 alone, and this wait ends at the hang guard).
            let waitingSince = DispatchTime.now()
            while !store.writerIsLingering, DispatchTime.now() < waitingSince + Self.hangGuard {
                usleep(1000)
            }
            #expect(store.writerIsLingering)
            decoded.signal()
            #expect(first.wait(timeout: .now() + Self.hangGuard) == .success)
            #expect(second.wait(timeout: .now() + Self.hangGuard) == .success)
            #expect(stored.values == [1, 1])
            #expect(store.groupsCommitted == groupsBefore + 1)
            #expect(try store.eventCount(projectId: project.id) == 2)
        }
    }

    @Test func aLoneBatchIsCommittedWithoutWaiting() throws {
        try withLingeringStore { store, project throws in
            let stored = SharedList<Int>()
            let done = Self.write(Self.batch("m1", project: project), to: store, stored: stored)
            #expect(done.wait(timeout: .now() + Self.hangGuard) == .success)
            #expect(stored.values == [1])
        }
    }

    @Test func aDecodeThatEndsWithoutABatchReleasesTheGroup() throws {
        try withLingeringStore { store, project throws in
            let decoding = DispatchSemaphore(value: 0)
            let refused = DispatchSemaphore(value: 0)
            let thread = Thread {
                // A request refused while decoding (bad JSON, unknown key) writes nothing.
                store.preparingWrite {
                    decoding.signal()
                    refused.wait()
                }
            }
            thread.start()
            decoding.wait()
            let stored = SharedList<Int>()
            let first = Self.write(Self.batch("m1", project: project), to: store, stored: stored)
            refused.signal()
            #expect(first.wait(timeout: .now() + Self.hangGuard) == .success)
            #expect(stored.values == [1])
        }
    }
}
