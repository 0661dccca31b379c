import FootprintWire
import Testing

@testable import FootprintServer

/// The copy check's decision alone (``CopyDecision``): the stored copies are given, nothing is
/// read. The clusters' own tests are `ClickHouseAgreementTests` and `ClickHouseClusterTests`.
struct CopyDecisionTests {
    typealias StoredCopy = ClickHouseEventStore.StoredCopy

    /// A stored copy's row as the shards answer it (`device, message_id, sequence, user_id, time`).
    func copy(_ message: Int, sequence: UInt64, device: String? = nil) -> UnsettledInserts.Row {
        (
            fields: [
                Substring(device ?? "device-\(message % 3)"), "m\(message)", Substring(String(sequence)),
                "\\N",
                "1700000000000",
            ],
            sequence
        )
    }

    func recorded(_ decision: CopyDecision) -> [String] {
        decision.redundant.map { "\($0.fields[1])@\($0.sequence)" }.sorted()
    }

    @Test func everyCopyAfterTheFirstStoredIsRecorded() {
        let decision = CopyDecision([
            copy(1, sequence: 30), copy(1, sequence: 10), copy(1, sequence: 20), copy(2, sequence: 5),
        ])
        #expect(recorded(decision) == ["m1@20", "m1@30"])
        #expect(
            decision.first
                == [
                    StoredCopy(device: "device-1", messageId: "m1", sequence: 10),
                    StoredCopy(device: "device-2", messageId: "m2", sequence: 5),
                ])
        #expect(decision.tied == 0)
        #expect(decision.devices == ["device-1"])
        #expect(CopyDecision([]).redundant.isEmpty && CopyDecision([]).first.isEmpty)
    }

    /// The defect behind a failed CI run: two collectors of one tag gave one message's copies the
    /// same sequence. Neither may be recorded (a record would leave out both, and the message
    /// would count nowhere); the tie is counted so that `/metrics` shows it.
    @Test func copiesTiedOnTheFirstSequenceAreNeitherRecordedButCounted() {
        let decision = CopyDecision([
            copy(1, sequence: 10), copy(1, sequence: 10), copy(1, sequence: 26), copy(2, sequence: 7),
            copy(2, sequence: 7), copy(3, sequence: 4), copy(3, sequence: 9), copy(3, sequence: 9),
        ])
        #expect(recorded(decision) == ["m1@26", "m3@9", "m3@9"], "a tie after the first is recorded")
        #expect(decision.tied == 2)
        #expect(decision.first.count == 3)
    }

    /// The same copies in any order give the same records: each message keeps its smallest
    /// sequence, and exactly the copies above it are recorded.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func theDecisionIsTheSameInAnyOrder(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var rows: [UnsettledInserts.Row] = []
        for _ in 0..<200 {
            rows.append(
                copy(Int.random(in: 0..<40, using: &random), sequence: .random(in: 0..<60, using: &random)))
        }
        let decision = CopyDecision(rows)
        var shuffled = rows
        shuffled.shuffle(using: &random)
        #expect(recorded(CopyDecision(shuffled)) == recorded(decision))
        for (message, copies) in Dictionary(grouping: rows, by: { String($0.fields[1]) }) {
            let smallest = copies.map(\.sequence).min() ?? 0
            let ofMessage = decision.redundant.filter { $0.fields[1] == message }
            #expect(ofMessage.count == copies.count(where: { $0.sequence > smallest }))
            #expect(ofMessage.allSatisfy { $0.sequence > smallest })
            #expect(decision.first.contains { $0.messageId == message && $0.sequence == smallest })
        }
        let tied = Dictionary(grouping: rows, by: { String($0.fields[1]) }).values.count { copies in
            let smallest = copies.map(\.sequence).min() ?? 0
            return copies.count(where: { $0.sequence == smallest }) > 1
        }
        #expect(decision.tied == tied)
    }
}
