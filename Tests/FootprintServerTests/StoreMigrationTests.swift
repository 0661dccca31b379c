import FootprintLoopback
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

    /// The next chunk is read while the target stores the one before: when the target fails a
    /// chunk's write (here it is closed after the second chunk), the run stops with that failure,
    /// the cursor after the last chunk it accepted, and the next run copies the rest once.
    @Test func aFailedWriteStopsTheRunAfterTheLastAcceptedChunk() throws {
        try withTemporaryStore("footprint-migrate-source") { source, project in
            let data = try Self.fill(source, project, seed: 13)
            let total = try source.eventCount(projectId: project.id)
            try withTemporaryDatabase("footprint-migrate-target") { path in
                var configuration = SQLiteEventStore.Configuration()
                configuration.synchronous = "NORMAL"
                var settings = StoreMigration.Configuration()
                settings.chunkSize = 400
                let first = try SQLiteEventStore(path: path, configuration: configuration)
                #expect(try first.createProject(named: "shop").id == project.id)
                var copied: [Int] = []
                let failure = #expect(throws: ServerError.self) {
                    try StoreMigration(
                        from: source, to: first, targetName: "sqlite:target", configuration: settings
                    )
                    .run { progress throws(ServerError) in
                        copied.append(progress.copiedEvents)
                        if progress.copiedEvents == 800 { first.close() }
                    }
                }
                #expect(failure?.code == .closed)
                #expect(copied == [0, 400, 800])
                #expect(try source.migrationCursor(target: "sqlite:target") > 0)

                let second = try SQLiteEventStore(path: path, configuration: configuration)
                defer { second.close() }
                #expect(try second.eventCount(projectId: project.id) == 800)
                let resumed = try StoreMigration(
                    from: source, to: second, targetName: "sqlite:target", configuration: settings
                ).run()
                #expect(resumed.finished && resumed.totalEvents == total - 800)
                #expect(resumed.storedEvents == total - 800 && resumed.duplicateEvents == 0)
                #expect(try second.eventCount(projectId: project.id) == total)
                let expected = try PeopleTests.everyReport(source, project, end: data.end)
                #expect(try PeopleTests.everyReport(second, project, end: data.end) == expected)
            }
        }
    }

    /// Into the ClickHouse cluster, the source file staying the metadata file.
    @Test(.enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
    func aCopyIntoClickHouseResumesAndStoresNothingTwice() throws {
        try withTemporaryDatabase("footprint-migrate-clickhouse") { path in
            var configuration = SQLiteEventStore.Configuration()
            configuration.synchronous = "NORMAL"
            let source = try SQLiteEventStore(path: path, configuration: configuration)
            defer { source.close() }
            let project = try source.createProject(named: "shop")
            let data = try Self.fill(source, project, seed: 12)
            let target = try ClickHouseEventStore(
                location: try ClickHouseTesting.newLocation(), metadataPath: path)
            defer {
                try? target.dropDatabase()
                target.close()
            }
            try Self.expectFaithfulCopy(
                from: source, to: target, targetName: target.location.description, project: project,
                end: data.end)
        }
    }

    /// `footprint migrate` prints a progress line per chunk and a summary; run again, it copies
    /// nothing.
    @Test(.enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
    func theCommandCopiesOnceWithProgressLines() throws {
        let cli = try CommandLineTests()
        defer { try? FileManager.default.removeItem(atPath: cli.directory) }
        let database = cli.directory + "/events.sqlite"
        let generated = try cli.run(["generate", "--events", "3000", "--db", database, "--people", "50"])
        #expect(generated.status == 0, "\(generated.error)")
        let location = try ClickHouseTesting.newLocation()
        let url = location.description
        defer { ClickHouseTestEnvironment.dropDatabase(location.database, url: url) }
        let first = try cli.run(["migrate", "--from", "sqlite:" + database, "--to", url, "--chunk", "1000"])
        #expect(first.status == 0, "\(first.error)")
        let lines = first.output.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("copied ") }.count >= 4, "\(first.output)")
        let summary = try #require(lines.last)
        #expect(summary.contains("new, 0 already there"), "\(summary)")
        let second = try cli.run(["migrate", "--from", "sqlite:" + database, "--to", url])
        #expect(second.status == 0, "\(second.error)")
        #expect(second.output.contains(": 0 events copied, 0 new"), "\(second.output)")
        let count = try ClickHouseTestEnvironment.query(
            "SELECT count(), uniqExact(message_id) FROM \(location.database).events",
            port: ClickHouseTestEnvironment.shardPorts(url)[0])
        let stored = try SQLiteEventStore(path: database).eventCount(projectId: 1)
        #expect(count.trimmingCharacters(in: .whitespacesAndNewlines) == "\(stored)\t\(stored)")
    }

    /// After `migrate`, the file knows it is the ClickHouse store's metadata file: served without
    /// `--store` it is refused, naming the store; with it, it serves and reports.
    @Test(.enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
    func aMigratedFileRefusesToBeServedAsSQLite() throws {
        let cli = try CommandLineTests()
        defer { try? FileManager.default.removeItem(atPath: cli.directory) }
        let database = cli.directory + "/events.sqlite"
        #expect(try cli.run(["generate", "--events", "500", "--db", database, "--people", "20"]).status == 0)
        let location = try ClickHouseTesting.newLocation()
        let url = location.description
        defer { ClickHouseTestEnvironment.dropDatabase(location.database, url: url) }
        let migrated = try cli.run(["migrate", "--from", database, "--to", url, "--quiet"])
        #expect(migrated.status == 0, "\(migrated.error)")
        for arguments in [["serve", "--db", database, "--port", "0"], ["report", "--db", database]] {
            let refused = try cli.run(arguments)
            #expect(refused.status == 1, "\(arguments)")
            #expect(
                refused.error.contains("metadata file of the ClickHouse store \(url)"), "\(refused.error)")
        }
        let report = try cli.run(["report", "--db", "sqlite:" + database, "--store", url, "--json"])
        #expect(report.status == 0, "\(report.error)")
        #expect(try JSONDecoder().decode(Report.self, from: Data(report.output.utf8)).totalEvents >= 500)
        let collector = try ServeProcess(
            executable: cli.executable, database: database, arguments: ["--store", url])
        collector.stop()
    }
}
