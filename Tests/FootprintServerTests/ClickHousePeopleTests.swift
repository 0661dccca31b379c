import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// Deleting a person on the ClickHouse store: every report then equals the SQLite store's after
/// the same deletion, the deletion removes and logs what SQLite's does, and the person's later
/// events are refused.
@Suite(.serialized, .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHousePeopleTests {
    @Test(arguments: [UInt64(7)])
    func deletingAPersonGivesTheReportsOfSQLiteAfterTheSameDeletion(seed: UInt64) throws {
        let data = PeopleTests.DataSet(seed: seed)
        let id = try #require(data.linkedUser())
        let request = PersonDeletion.Request(requestedBy: "test", at: data.end)
        try withTemporaryStore("footprint-people-sqlite") { sqlite, sqliteProject in
            try data.write(into: sqlite, project: sqliteProject)
            let expected = try sqlite.deletePerson(id: id, projectId: sqliteProject.id, request: request)
            let reports = try ClickHouseAgreementTests.everyReport(sqlite, sqliteProject, data: data)
            try ClickHouseTesting.withStore { store, project throws in
                try data.write(into: store, project: project)
                let deletion = try store.deletePerson(id: id, projectId: project.id, request: request)
                #expect(deletion.events == expected.events)
                #expect(deletion.events > 0)
                #expect(deletion.identityLinks == expected.identityLinks)
                #expect(deletion.refusedIds == expected.refusedIds)
                #expect(deletion.refusedUntil == expected.refusedUntil)
                #expect(try store.exportPerson(id: id, projectId: project.id).events.isEmpty)
                #expect(
                    try store.eventCount(projectId: project.id)
                        == sqlite.eventCount(projectId: sqliteProject.id))
                let answers = try ClickHouseAgreementTests.everyReport(store, project, data: data)
                #expect(answers.count == reports.count)
                for (got, want) in zip(answers, reports) where got != want {
                    Issue.record("ClickHouse: \(got)\nSQLite:     \(want)")
                }
                #expect(
                    try store.metadata.personDeletions(projectId: project.id).count
                        == sqlite.personDeletions(projectId: sqliteProject.id).count)
                // The person's batches sent again: refused, as on SQLite.
                let batch = IngestBatch(
                    projectId: project.id, events: data.batches[0].events,
                    identityLinks: data.batches[0].links,
                    receivedAt: data.end)
                var sqliteBatch = batch
                sqliteBatch.projectId = sqliteProject.id
                let again = try store.write(batch)
                #expect(again == (try sqlite.write(sqliteBatch)))
                #expect(!again.refused.isEmpty)
            }
        }
    }
}
