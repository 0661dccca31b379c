import FootprintLoopback
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The ClickHouse store with a write-ahead spool (`footprint serve --spool`): groups answered
/// once fsynced, shipped in bulk, every report equal to SQLite's; a collector stopped between a
/// segment's INSERTs and its mark, or SIGKILLed under load, ships what it held once when it
/// starts again; a batch resent through two spooled collectors counts once; a full spool is
/// answered 503 with `Retry-After`.
@Suite(.enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHouseSpoolTests {
    /// Runs `body` with a new, empty directory, deleted afterwards.
    static func withDirectory<T>(_ body: (String) throws -> T) throws -> T {
        try SpoolTests.withDirectory(body)
    }

    /// The segment files a spool directory holds.
    static func segments(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".segment") }
    }

    @Test func everyReportEqualsSQLitesThroughASpool() throws {
        let data = PeopleTests.DataSet(seed: 1)
        try Self.withDirectory { spool in
            try ClickHouseAgreementTests.expectSameReports(data, configure: { $0.spoolDirectory = spool }) {
                store, project in
                try data.write(into: store, project: project)
                try store.shipHeldSegments()
                #expect(Self.segments(in: spool).isEmpty)
            }
        }
    }

    /// A collector stops after a segment's INSERTs, before its copy check and `shipped` mark (as
    /// one SIGKILLed there would). Started again on its spool, it reads which of the segment's
    /// events are stored and inserts only the others: nothing is doubled, every report equals
    /// SQLite's.
    @Test func aCollectorStoppedBeforeItsShippedMarkShipsEachEventOnceWhenStartedAgain() throws {
        let data = PeopleTests.DataSet(seed: 3)
        try Self.withDirectory { spool in
            try ClickHouseAgreementTests.expectSameReports(data) { store, project in
                try ClickHouseTesting.stopMerges(store)
                var inserted = 0
                try ClickHouseAgreementTests.withSecondCollector(
                    of: store,
                    configure: {
                        $0.spoolDirectory = spool
                        $0.spoolStopsBeforeMark = true
                        $0.spoolSealInterval = 3_600
                        $0.spoolSealRows = 1_000_000
                    }
                ) { stopped in
                    try data.write(into: stopped, project: project)
                    #expect(
                        try ClickHouseTesting.storedRows(store, project: project) == 0, "nothing shipped yet")
                    #expect(throws: ServerError.self) { try stopped.shipHeldSegments() }
                    inserted = try ClickHouseTesting.storedRows(store, project: project)
                    #expect(inserted > 0)
                    // Shipped again by the same collector: the read finds every event stored.
                    #expect(throws: ServerError.self) { try stopped.shipHeldSegments() }
                    #expect(try ClickHouseTesting.storedRows(store, project: project) == inserted)
                }
                #expect(Self.segments(in: spool).count == 1, "held until marked shipped")
                try ClickHouseAgreementTests.withSecondCollector(
                    of: store, configure: { $0.spoolDirectory = spool }
                ) {
                    _ in
                    #expect(Self.segments(in: spool).isEmpty, "shipped when it opened")
                }
                #expect(try ClickHouseTesting.storedRows(store, project: project) == inserted)
            }
        }
    }

    /// Every batch sent to two collectors, each with its own spool: both answer every event
    /// stored (neither knows of the other's copy), and once both have shipped, the copy check
    /// has recorded one copy of each as redundant, so every report equals SQLite's.
    @Test func aBatchResentThroughTwoSpooledCollectorsCountsOnce() throws {
        let data = PeopleTests.DataSet(seed: 2)
        try Self.withDirectory { first in
            try Self.withDirectory { second in
                try ClickHouseAgreementTests.expectSameReports(data) { store, project in
                    try ClickHouseTesting.stopMerges(store)
                    try ClickHouseAgreementTests.withSecondCollector(
                        of: store, configure: { $0.spoolDirectory = first }
                    ) {
                        one in
                        try ClickHouseAgreementTests.withSecondCollector(
                            of: store, tagsAfter: 2, configure: { $0.spoolDirectory = second }
                        ) { other in
                            for batch in data.batches {
                                let ingest = IngestBatch(
                                    projectId: project.id, events: batch.events, identityLinks: batch.links,
                                    receivedAt: data.end)
                                let answers = [try one.write(ingest), try other.write(ingest)]
                                #expect(answers[0] == answers[1])
                                #expect(answers[0].refused.isEmpty)
                            }
                        }
                    }
                    let stored = try store.eventCount(projectId: project.id)
                    #expect(try ClickHouseTesting.storedRows(store, project: project) >= 2 * stored)
                    #expect(try ClickHouseTesting.redundantCopies(store, project: project) >= stored)
                }
            }
        }
    }

    /// A person deleted while their events wait in the spool: the shipper reads the deleted ids
    /// again and refuses them, so the person's events never reach ClickHouse and every report
    /// equals SQLite's after the same deletion. (A device with no identity links: links still in
    /// a spool are not known to a deletion, see docs/ARCHITECTURE.md.)
    @Test func aPersonDeletedWhileTheirEventsWaitInTheSpoolIsRefusedAtShipping() throws {
        let data = PeopleTests.DataSet(seed: 7)
        let id = try #require(data.unlinkedDevice())
        let request = PersonDeletion.Request(requestedBy: "test", at: data.end)
        try withTemporaryStore("footprint-spool-people") { sqlite, sqliteProject in
            try data.write(into: sqlite, project: sqliteProject)
            _ = try sqlite.deletePerson(id: id, projectId: sqliteProject.id, request: request)
            let reports = try ClickHouseAgreementTests.everyReport(sqlite, sqliteProject, data: data)
            try Self.withDirectory { spool in
                try ClickHouseTesting.withStore(configure: {
                    $0.spoolDirectory = spool
                    $0.spoolSealInterval = 3_600
                    $0.spoolSealRows = 1_000_000
                }) { store, project throws in
                    try data.write(into: store, project: project)
                    #expect(
                        try ClickHouseTesting.storedRows(store, project: project) == 0, "nothing shipped yet")
                    _ = try store.deletePerson(id: id, projectId: project.id, request: request)
                    try store.shipHeldSegments()
                    #expect(try store.exportPerson(id: id, projectId: project.id).events.isEmpty)
                    #expect(
                        try store.eventCount(projectId: project.id)
                            == sqlite.eventCount(projectId: sqliteProject.id))
                    ClickHouseAgreementTests.expectSame(
                        try ClickHouseAgreementTests.everyReport(store, project, data: data), reports)
                }
            }
        }
    }

    /// A spool that holds its bound (ClickHouse not taking rows as fast as they come: here,
    /// nothing is sealed) answers 503 with `Retry-After`, as when ClickHouse is down.
    @Test func aFullSpoolIsAnswered503WithRetryAfter() throws {
        try Self.withDirectory { spool in
            let server = try TestServer { configuration in
                configuration.clickHouse = try? ClickHouseTesting.newLocation()
                configuration.clickHouseStore.spoolDirectory = spool
                configuration.clickHouseStore.spoolBytes = 65_536
                configuration.clickHouseStore.spoolSealInterval = 3_600
                configuration.clickHouseStore.spoolSealRows = 1_000_000
            }
            let store = try #require(server.server.stores.events as? ClickHouseEventStore)
            defer {
                try? store.dropDatabase()
                server.shutDown()
            }
            var answers: [LoopbackClient.Response] = []
            for batch in 0..<200 {
                let body = Payloads.batch(
                    (0..<20).map { Payloads.track("b\(batch)-e\($0)", anonymousId: "device-\(batch % 3)") })
                let response = try server.client.post("/v1/batch", json: body, writeKey: server.writeKey)
                answers.append(response)
                if response.status != 200 { break }
            }
            let refused = try #require(answers.last)
            #expect(answers.count > 1, "the first batches fit")
            #expect(refused.status == 503, "\(refused.text)")
            #expect(refused.headers["retry-after"] != nil)
            #expect(refused.text.contains("spool"), "\(refused.text)")
            #expect(store.spool?.heldBytes ?? 0 <= 65_536)
        }
    }

    /// Clients resend each batch until answered 200, through HAProxy, to two collectors that
    /// spool; one is SIGKILLed mid-stream (whatever it was doing: appending, shipping, between a
    /// segment's INSERTs and its mark). Started again on its spool, it ships what it held; every
    /// event is stored, and the report counts each once.
    @Test(.timeLimit(.minutes(10)))
    func aKilledSpoolingCollectorShipsWhatItHeldOnceWhenStartedAgain() throws {
        let cluster = try CollectorCluster(spools: true)
        defer { cluster.shutDown() }
        let expected = ClickHouseFaultTests.killFirstCollectorUnderLoad(cluster)
        // Started again on its spool: it ships what it held before it listens.
        let restarted = try cluster.startCollector(spool: cluster.spool(of: 0))
        defer { restarted.stop(signal: SIGTERM) }
        #expect(Self.segments(in: cluster.spool(of: 0)).isEmpty)
        // The live collector ships within about a second; wait generously.
        #expect(
            ServerKillTests.wait(seconds: 120) {
                (try? ClickHouseFaultTests.storedMessageIds(cluster)) == expected
            })
        #expect(try ClickHouseFaultTests.storedMessageIds(cluster) == expected)
        #expect(
            ServerKillTests.wait(seconds: 120) {
                (try? ClickHouseFaultTests.reportedEvents(cluster)) == .int(Int64(expected.count))
            })
        #expect(try ClickHouseFaultTests.reportedEvents(cluster) == .int(Int64(expected.count)))
    }
}
