import Testing

@testable import FootprintServer

/// The decisions about unsettled INSERTs alone: the replicas' answers are given, nothing is read.
/// The clusters' own tests are `ClickHouseSettlingTests` and `ClickHouseReplicaTests`.
struct UnsettledInsertsTests {
    typealias Message = ClickHouseSQL.Message
    typealias Answer = UnsettledInserts.Answer
    typealias StoredCopy = ClickHouseEventStore.StoredCopy

    func message(_ index: Int) -> Message { Message(device: "device-\(index)", messageId: "m\(index)") }

    func sent(_ index: Int, sequence: UInt64) -> StoredCopy {
        StoredCopy(device: "device-\(index)", messageId: "m\(index)", sequence: sequence)
    }

    /// A stored copy's row as a replica answers it (`device, message_id, sequence, user_id, time`).
    func copy(_ index: Int, sequence: UInt64) -> UnsettledInserts.Row {
        (
            fields: ["device-\(index)", "m\(index)", Substring(String(sequence)), "\\N", "1700000000000"],
            sequence
        )
    }

    /// An INSERT of project 1 with `mark` that sent `copies` (message index, sequence).
    func insert(_ mark: UInt64, _ copies: [(Int, UInt64)], since: Double = 0) -> UnsettledInserts.Insert {
        UnsettledInserts.Insert(
            projectId: 1, mark: mark, query: "q\(mark)", since: since,
            copies: copies.map { sent($0.0, sequence: $0.1) })
    }

    func sequences(_ rows: [UnsettledInserts.Row]) -> [String: [UInt64]] {
        Dictionary(grouping: rows) { UnsettledInserts.message(of: $0).messageId }.mapValues {
            $0.map(\.sequence).sorted()
        }
    }

    @Test func anInsertIsKeptWholeWithItsFirstTimeAndForgottenWhenSettled() {
        var kept = UnsettledInserts(capacity: 10)
        kept.add(
            [sent(1, sequence: 16), sent(2, sequence: 32)], projectId: 1, mark: 16, query: "q", now: 100)
        kept.add([sent(3, sequence: 48)], projectId: 1, mark: 16, query: "q", now: 200)
        kept.add([sent(1, sequence: 64)], projectId: 2, mark: 64, query: "q", now: 300)
        #expect(kept.count == 4)
        #expect(kept.inserts[.init(projectId: 1, mark: 16)]?.since == 100)
        #expect(kept.due(limit: 10)[1]?.map(\.copies.count) == [3])
        #expect(kept.due(limit: 10)[2]?.map(\.mark) == [64])
        kept.settle([16, 99], projectId: 1)
        #expect(kept.count == 1)
        #expect(kept.due(limit: 10)[1] == nil)
        #expect(kept.givenUp == 0)
    }

    @Test func pastItsCapacityTheOldestInsertsAreGivenUpWholeAndCounted() {
        var kept = UnsettledInserts(capacity: 3)
        for index in 0..<5 {
            kept.add(
                [sent(index, sequence: UInt64(index + 1) * 16)], projectId: 1, mark: UInt64(index + 1) * 16,
                query: "q", now: Double(index))
        }
        #expect(kept.count == 3)
        #expect(kept.givenUp == 2)
        #expect(kept.due(limit: 10)[1]?.map(\.mark) == [48, 64, 80])
        // Whole INSERTs, the oldest first, up to `limit` copies a project, and at least one.
        #expect(kept.due(limit: 2)[1]?.map(\.mark) == [48, 64])
        // One larger than the capacity alone is given up at once, the others kept.
        kept.add((10..<14).map { sent($0, sequence: 96) }, projectId: 1, mark: 96, query: "q", now: 9)
        #expect(kept.givenUp == 6)
        #expect(kept.due(limit: 10)[1]?.map(\.mark) == [48, 64, 80])
        kept.add((10..<12).map { sent($0, sequence: 112) }, projectId: 1, mark: 112, query: "q", now: 10)
        #expect(kept.givenUp == 8)
        #expect(kept.due(limit: 10)[1]?.map(\.mark) == [80, 112])
        #expect(UnsettledInserts(capacity: 0).capacity == 1)
    }

