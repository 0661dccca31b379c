import FootprintServer
import FootprintWire
import Foundation
import Testing

/// `footprint migrate`'s copy (``StoreMigration``): every event, link and lost-event report
/// arrives once, an interrupted run resumes after its last whole chunk, and a second run stores
/// nothing twice.
struct StoreMigrationTests {
    /// A source store holding ``PeopleTests/DataSet`` and a lost-event report.
    static func fill(_ store: SQLiteEventStore, _ project: Project, seed: UInt64) throws
        -> PeopleTests.DataSet
    {
        let data = PeopleTests.DataSet(seed: seed)
        try data.write(into: store, project: project)
        _ = try store.write(
            IngestBatch(
                projectId: project.id, events: [], evictedCount: 7, batchKey: "lost-1", receivedAt: data.end))
        return data
    }

    struct Interrupted: Error {}

    /// Copies `source` into `target` in chunks of 500, stopping the first run after two chunks;
    /// checks the resumed run, a repeated run and a full second copy, then that every report
    /// agrees.
    static func expectFaithfulCopy(
        from source: SQLiteEventStore, to target: any EventStore, targetName: String, project: Project,
        end: Timestamp, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let total = try source.eventCount(projectId: project.id)
        var configuration = StoreMigration.Configuration()
        configuration.chunkSize = 500
        let migration = StoreMigration(
            from: source, to: target, targetName: targetName, configuration: configuration)
        var chunks = 0
        #expect(throws: ServerError.self, sourceLocation: sourceLocation) {
            try migration.run { progress throws(ServerError) in
                if progress.copiedEvents > 0 { chunks += 1 }
                if chunks == 2 { throw ServerError(code: .closed, message: "interrupted") }
            }
        }
        #expect(try target.eventCount(projectId: project.id) == 1_000, sourceLocation: sourceLocation)

        let resumed = try migration.run()
        #expect(resumed.finished && resumed.startedAfter > 0, sourceLocation: sourceLocation)
        #expect(resumed.totalEvents == total - 1_000, sourceLocation: sourceLocation)
        #expect(
            resumed.storedEvents == total - 1_000 && resumed.duplicateEvents == 0,
            sourceLocation: sourceLocation)

        let again = try migration.run()
        #expect(again.copiedEvents == 0 && again.finished, sourceLocation: sourceLocation)

        // A copy from the start (another cursor) finds everything there already.
        let fresh = StoreMigration(
            from: source, to: target, targetName: targetName + " again", configuration: configuration)
        let twice = try fresh.run()
        #expect(twice.copiedEvents == total && twice.storedEvents == 0, sourceLocation: sourceLocation)
        #expect(twice.duplicateEvents == total, sourceLocation: sourceLocation)

        #expect(try target.eventCount(projectId: project.id) == total, sourceLocation: sourceLocation)
        #expect(try target.lostEventCount(projectId: project.id) == 7, sourceLocation: sourceLocation)
        #expect(
            try target.identityLinks(projectId: project.id) == source.identityLinks(projectId: project.id),
            sourceLocation: sourceLocation)
        #expect(
            try target.eventTimeSpan(projectId: project.id) == source.eventTimeSpan(projectId: project.id),
            sourceLocation: sourceLocation)
        let expected = try PeopleTests.everyReport(source, project, end: end)
        let copied = try PeopleTests.everyReport(target, project, end: end)
        #expect(copied.count == expected.count, sourceLocation: sourceLocation)
        for (mine, theirs) in zip(copied, expected) where mine != theirs {
            Issue.record("\(mine)\nSQLite source: \(theirs)", sourceLocation: sourceLocation)
        }
    }

    @Test func anInterruptedCopyResumesAndACopyTwiceStoresNothingTwice() throws {
        try withTemporaryStore("footprint-migrate-source") { source, project in
            let data = try Self.fill(source, project, seed: 11)
            try withTemporaryStore("footprint-migrate-target") { target, targetProject in
                #expect(targetProject.id == project.id)
                try Self.expectFaithfulCopy(
                    from: source, to: target, targetName: "sqlite:target", project: project, end: data.end)
            }
        }
    }
}
