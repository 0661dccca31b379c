import Testing

@testable import FootprintServer

/// The decisions about unsettled messages alone: the replicas' answers are given, nothing is
/// read. The replicated cluster's own test is `ClickHouseReplicaTests`.
struct UnsettledMessagesTests {
    typealias Message = ClickHouseSQL.Message

    func message(_ index: Int) -> Message { Message(device: "device-\(index)", messageId: "m\(index)") }

    /// A stored copy's row as a replica answers it (`device, message_id, sequence, user_id, time`).
    func copy(_ index: Int, sequence: UInt64) -> UnsettledMessages.Row {
        (
            fields: ["device-\(index)", "m\(index)", Substring(String(sequence)), "\\N", "1700000000000"],
            sequence
        )
    }

    func sequences(_ rows: [UnsettledMessages.Row]) -> [String: [UInt64]] {
        Dictionary(grouping: rows) { UnsettledMessages.message(of: $0).messageId }.mapValues {
            $0.map(\.sequence).sorted()
        }
    }

    @Test func aMessageIsKeptOnceWithItsFirstTimeAndForgottenWhenSettled() {
        var kept = UnsettledMessages(capacity: 10)
        kept.add([message(1), message(2)], projectId: 1, now: 100)
        kept.add([message(1)], projectId: 1, now: 200)
        kept.add([message(1)], projectId: 2, now: 300)
        #expect(kept.count == 3)
        #expect(kept.since[.init(projectId: 1, message: message(1))] == 100)
        #expect(kept.due(limit: 10)[1]?.count == 2)
        #expect(kept.due(limit: 10)[2] == [message(1)])
        kept.settle([message(1), message(3)], projectId: 1)
        #expect(kept.count == 2)
        #expect(kept.due(limit: 10)[1] == [message(2)])
        #expect(kept.givenUp == 0)
    }

    @Test func pastItsCapacityTheOldestAreGivenUpAndCounted() {
        var kept = UnsettledMessages(capacity: 3)
        for index in 0..<5 { kept.add([message(index)], projectId: 1, now: Double(index)) }
        #expect(kept.count == 3)
        #expect(kept.givenUp == 2)
        #expect(Set(kept.due(limit: 10)[1] ?? []) == [message(2), message(3), message(4)])
        // The oldest first, at most `limit` per project.
        #expect(kept.due(limit: 2)[1] == [message(2), message(3)])
        #expect(UnsettledMessages(capacity: 0).capacity == 1)
    }

    @Test func nothingIsSettledWhileAnyReplicaCannotBeRead() {
        let messages: Set = [message(1), message(2)]
        let answers: [[[UnsettledMessages.Row]?]] = [
            [[copy(1, sequence: 16)], [copy(1, sequence: 16)]],
            [[copy(2, sequence: 32)], nil],
        ]
        let settlement = UnsettledMessages.settlement(of: messages, answers: answers)
        #expect(settlement.settled.isEmpty)
        #expect(settlement.copies.isEmpty)
    }

    /// The defect this type fixes: replica 1 of shard 1 took copy 16 of message 1 and died; the
    /// resend stored copy 48 on replica 2. Until replica 2 holds copy 16 too, message 1 is
    /// unsettled; once both hold both, its copies are both returned (the store records 48).
    @Test func aCopyOneReplicaHoldsAndItsTwinHasNotFetchedKeepsItsMessageUnsettled() {
        let messages: Set = [message(1), message(2), message(3)]
        let before = UnsettledMessages.settlement(
            of: messages,
            answers: [
                [
                    [copy(1, sequence: 16), copy(2, sequence: 17)],
                    [copy(1, sequence: 48), copy(2, sequence: 17)],
                ],
                [[], []],
            ])
        // Message 2: the same copy on both; message 3: stored nowhere (the INSERT never took).
        #expect(before.settled == [message(2), message(3)])
        #expect(sequences(before.copies) == ["m2": [17]])
        let after = UnsettledMessages.settlement(
            of: messages,
            answers: [
                [
                    [copy(1, sequence: 16), copy(1, sequence: 48), copy(2, sequence: 17)],
                    [copy(1, sequence: 48), copy(2, sequence: 17), copy(1, sequence: 16)],
                ],
                [[], []],
            ])
        #expect(after.settled == messages)
        #expect(sequences(after.copies) == ["m1": [16, 48], "m2": [17]])
    }

    /// A part ZooKeeper never registered stays on its replica (visible) until 18.16 drops it;
    /// its twin never fetches it. The message stays unsettled until then.
    @Test func aPartOnlyOneReplicaWillEverHoldKeepsItsMessageUnsettledUntilDropped() {
        let messages: Set = [message(1)]
        let held = UnsettledMessages.settlement(
            of: messages,
            answers: [[[copy(1, sequence: 16), copy(1, sequence: 48)], [copy(1, sequence: 48)]]])
        #expect(held.settled.isEmpty)
        let dropped = UnsettledMessages.settlement(
            of: messages, answers: [[[copy(1, sequence: 48)], [copy(1, sequence: 48)]]])
        #expect(dropped.settled == messages)
        #expect(sequences(dropped.copies) == ["m1": [48]])
    }

    /// Property: for random copy sets on two replicas of each of two shards, a message is settled
    /// exactly when every shard's replicas hold the same sequences of it, and the copies returned
    /// are those of the settled messages, each once.
    @Test func settledIsExactlyWhereTheReplicasAgree() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let messages = Set((0..<6).map(message))
            var answers: [[[UnsettledMessages.Row]?]] = []
            var agree: [Message: Bool] = [:]
            for shard in 0..<2 {
                var first: [UnsettledMessages.Row] = []
                var second: [UnsettledMessages.Row] = []
                for index in 0..<6 where index % 2 == shard {
                    let sequences = (0..<Int.random(in: 0...2, using: &generator)).map {
                        UInt64(16 * ($0 + 1))
                    }
                    let lagging = Bool.random(using: &generator) && !sequences.isEmpty
                    first += sequences.map { copy(index, sequence: $0) }
                    second += (lagging ? sequences.dropLast() : sequences[...]).map {
                        copy(index, sequence: $0)
                    }
                    agree[message(index)] = !lagging
                }
                answers.append([first, second.shuffled(using: &generator)])
            }
            let settlement = UnsettledMessages.settlement(of: messages, answers: answers)
            #expect(settlement.settled == Set(messages.filter { agree[$0] == true }))
            #expect(
                settlement.copies.count
                    == answers.flatMap { $0[0] ?? [] }.count {
                        settlement.settled.contains(UnsettledMessages.message(of: $0))
                    })
        }
    }
}
