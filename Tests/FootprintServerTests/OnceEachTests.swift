import Dispatch
import Foundation
import Testing

@testable import FootprintServer

/// ``OnceEach``: what the reads of one report share (the ClickHouse store's settled lookups).
struct OnceEachTests {
    @Test func manyCallersOfOneKeyComputeItOnceAndTakeTheSameValue() throws {
        let once = OnceEach<Int, Int>()
        let computed = LockedValue(0)
        let answers = LockedValue<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 32) { index in
            let value = try? once.value(index % 2) { () throws(ServerError) in
                computed.withLock { $0 += 1 }
                // Long enough for the other callers to arrive while it runs.
                Thread.sleep(forTimeInterval: 0.01)
                return 100 + index % 2
            }
            answers.withLock { $0.append(value ?? -1) }
        }
        #expect(computed.withLock { $0 } == 2)
        #expect(
            answers.withLock { $0 }.sorted() == Array(repeating: 100, count: 16)
                + Array(repeating: 101, count: 16))
        #expect(once.count == 2)
    }

    @Test func aFailureIsTheAnswerOfEveryLaterCaller() {
        let once = OnceEach<String, Int>()
        var calls = 0
        for _ in 0..<3 {
            #expect(throws: ServerError.self) {
                try once.value("round") { () throws(ServerError) in
                    calls += 1
                    throw ServerError(code: .unavailable, message: "node down")
                }
            }
        }
        #expect(calls == 1)
    }

    @Test func aKeyBeingComputedDoesNotHoldUpAnother() throws {
        let once = OnceEach<Int, Int>()
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let slowDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? once.value(1) { () throws(ServerError) in
                started.signal()
                release.wait()
                return 1
            }
            slowDone.signal()
        }
        started.wait()
        // Key 1 is still computing (it waits for `release`): key 2 is answered anyway.
        let other = try once.value(2) { () throws(ServerError) in 2 }
        #expect(other == 2)
        release.signal()
        slowDone.wait()
        #expect(try once.value(1) { () throws(ServerError) in 0 } == 1)
    }
}
