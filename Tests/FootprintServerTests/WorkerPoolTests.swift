import Dispatch
import Foundation
import Testing

@testable import FootprintServer

/// The bounded pools that keep slow work off the HTTP event loop.
struct WorkerPoolTests {
    @Test func workPastTheQueueBoundIsRefusedAndQueuedWorkRunsBeforeStop() throws {
        let pool = WorkerPool(name: "test.pool", threads: 1, maximumQueued: 2)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ran = SharedList<String>()
        #expect(
            pool.submit {
                started.signal()
                release.wait()
                ran.append("first")
            })
        started.wait()
        // The only thread is busy: two may wait, a third is refused.
        #expect(pool.submit { ran.append("second") })
        #expect(pool.submit { ran.append("third") })
        #expect(!pool.submit { ran.append("refused") })
        #expect(pool.queued == 2)
        release.signal()
        pool.stop()
        #expect(ran.values == ["first", "second", "third"])
        #expect(!pool.submit { ran.append("after stop") })
    }

    @Test func severalThreadsRunWorkAtOnce() throws {
        let pool = WorkerPool(name: "test.pool", threads: 3, maximumQueued: 10)
        defer { pool.stop() }
        let arrived = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<3 {
            pool.submit {
                arrived.signal()
                release.wait()
            }
        }
        // All three block at once, so each needs its own thread (hang guard: 30 s each).
        for _ in 0..<3 { #expect(arrived.wait(timeout: .now() + 30) == .success) }
        for _ in 0..<3 { release.signal() }
    }
}