    /// A first copy that vanished (a part ZooKeeper never registered, detached after the resend's
    /// check recorded the resend's copy): a message whose every stored copy on a shard is recorded
    /// as redundant gets its first stored copy's record removed; a message with a counted copy
    /// keeps its records, and nothing is removed while the replicas disagree.
    @Test func aMessageWhoseEveryStoredCopyIsRecordedCountsItsFirstAgain() {
        let kept = insert(10, [(1, 10), (2, 11), (3, 12)])
        // Message 1's copy 10 is gone and the resends' 20 and 30 are recorded; message 2's first
        // (11) counts and the resend's (21) is recorded; message 3's copy 12 is gone, no resend.
        let held = Answer(
            copies: [
                copy(1, sequence: 30), copy(1, sequence: 20), copy(2, sequence: 11), copy(2, sequence: 21),
            ],
            marks: [10], recorded: [sent(1, sequence: 20), sent(1, sequence: 30), sent(2, sequence: 21)])
        let empty = Answer(copies: [], marks: [])
        let settlement = UnsettledInserts.settlement(of: [kept], answers: [[empty, empty], [held, held]])
        #expect(settlement.settled == [10])
        #expect(settlement.unrecorded.count == 1)
        #expect(settlement.unrecorded.first?.shard == 1)
        #expect(settlement.unrecorded.first?.copies == [sent(1, sequence: 20)])
        // The twin still holds copy 10 (the part not detached there yet): not settled.
        var twin = held
        twin.copies.append(copy(1, sequence: 10))
        let waiting = UnsettledInserts.settlement(of: [kept], answers: [[empty, empty], [held, twin]])
        #expect(waiting.settled.isEmpty && waiting.unrecorded.isEmpty)
    }

    @Test func nothingIsSettledWhileAnyReplicaCannotBeRead() {
        let answers: [[Answer?]] = [
            [
                Answer(copies: [copy(1, sequence: 16)], marks: [16]),
                Answer(copies: [copy(1, sequence: 16)], marks: [16]),
            ],
            [Answer(copies: [copy(2, sequence: 32)], marks: [16]), nil],
        ]
        let settlement = UnsettledInserts.settlement(of: [insert(16, [(1, 16), (2, 32)])], answers: answers)
        #expect(settlement.settled.isEmpty)
        #expect(settlement.copies.isEmpty && settlement.repairs.isEmpty && settlement.suspects.isEmpty)
    }

    /// The first defect: replica 1 of shard 1 took copy 16 of message 1 and died; the resend
    /// stored copy 48 on replica 2. Until replica 2 holds copy 16 too, the INSERT is unsettled;
    /// once both hold both, its messages' copies are both returned (the store records 48).
    @Test func aCopyOneReplicaHoldsAndItsTwinHasNotFetchedKeepsItsInsertUnsettled() {
        let inserts = [insert(16, [(1, 16), (2, 17)]), insert(20, [(3, 20)])]
        let before = UnsettledInserts.settlement(
            of: inserts,
            answers: [
                [
                    Answer(copies: [copy(1, sequence: 16), copy(2, sequence: 17)], marks: [16]),
                    Answer(copies: [copy(1, sequence: 48), copy(2, sequence: 17)], marks: []),
                ],
                [Answer(copies: [], marks: []), Answer(copies: [], marks: [])],
            ])
        // INSERT 20 stored nothing anywhere: settled, nothing to do.
        #expect(before.settled == [20])
        #expect(before.copies.isEmpty && before.repairs.isEmpty && before.suspects.isEmpty)
        let after = UnsettledInserts.settlement(
            of: inserts,
            answers: [
                [
                    Answer(
                        copies: [copy(1, sequence: 16), copy(1, sequence: 48), copy(2, sequence: 17)],
                        marks: [16]),
                    Answer(
                        copies: [copy(1, sequence: 48), copy(2, sequence: 17), copy(1, sequence: 16)],
                        marks: [16]),
                ],
                [Answer(copies: [], marks: []), Answer(copies: [], marks: [])],
            ])
        #expect(after.settled == [16, 20])
        #expect(sequences(after.copies) == ["m1": [16, 48], "m2": [17]])
        #expect(sequences(after.suspects) == ["m1": [16], "m2": [17]])
        #expect(after.repairs.isEmpty)
    }

