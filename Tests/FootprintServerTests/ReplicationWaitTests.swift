import FootprintWire
import Testing

@testable import FootprintServer

/// The wait before a write on replicated shards is answered, alone: the replicas' reports are
/// given, nothing is read. The clusters' own test is in `ClickHouseReplicaTests`.
struct ReplicationWaitTests {
    typealias Report = ReplicationWait.Report

    /// A report of the tables `events` and `daily` with these log entries and parts to fetch.
    func report(
        max: UInt64 = 10, pointer: UInt64, fetching: [String: Set<String>] = [:], readOnly: Bool = false,
        delay: UInt64 = 0
    ) -> Report {
        Report(
            tables: ["events", "daily"].map {
                ReplicationWait.Table(
                    name: $0, logMaxIndex: max, logPointer: pointer, readOnly: readOnly, absoluteDelay: delay)
            },
            fetching: fetching)
    }

    @Test func aTwinHoldsTheWriteOnceItPulledTheLogAndFetchedThePartsItHadThen() {
        // The replica that took the INSERT pulled its own entries; its twin has not yet.
        var wait = ReplicationWait(
            first: [[report(pointer: 11), report(pointer: 9, fetching: ["events": ["old"]])]], maximumDelay: 5
        )
        #expect(wait.states == [[.holds, .pulling]])
        #expect(wait.waitingFor.map(\.replica) == [1])
        // Pulled: the parts it has to fetch now (the write's among them) are waited for.
        wait.observe(
            report(max: 12, pointer: 11, fetching: ["events": ["a", "old"], "daily": ["b"]]), shard: 0,
            replica: 1)
        #expect(wait.states[0][1] == .fetching(["events": ["a", "old"], "daily": ["b"]]))
        // Parts logged later are not: the others are fetched one by one.
        wait.observe(
            report(max: 13, pointer: 14, fetching: ["events": ["a", "c"], "daily": ["d"]]), shard: 0,
            replica: 1)
        #expect(wait.states[0][1] == .fetching(["events": ["a"]]))
        #expect(!wait.done)
        wait.observe(
            report(max: 13, pointer: 14, fetching: ["events": ["c"], "daily": ["d"]]), shard: 0, replica: 1)
        #expect(wait.done)
        #expect(wait.passedOver == 0)
    }

    @Test func everyTableMustBePulledPastItsOwnLastEntry() {
        let first = Report(tables: [
            ReplicationWait.Table(
                name: "events", logMaxIndex: 4, logPointer: 5, readOnly: false, absoluteDelay: 0),
            ReplicationWait.Table(
                name: "daily", logMaxIndex: 20, logPointer: 21, readOnly: false, absoluteDelay: 0),
        ])
        // The twin read the log a moment earlier: the last entries are the greatest either saw.
        let twin = Report(tables: [
            ReplicationWait.Table(
                name: "events", logMaxIndex: 3, logPointer: 5, readOnly: false, absoluteDelay: 0),
            ReplicationWait.Table(
                name: "daily", logMaxIndex: 19, logPointer: 20, readOnly: false, absoluteDelay: 0),
        ])
        var wait = ReplicationWait(first: [[first, twin]], maximumDelay: 5)
        #expect(wait.targets == [["events": 4, "daily": 20]])
        #expect(wait.states == [[.holds, .pulling]])
        var later = twin
        later.tables[1].logPointer = 21
        wait.observe(later, shard: 0, replica: 1)
        #expect(wait.done)
    }

