import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The same data set written to the SQLite store and to the ClickHouse store gives the same
/// answer for every report (``EveryReport``) over every filter, and resending it changes none.
@Suite(.serialized, .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHouseAgreementTests {
    /// Every report of both stores, compared line by line.
    static func expectSameReports(
        _ data: PeopleTests.DataSet, writeClickHouse: (ClickHouseEventStore, Project) throws -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try withTemporaryStore("footprint-agreement") { sqlite, sqliteProject in
            try data.write(into: sqlite, project: sqliteProject)
            let expected = try PeopleTests.everyReport(sqlite, sqliteProject, end: data.end)
            try ClickHouseTesting.withStore { store, project throws in
                try writeClickHouse(store, project)
                let answers = try PeopleTests.everyReport(store, project, end: data.end)
                if ProcessInfo.processInfo.environment["PEEK"] != nil { for a in answers { print(a.prefix(400)) } }
                #expect(answers.count == expected.count, sourceLocation: sourceLocation)
                for (got, want) in zip(answers, expected) where got != want {
                    Issue.record("ClickHouse: \(got)\nSQLite:     \(want)", sourceLocation: sourceLocation)
                }
                #expect(
                    try store.eventCount(projectId: project.id) == sqlite.eventCount(projectId: sqliteProject.id),
                    sourceLocation: sourceLocation)
                #expect(
                    try store.eventTimeSpan(projectId: project.id)
                        == sqlite.eventTimeSpan(projectId: sqliteProject.id), sourceLocation: sourceLocation)
                #expect(
                    try store.identityLinks(projectId: project.id)
                        == sqlite.identityLinks(projectId: sqliteProject.id), sourceLocation: sourceLocation)
            }
        }
    }

    @Test(arguments: [UInt64(1), 2])
    func everyReportEqualsSQLites(seed: UInt64) throws {
        let data = PeopleTests.DataSet(seed: seed)
        try Self.expectSameReports(data) { store, project in
            try data.write(into: store, project: project)
        }
    }
}
