import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// Which connection a full table gives up: ``IdleConnections`` alone, then ``ConnectionTable``
/// over real sockets (a socket pair per connection, so a shutdown is seen at the other end).
struct IdleConnectionsTests {
    @Test func theConnectionWaitingLongestIsTakenFirst() {
        var idle = IdleConnections()
        idle.waiting(1, since: 10)
        idle.waiting(2, since: 20)
        idle.waiting(3, since: 30)
        #expect(idle.takeOldest() == 1)
        #expect(idle.takeOldest() == 2)
        #expect(idle.count == 1)
    }

    @Test func aConnectionInFlightIsNeverTakenAndWaitsAnewAfterItsAnswer() {
        var idle = IdleConnections()
        idle.waiting(1, since: 10)
        idle.waiting(2, since: 20)
        idle.inFlight(1)
        #expect(!idle.isWaiting(1))
        #expect(idle.takeOldest() == 2)
        #expect(idle.takeOldest() == nil, "1 is in flight")
        idle.waiting(1, since: 40)
        idle.waiting(3, since: 50)
        #expect(idle.takeOldest() == 1, "waiting since its answer, before 3")
    }

    @Test func aClosedConnectionIsNotTakenEvenWhenItsKeyIsReused() {
        var idle = IdleConnections()
        idle.waiting(7, since: 10)
        idle.waiting(8, since: 20)
        idle.removed(7)
        idle.waiting(7, since: 30)  // a new connection at the same address
        #expect(idle.takeOldest() == 8)
        #expect(idle.takeOldest() == 7)
        #expect(idle.takeOldest() == nil)
    }

    /// Against a plain model (the waiting connections in a list, oldest first), over random
    /// operations.
    @Test func randomOperationsMatchAModelAndTheQueueStaysBounded() {
        var random = SeededRandom(seed: 42)
        var idle = IdleConnections()
        // The waiting connections in the order they began to wait.
        var model: [UInt] = []
        var now: UInt64 = 1
        for _ in 0..<20_000 {
            now += UInt64.random(in: 0...3, using: &random)
            let connection = UInt.random(in: 0..<200, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                model.removeAll { $0 == connection }
                idle.waiting(connection, since: now)
                model.append(connection)
            case 1:
                model.removeAll { $0 == connection }
                idle.inFlight(connection)
            case 2:
                model.removeAll { $0 == connection }
                idle.removed(connection)
            default:
                #expect(idle.takeOldest() == model.first)
                if !model.isEmpty { model.removeFirst() }
            }
            #expect(idle.count == model.count)
        }
    }

    /// Three slots: the fourth connection evicts the one idle longest, never the one whose
    /// request is in flight; when every other slot is in flight, the newcomer is shut itself.
    @Test func aFullTableEvictsTheLongestIdleConnectionAndNeverOneInFlight() throws {
        let table = ConnectionTable(limit: 3)
        var pairs: [(server: Int32, client: Int32)] = []
        defer {
            for pair in pairs {
                close(pair.server)
                close(pair.client)
            }
        }
        func open(_ key: UInt, at time: UInt64) throws {
            var ends: [Int32] = [0, 0]
            try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
            pairs.append((ends[0], ends[1]))
            table.opened(key, socket: ends[0], deadline: .max, now: time)
        }
        func isShut(_ key: UInt) -> Bool { LoopbackClient.wasClosed(pairs[Int(key) - 1].client) }

        try open(1, at: 10)
        try open(2, at: 20)
        try open(3, at: 30)
        table.requestBegan(1)  // 1's head arrived: in flight
        try open(4, at: 40)
        #expect(!isShut(1), "in flight")
        #expect(isShut(2), "idle longest")
        #expect(!isShut(3))
        #expect(table.evictions == 1)
        table.closed(2)

        table.requestBegan(3)
        table.requestBegan(4)
        try open(5, at: 50)
        #expect(isShut(5), "every other connection is in flight: the newcomer goes")
        #expect(!isShut(1) && !isShut(3) && !isShut(4))
        table.closed(5)

        table.requestEnded(1, nextHeadBy: .max, now: 60)
        try open(6, at: 70)
        #expect(isShut(1), "idle again since its answer, and the only one idle before 6")
        #expect(!isShut(6))
        #expect(table.evictions == 3)
    }
}
