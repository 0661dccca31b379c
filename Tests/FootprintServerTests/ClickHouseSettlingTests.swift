import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The replica kill's defects played without a race. First, on a replicated cluster of the test's own:
/// a replica takes a group's copies and dies before the collector learns it (its answer lost),
/// and its twin has not fetched them (fetches stopped). The resend, checked on the twin, cannot
/// see them and is stored as first copies; once the replica returns and its twin fetches them,
/// the collector that kept the messages (``UnsettledInserts``) records the second copies, and
/// every report equals SQLite's. Then an INSERT cut between its parts (``UnsettledInserts``), on
/// the test cluster: a view of the test's own fails on one message, after the events' part (and,
/// by its name, before or after `daily_counts`' view); the client resends, and once the
/// collector has checked the cut INSERT every report equals SQLite's.
@Suite(.serialized, .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHouseSettlingTests {
    @Test(.timeLimit(.minutes(10)))
    func aCopyTheDeadReplicaTookCountsOnceAfterItReturns() throws {
        let shards = try PrivateShards(replicas: 2)
        defer { shards.stop() }
        let lost = LockedValue(0)
        let data = PeopleTests.DataSet(seed: 3)
        try ClickHouseAgreementTests.expectSameReports(
            data, url: shards.url,
            configure: {
                $0.insertAnswersLost = lost
                $0.settleInterval = 0.2
                // The answer is lost after the INSERT, whatever the twin holds.
                $0.replicationWait = 0
            }
        ) { store, project in
            let batches = data.ingestBatches(project: project)
            let twin = store.location.replicaSets[0][1]
            _ = try store.write(batches[0])
            _ = try store.client.execute("SYSTEM STOP FETCHES", on: twin)

            // Shard 1's first replica takes the group; the collector never hears so.
            lost.withLock { $0 = 1 }
            let failure = ClickHouseTesting.writeFailure(store, batches[1])
            #expect(failure?.code == .unavailable, "\(String(describing: failure))")
            #expect(store.writeReading.kept > 0)
            try shards.drill("stop-replica", "1", "1")

            // The resend goes to the twin: its check cannot see the dead replica's copies, so
            // some events count as stored again (the defect's condition, reproduced).
            var resent: WriteOutcome?
            let deadline = Date().addingTimeInterval(60)
            while resent == nil, Date() < deadline {
                resent = try? store.write(batches[1])
                if resent == nil { usleep(200_000) }
            }
            #expect((resent?.stored ?? 0) > 0, "\(String(describing: resent))")
            usleep(1_000_000)
            #expect(store.writeReading.kept > 0, "settled with a replica down")

            _ = try store.client.execute("SYSTEM START FETCHES", on: twin)
            try shards.drill("start-replica", "1", "1")
            #expect(ServerKillTests.wait(seconds: 180) { store.writeReading.kept == 0 })
            #expect(store.writeReading.givenUp == 0)
            for batch in batches.dropFirst(2) { _ = try store.write(batch) }
        }
    }

    /// A write on replicated shards is answered once every replica holds its rows: right after
    /// each answer, each shard's replicas hold the same events and daily counts. A twin that
    /// fetches nothing holds the write up until it fails (503, kept as unsettled); the resend
    /// after it fetches again counts nothing twice. A replica that is down is passed over.
    @Test(.timeLimit(.minutes(10)))
    func aWriteIsAnsweredOnceEveryLiveReplicaHoldsItsRows() throws {
        let shards = try PrivateShards(replicas: 2)
        defer { shards.stop() }
        let data = PeopleTests.DataSet(seed: 4)
        try ClickHouseAgreementTests.expectSameReports(
            data, url: shards.url, configure: { $0.replicationWait = 2 }
        ) { store, project in
            // Each batch in two halves (the links with the first).
            let batches = data.batches.flatMap { batch in
                let half = batch.events.count / 2
                return [
                    IngestBatch(
                        projectId: project.id, events: Array(batch.events.prefix(half)),
                        identityLinks: batch.links, receivedAt: data.end),
                    IngestBatch(
                        projectId: project.id, events: Array(batch.events.dropFirst(half)),
                        receivedAt: data.end),
                ]
            }
            try #require(batches.count >= 6)
            let database = store.location.database
            /// Per shard, what each replica holds: its events and the sum of its daily counts.
            func held() throws -> [[[[Substring]]]] {
                try store.location.replicaSets.map { replicas in
                    try replicas.map { replica in
                        try store.client.rows(
                            """
                            SELECT count(), (SELECT sumMerge(count) FROM \(database).daily_counts_local)
                            FROM \(database).events_local
                            """, on: replica)
                    }
                }
            }
            for batch in batches.prefix(3) {
                _ = try store.write(batch)
                for (shard, replicas) in try held().enumerated() {
                    #expect(replicas.allSatisfy { $0 == replicas[0] }, "shard \(shard + 1): \(replicas)")
                }
            }
            #expect(store.writeReading.replicasPassedOver == 0)

            // Twins that fetch nothing: the write is not answered as stored.
            let twins = store.location.replicaSets.map { $0[1] }
            for twin in twins { _ = try store.client.execute("SYSTEM STOP FETCHES", on: twin) }
            let failure = ClickHouseTesting.writeFailure(store, batches[3])
            #expect(failure?.code == .unavailable, "\(String(describing: failure))")
            #expect(store.writeReading.replicationTimeouts == 1)
            #expect(store.writeReading.kept > 0)
            for twin in twins { _ = try store.client.execute("SYSTEM START FETCHES", on: twin) }
            let resent = try store.write(batches[3])
            #expect(resent.stored == 0, "\(resent)")
            #expect(ServerKillTests.wait(seconds: 60) { store.writeReading.kept == 0 })

            // A replica down: the writes go on without it, and say so.
            try shards.drill("stop-replica", "2", "2")
            _ = try store.write(batches[4])
            #expect(store.writeReading.replicasPassedOver > 0)
            try shards.drill("start-replica", "2", "2")
            for batch in batches.dropFirst(5) { _ = try store.write(batch) }
        }
    }

    /// A first copy that vanished: when ZooKeeper dies while a replica commits an INSERT's events
    /// part, 18.16 keeps the part (visible, without its views' rows) until it finds it never
    /// registered and detaches it. Played here: a view of the test's own fails every block, so
    /// the INSERT stores its events without any aggregate row; the twins fetch nothing meanwhile.
    /// The resend's check takes those copies for the first stored and records its own as
    /// redundant; then those first copies are deleted, as the detach would. Once the collector
    /// has checked the failed INSERT, the resend's copies count again, and every report equals
    /// SQLite's.
    @Test(.timeLimit(.minutes(10)))
    func aFirstCopyThatVanishesLeavesTheResendsCopyCounted() throws {
        let shards = try PrivateShards(replicas: 2)
        defer { shards.stop() }
        let data = PeopleTests.DataSet(seed: 5)
        try ClickHouseAgreementTests.expectSameReports(
            data, url: shards.url,
            configure: {
                $0.settleInterval = 0.2
                $0.replicationWait = 0
            }
        ) { store, project in
            let batches = data.ingestBatches(project: project)
            let database = store.location.database
            let origins = store.location.replicaSets.map { $0[0] }
            let twins = store.location.replicaSets.map { $0[1] }
            let nodes = origins + twins
            _ = try store.write(batches[0])
            for twin in twins { _ = try store.client.execute("SYSTEM STOP FETCHES", on: twin) }
            for node in nodes {
                _ = try store.client.execute(
                    """
                    CREATE MATERIALIZED VIEW \(database).a_vanish_mv ENGINE = Memory AS
                    SELECT throwIf(project_id != 0) AS cut FROM \(database).events_local
                    """, on: node)
            }
            #expect(ClickHouseTesting.writeFailure(store, batches[1]) != nil)
            #expect(store.writeReading.kept > 0)
            for node in nodes { _ = try store.client.execute("DROP TABLE \(database).a_vanish_mv", on: node) }
            let resent = try store.write(batches[1])
            #expect(resent.stored == 0, "\(resent)")

            // The first copies go, as a detached part's would.
            let ids = batches[1].events.map { ClickHouseFormat.literal($0.messageId) }.joined(separator: ", ")
            for origin in origins {
                let first = try store.client.rows(
                    """
                    SELECT device, message_id, min(sequence) FROM \(database).events_local
                    WHERE project_id = \(project.id) AND message_id IN (\(ids)) GROUP BY device, message_id
                    """, on: origin)
                guard !first.isEmpty else { continue }
                let tuples = first.map {
                    "(\(ClickHouseFormat.literal(String($0[0]))), \(ClickHouseFormat.literal(String($0[1]))), \($0[2]))"
                }.joined(separator: ", ")
                let condition = "project_id = \(project.id) AND (device, message_id, sequence) IN (\(tuples))"
                _ = try store.client.execute(
                    "ALTER TABLE \(database).events_local DELETE WHERE \(condition)", on: origin)
                #expect(
                    ServerKillTests.wait(seconds: 60) {
                        (try? store.client.rows(
                            "SELECT count() FROM \(database).events_local WHERE \(condition)", on: origin))
                            == [["0"]]
                    })
            }
            for twin in twins { _ = try store.client.execute("SYSTEM START FETCHES", on: twin) }
            #expect(ServerKillTests.wait(seconds: 120) { store.writeReading.kept == 0 })
            for batch in batches.dropFirst(2) { _ = try store.write(batch) }
        }
    }

    /// `view` runs before every view of the store (`a_…`), or between `daily_counts_mv` and
    /// `person_days_mv` (`e_…`): 18.16 runs an INSERT's views one after the other in the order of
    /// their names, after committing the events' part, and stops at the first that fails. With
    /// `resent`, the client resends the batch (its copies are the redundant ones); without, the
    /// cut INSERT's copies are the only ones (a client that never came back).
    @Test(.timeLimit(.minutes(5)), arguments: ["a_cut_mv", "e_cut_mv"], [true, false])
    func anInsertCutBetweenItsPartsCountsOnceInEveryReport(view: String, resent: Bool) throws {
        let data = PeopleTests.DataSet(seed: 2)
        try ClickHouseAgreementTests.expectSameReports(data, configure: { $0.settleInterval = 0.2 }) {
            store, project in
            let batches = data.ingestBatches(project: project)
            let nodes = store.location.replicaSets.flatMap { $0 }
            let database = store.location.database
            _ = try store.write(batches[0])
            let victim = try #require(batches[1].events.last?.messageId)
            for node in nodes {
                _ = try store.client.execute(
                    """
                    CREATE MATERIALIZED VIEW \(database).\(view) ENGINE = Memory AS
                    SELECT throwIf(message_id = \(ClickHouseFormat.literal(victim))) AS cut FROM \(database).events_local
                    """, on: node)
            }
            let failure = ClickHouseTesting.writeFailure(store, batches[1])
            #expect(failure != nil)
            #expect(store.writeReading.kept > 0)
            for node in nodes { _ = try store.client.execute("DROP TABLE \(database).\(view)", on: node) }
            if resent {
                // The cut INSERT's events are stored: the resend's copies are the redundant ones.
                let outcome = try store.write(batches[1])
                #expect(outcome.stored < batches[1].events.count, "\(outcome)")
            }
            #expect(ServerKillTests.wait(seconds: 60) { store.writeReading.kept == 0 })
            #expect(store.writeReading.givenUp == 0)
            for batch in batches.dropFirst(2) { _ = try store.write(batch) }
        }
    }
}
