import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// A deployment with its metadata in PostgreSQL and its events in ClickHouse, opened by
/// `Stores.open`: ingest, a person's deletion and the refused ids go through the ledger in
/// PostgreSQL. (Named `ClickHouse…` so that `make test` runs it with the cluster suites.)
@Suite(
    .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason),
    .enabled(if: PostgresTesting.isAvailable, PostgresTesting.reason))
struct ClickHousePostgresMetadataTests {
    @Test func eventsInClickHouseWithMetadataInPostgreSQL() throws {
        let clickHouse = try ClickHouseTesting.newLocation()
        let postgres = try PostgresTesting.newDatabase()
        defer { PostgresTesting.dropDatabase(postgres) }
        let stores = try Stores.open(metadata: .postgres(postgres), events: .clickHouse(clickHouse))
        defer {
            try? (stores.events as? ClickHouseEventStore)?.dropDatabase()
            stores.close()
        }
        let metadata = try #require(stores.metadata as? PostgresMetadataStore)
        #expect(try metadata.eventStoreLocation() == clickHouse.description)
        let project = try stores.metadata.createProject(named: "shop")
        let time = Timestamp(iso8601: "2026-11-03T12:00:00.000Z")!
        let events = ["d1", "d2"].map { (device: String) in
            EventRecord(
                messageId: "m-\(device)", type: .track, name: "Opened", time: time, clientTimestamp: time,
                sentAt: nil, receivedAt: time, anonymousId: device, userId: nil, sessionId: "s-\(device)",
                page: "Home", elementPath: nil, appVersion: "1.0", os: "iOS 17.2",
                payload: #"{"type":"track"}"#)
        }
        let batch = IngestBatch(projectId: project.id, events: events, receivedAt: time)
        #expect(try stores.events.write(batch).stored == 2)
        #expect(try stores.events.eventCount(projectId: project.id) == 2)

        // A deletion refuses the person's ids, through the ledger in PostgreSQL.
        let deletion = try stores.events.deletePerson(
            id: "d1", projectId: project.id, request: PersonDeletion.Request(requestedBy: "cli", at: time))
        #expect(deletion.events == 1)
        #expect(try metadata.personDeletions(projectId: project.id).count == 1)
        #expect(
            try metadata.deletedIds().refuses(anonymousId: "d1", userId: nil, project: project.id, at: time))
        var later = events[0]
        later.messageId = "m-d1-later"
        let outcome = try stores.events.write(
            IngestBatch(projectId: project.id, events: [later], receivedAt: time))
        #expect(outcome.stored == 0 && outcome.refused == [0])
    }
}