    /// The second defect: a shard holds an INSERT's events without its mark (the INSERT was cut
    /// before `daily_counts` took them): those copies are repaired on that shard, and only
    /// there; the shard that holds the mark is not.
    @Test func aShardHoldingAnInsertsEventsWithoutItsMarkIsRepairedThere() {
        let inserts = [insert(16, [(1, 16), (2, 17), (3, 18)])]
        let settlement = UnsettledInserts.settlement(
            of: inserts,
            answers: [
                [
                    Answer(copies: [copy(1, sequence: 16), copy(3, sequence: 18)], marks: []),
                    Answer(copies: [copy(3, sequence: 18), copy(1, sequence: 16)], marks: []),
                ],
                [
                    Answer(copies: [copy(2, sequence: 17), copy(2, sequence: 40)], marks: [16]),
                    Answer(copies: [copy(2, sequence: 40), copy(2, sequence: 17)], marks: [16]),
                ],
            ])
        #expect(settlement.settled == [16])
        #expect(settlement.repairs.count == 1)
        #expect(settlement.repairs.first?.shard == 0)
        #expect(
            Set(settlement.repairs.first?.copies ?? []) == [sent(1, sequence: 16), sent(3, sequence: 18)])
        // Every stored copy of the INSERT's own makes its device suspect; the resend's (40) not.
        #expect(sequences(settlement.suspects) == ["m1": [16], "m2": [17], "m3": [18]])
        #expect(sequences(settlement.copies) == ["m1": [16], "m2": [17, 40], "m3": [18]])
    }

    /// A device with several stored copies of an INSERT is suspect once, with its latest copy's
    /// time (retention keeps the record while that event is kept).
    @Test func aDeviceIsSuspectOnceWithItsLatestStoredCopy() {
        func row(_ message: String, sequence: UInt64, time: Int64) -> UnsettledInserts.Row {
            (
                ["phone", Substring(message), Substring(String(sequence)), "\\N", Substring(String(time))],
                sequence
            )
        }
        let insert = UnsettledInserts.Insert(
            projectId: 1, mark: 16, query: "q16", since: 0,
            copies: [16, 17, 18].map { StoredCopy(device: "phone", messageId: "m\($0)", sequence: $0) })
        let rows = [
            row("m16", sequence: 16, time: 300), row("m17", sequence: 17, time: 900),
            row("m18", sequence: 18, time: 500),
        ]
        let settlement = UnsettledInserts.settlement(
            of: [insert],
            answers: [[Answer(copies: rows, marks: [16]), Answer(copies: rows.reversed(), marks: [16])]])
        #expect(settlement.settled == [16])
        #expect(settlement.suspects.map(\.sequence) == [17])
        #expect(settlement.repairs.isEmpty)
    }

    /// A mark one replica holds and its twin has yet to fetch (the view's part behind the
    /// events'), keeps the INSERT unsettled: a repair then would count its events twice.
    @Test func aMarkOnlyOneReplicaHoldsKeepsItsInsertUnsettled() {
        let inserts = [insert(16, [(1, 16)])]
        let answers: [[Answer?]] = [
            [
                Answer(copies: [copy(1, sequence: 16)], marks: [16]),
                Answer(copies: [copy(1, sequence: 16)], marks: []),
            ]
        ]
        #expect(UnsettledInserts.settlement(of: inserts, answers: answers).settled.isEmpty)
    }

    /// An INSERT that a server still runs (the collector's wait timed out, not the INSERT) is
    /// not settled: its views may yet add its mark, and a repair then would count it twice.
    @Test func anInsertAServerStillRunsIsNotSettled() {
        let inserts = [insert(16, [(1, 16)])]
        func answers(running: Set<String>) -> [[Answer?]] {
            [
                [
                    Answer(copies: [copy(1, sequence: 16)], marks: []),
                    Answer(copies: [copy(1, sequence: 16)], marks: []),
                ],
                [Answer(copies: [], marks: [], running: running), Answer(copies: [], marks: [])],
            ]
        }
        #expect(UnsettledInserts.settlement(of: inserts, answers: answers(running: ["q16"])).settled.isEmpty)
        let finished = UnsettledInserts.settlement(of: inserts, answers: answers(running: ["q99"]))
        #expect(finished.settled == [16])
        #expect(finished.repairs.map(\.shard) == [0])
    }

    /// A part ZooKeeper never registered stays on its replica (visible) until 18.16 drops it;
    /// its twin never fetches it. The INSERT stays unsettled until then.
    @Test func aPartOnlyOneReplicaWillEverHoldKeepsItsInsertUnsettledUntilDropped() {
        let inserts = [insert(16, [(1, 16)])]
        let held = UnsettledInserts.settlement(
            of: inserts,
            answers: [
                [
                    Answer(copies: [copy(1, sequence: 16), copy(1, sequence: 48)], marks: [16]),
                    Answer(copies: [copy(1, sequence: 48)], marks: []),
                ]
            ])
        #expect(held.settled.isEmpty)
        let dropped = UnsettledInserts.settlement(
            of: inserts,
            answers: [
                [
                    Answer(copies: [copy(1, sequence: 48)], marks: []),
                    Answer(copies: [copy(1, sequence: 48)], marks: []),
                ]
            ])
        #expect(dropped.settled == [16])
        #expect(sequences(dropped.copies) == ["m1": [48]])
        #expect(dropped.suspects.isEmpty && dropped.repairs.isEmpty)
    }

    /// Property: for random copies and marks on two replicas of each of two shards, an INSERT is
    /// settled exactly when every shard's replicas agree on its messages' copies and its mark; a
    /// settled one is repaired on exactly the shards that hold some of its copies and not its
    /// mark, with those copies.
    @Test func settledAndRepairedAreExactlyWhereTheReplicasAgreeAndTheMarkIsMissing() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let sentSequence: UInt64 = 16
            let inserts = [insert(sentSequence, (0..<6).map { ($0, sentSequence) })]
            var answers: [[Answer?]] = []
            var agree = true
            var expectedRepairs: [Int: Set<StoredCopy>] = [:]
            for shard in 0..<2 {
                var first: [UnsettledInserts.Row] = []
                var second: [UnsettledInserts.Row] = []
                let stored = Bool.random(using: &generator)
                for index in 0..<6 where index % 2 == shard {
                    var sequences = stored ? [sentSequence] : []
                    if Bool.random(using: &generator) { sequences.append(64) }
                    let lagging = Int.random(in: 0..<8, using: &generator) == 0 && !sequences.isEmpty
                    first += sequences.map { copy(index, sequence: $0) }
                    second += (lagging ? sequences.dropLast() : sequences[...]).map {
                        copy(index, sequence: $0)
                    }
                    if lagging { agree = false }
                }
                let marked = stored && Bool.random(using: &generator)
                let markLagging = marked && Int.random(in: 0..<8, using: &generator) == 0
                if markLagging { agree = false }
                if stored && !marked {
                    expectedRepairs[shard] = Set(
                        (0..<6).filter { $0 % 2 == shard }.map { sent($0, sequence: sentSequence) })
                }
                answers.append([
                    Answer(copies: first, marks: marked ? [sentSequence] : []),
                    Answer(
                        copies: second.shuffled(using: &generator),
                        marks: marked && !markLagging ? [sentSequence] : []),
                ])
            }
            let settlement = UnsettledInserts.settlement(of: inserts, answers: answers)
            #expect(settlement.settled == (agree ? [sentSequence] : []))
            guard agree else { continue }
            #expect(
                Dictionary(uniqueKeysWithValues: settlement.repairs.map { ($0.shard, Set($0.copies)) })
                    == expectedRepairs)
            #expect(settlement.suspects.allSatisfy { $0.sequence == sentSequence })
        }
    }
}