    @Test func downReadOnlyLaggingOrIncompleteReplicasArePassedOver() {
        // Down at the first read, read-only, behind by more than the limit, without a table.
        var wait = ReplicationWait(
            first: [
                [report(pointer: 11), nil], [report(pointer: 11), report(pointer: 11, readOnly: true)],
                [report(pointer: 11), report(pointer: 3, delay: 6)],
                [report(pointer: 11), Report(tables: [report(pointer: 11).tables[0]])],
            ], maximumDelay: 5)
        #expect(wait.done)
        #expect(wait.passedOver == 4)
        // Behind by the limit or less is waited for; one that stops answering meanwhile is down.
        wait = ReplicationWait(
            first: [
                [report(pointer: 11), report(pointer: 3, delay: 5)],
                [report(pointer: 11), report(pointer: 3)],
            ],
            maximumDelay: 5)
        #expect(wait.waitingFor.count == 2)
        wait.observe(nil, shard: 0, replica: 1)
        wait.observe(report(pointer: 11, readOnly: true), shard: 1, replica: 1)
        #expect(wait.done)
        #expect(wait.passedOver == 2)
        // Nothing changes a replica that holds the write or was passed over.
        wait.observe(report(pointer: 0), shard: 1, replica: 1)
        wait.observe(nil, shard: 0, replica: 0)
        wait.observe(report(pointer: 0), shard: 7, replica: 0)
        #expect(wait.states == [[.holds, .passedOver], [.holds, .passedOver]])
    }

    /// An empty log reads as last entry 0 and pointer 0: a table nobody wrote to holds nothing up.
    @Test func aTableWithAnEmptyLogIsPulled() {
        var empty = report(pointer: 11)
        empty.tables.append(
            ReplicationWait.Table(
                name: "lost", logMaxIndex: 0, logPointer: 0, readOnly: false, absoluteDelay: 0))
        var twin = report(pointer: 11)
        twin.tables.append(empty.tables[2])
        #expect(ReplicationWait(first: [[empty, twin]], maximumDelay: 5).done)
    }

    @Test func unreplicatedShardsWaitForNothing() {
        let wait = ReplicationWait(first: [[Report(tables: [])], [Report(tables: [])]], maximumDelay: 5)
        #expect(wait.done)
        #expect(wait.passedOver == 0)
    }

    /// Property: for random histories of one twin (its log pointers only grow, its parts to fetch
    /// leave its queue once fetched and new ones come), the wait ends exactly when the twin has
    /// pulled past every table's last entry and fetched every part it had to at that moment,
    /// and stays ended.
    @Test func theWaitEndsExactlyWhenTheTwinCaughtUp() {
        var random = SeededRandom(seed: 26)
        for _ in 0..<500 {
            let target = UInt64.random(in: 1...20, using: &random)
            var pointers = ["events": UInt64.random(in: 0...target, using: &random), "daily": 0]
            var queue: [String: Set<String>] = ["events": [], "daily": []]
            var next = 0
            func step() {
                for table in ["events", "daily"] {
                    pointers[table]! += UInt64.random(in: 0...3, using: &random)
                    if Bool.random(using: &random) {
                        queue[table]!.insert("p\(next)")
                        next += 1
                    }
                    queue[table] = queue[table]!.filter { _ in Int.random(in: 0..<3, using: &random) > 0 }
                }
            }
            func twin() -> Report {
                Report(
                    tables: ["events", "daily"].map {
                        ReplicationWait.Table(
                            name: $0, logMaxIndex: target, logPointer: pointers[$0]!, readOnly: false,
                            absoluteDelay: 0)
                    },
                    fetching: queue)
            }
            var wait = ReplicationWait(
                first: [[report(max: target, pointer: target + 1), twin()]], maximumDelay: 5)
            var owed: [String: Set<String>]? = pointers.values.allSatisfy { $0 > target } ? queue : nil
            var ended = false
            for _ in 0..<40 {
                let expected = owed.map { $0.values.allSatisfy(\.isEmpty) } ?? false
                #expect(wait.done == expected)
                if ended { #expect(wait.done) }
                ended = wait.done
                step()
                if let pending = owed {
                    owed = pending.merging(queue) { $0.intersection($1) }
                } else if pointers.values.allSatisfy({ $0 > target }) {
                    owed = queue
                }
                wait.observe(twin(), shard: 0, replica: 1)
            }
        }
    }
}
