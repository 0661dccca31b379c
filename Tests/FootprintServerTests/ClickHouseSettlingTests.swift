import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The replica kill's defect played without a race, on a replicated cluster of the test's own:
/// a replica takes a group's copies and dies before the collector learns it (its answer lost),
/// and its twin has not fetched them (fetches stopped). The resend, checked on the twin, cannot
/// see them and is stored as first copies; once the replica returns and its twin fetches them,
/// the collector that kept the messages (``UnsettledMessages``) records the second copies, and
/// every report equals SQLite's.
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
            }
        ) { store, project in
            let batches = data.batches.map {
                IngestBatch(
                    projectId: project.id, events: $0.events, identityLinks: $0.links, receivedAt: data.end)
            }
            let twin = store.location.replicaSets[0][1]
            _ = try store.write(batches[0])
            _ = try store.client.execute("SYSTEM STOP FETCHES", on: twin)

            // Shard 1's first replica takes the group; the collector never hears so.
            lost.withLock { $0 = 1 }
            let failure = ClickHouseTesting.writeFailure(store, batches[1])
            #expect(failure?.code == .unavailable, "\(String(describing: failure))")
            #expect(store.unsettledMessages.kept > 0)
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
            #expect(store.unsettledMessages.kept > 0, "settled with a replica down")

            _ = try store.client.execute("SYSTEM START FETCHES", on: twin)
            try shards.drill("start-replica", "1", "1")
            #expect(ServerKillTests.wait(seconds: 180) { store.unsettledMessages.kept == 0 })
            #expect(store.unsettledMessages.givenUp == 0)
            for batch in batches.dropFirst(2) { _ = try store.write(batch) }
        }
    }
}
