import Dispatch
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The same data set written to the SQLite store and to the ClickHouse store gives the same
/// answer for every report (``EveryReport``) over every filter, however often and through how
/// many collectors (stores) it is sent.
@Suite(.serialized, .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHouseAgreementTests {
    /// Every report over the filters the data set's days, pages, app versions and OS give:
    /// whole days, a page, an app version, an OS, a few days, a range not on day boundaries, and
    /// 70 days.
    static func everyReport(_ store: any EventStore, _ project: Project, data: PeopleTests.DataSet) throws
        -> [String]
    {
        let day: Int64 = 86_400_000
        let end = data.end
        let everything = ReportFilter(
            from: end.adding(milliseconds: -11 * day), to: end.adding(milliseconds: day))
        let events = data.batches.flatMap(\.events)
        var filters = [
            everything,
            ReportFilter(from: everything.from, to: everything.to, page: "ProductList"),
            ReportFilter(
                from: everything.from, to: everything.to, appVersion: events.compactMap(\.appVersion).max()),
            ReportFilter(from: everything.from, to: everything.to, os: events.compactMap(\.os).min()),
            ReportFilter(from: end.adding(milliseconds: -4 * day), to: end.adding(milliseconds: -2 * day)),
            ReportFilter(from: end.adding(milliseconds: -3 * day - 3_600_000), to: end),
        ]
        filters.append(
            ReportFilter(from: everything.from, to: everything.to, os: filters[3].os, page: "Checkout"))
        // Longer than the 64 days ClickHouse counts people of in one mask: read as person rows.
        filters.append(
            ReportFilter(from: end.adding(milliseconds: -69 * day), to: end.adding(milliseconds: day)))
        return try EveryReport.answers(store, project, filters: filters, now: end)
    }

    /// Records each answer of ClickHouse that differs from SQLite's.
    static func expectSame(
        _ answers: [String], _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(answers.count == expected.count, sourceLocation: sourceLocation)
        for (got, want) in zip(answers, expected) where got != want {
            Issue.record("ClickHouse: \(got)\nSQLite:     \(want)", sourceLocation: sourceLocation)
        }
    }

    /// Writes `data` to SQLite once and to ClickHouse by `writeClickHouse`, and compares every
    /// report and count, and the exports of a linked user, an unlinked device and `people`.
    static func expectSameReports(
        _ data: PeopleTests.DataSet, url: String? = nil, people: [String] = [],
        configure: (inout ClickHouseEventStore.Configuration) -> Void = { _ in },
        writeClickHouse: (ClickHouseEventStore, Project) throws -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try withTemporaryStore("footprint-agreement") { sqlite, sqliteProject in
            try data.write(into: sqlite, project: sqliteProject)
            let expected = try everyReport(sqlite, sqliteProject, data: data)
            try ClickHouseTesting.withStore(url: url, configure: configure) { store, project throws in
                try writeClickHouse(store, project)
                expectSame(
                    try everyReport(store, project, data: data), expected, sourceLocation: sourceLocation)
                #expect(
                    try store.eventCount(projectId: project.id)
                        == sqlite.eventCount(projectId: sqliteProject.id),
                    sourceLocation: sourceLocation)
                #expect(
                    try store.eventTimeSpan(projectId: project.id)
                        == sqlite.eventTimeSpan(projectId: sqliteProject.id), sourceLocation: sourceLocation)
                #expect(
                    try store.identityLinks(projectId: project.id)
                        == sqlite.identityLinks(projectId: sqliteProject.id), sourceLocation: sourceLocation)
                for id in [data.linkedUser(), data.unlinkedDevice()].compactMap({ $0 }) + people {
                    let export = try store.exportPerson(id: id, projectId: project.id)
                    #expect(!export.events.isEmpty, sourceLocation: sourceLocation)
                    #expect(
                        export == (try sqlite.exportPerson(id: id, projectId: sqliteProject.id)),
                        "the export of \(id)", sourceLocation: sourceLocation)
                }
                let filter = ReportFilter(from: data.end.adding(milliseconds: -86_400_000 * 2), to: data.end)
                // The daily counts of some kinds, read from `daily_counts` by kind.
                let kindSets: [Set<RollupKind>] = [
                    RollupReports.trafficCountKinds, [.trackEvents], [.planEvents], [],
                    Set(RollupKind.allCases),
                ]
                for kinds in kindSets {
                    #expect(
                        Set(try store.rollupCounts(projectId: project.id, filter: filter, kinds: kinds))
                            == Set(
                                try sqlite.rollupCounts(
                                    projectId: sqliteProject.id, filter: filter, kinds: kinds)),
                        "\(kinds)", sourceLocation: sourceLocation)
                }
                // The page counts with the clicks' last texts (the elements report), and without
                // (definitions and funnels): the same rows, the texts left out.
                let pageKinds = RollupReports.definitionCountKinds
                for texts in [true, false] {
                    let counts = try store.rollupPageCounts(
                        projectId: project.id, filter: filter, kinds: pageKinds, texts: texts)
                    #expect(
                        Set(counts)
                            == Set(
                                try sqlite.rollupPageCounts(
                                    projectId: sqliteProject.id, filter: filter, kinds: pageKinds,
                                    texts: texts)),
                        "texts: \(texts)", sourceLocation: sourceLocation)
                    #expect(counts.contains { $0.text != nil } == texts, sourceLocation: sourceLocation)
                }
                #expect(
                    Set(
                        try store.analyticsEvents(
                            projectId: project.id, filter: filter, properties: .included))
                        == Set(
                            try sqlite.analyticsEvents(
                                projectId: sqliteProject.id, filter: filter, properties: .included)),
                    sourceLocation: sourceLocation)
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

    /// Every `GROUP BY` goes on on disk (two-level and spilled past one byte, where the store
    /// spills past 2 GB): the sessions' marks and the people's states read back from disk give
    /// every report as SQLite's, over every day and on one page. At 100M events those reads need
    /// more than the server's memory limit.
    @Test func everyReportEqualsSQLitesWithEveryGroupBySpilledToDisk() throws {
        let data = PeopleTests.DataSet(seed: 3)
        let day: Int64 = 86_400_000
        let everything = ReportFilter(
            from: data.end.adding(milliseconds: -11 * day), to: data.end.adding(milliseconds: day))
        let filters = [
            everything, ReportFilter(from: everything.from, to: everything.to, page: "ProductList"),
        ]
        let spilling = [
            "max_bytes_before_external_group_by": "1", "group_by_two_level_threshold": "1",
            "group_by_two_level_threshold_bytes": "1",
        ]
        try withTemporaryStore("footprint-spill") { sqlite, sqliteProject in
            try data.write(into: sqlite, project: sqliteProject)
            let expected = try EveryReport.answers(sqlite, sqliteProject, filters: filters, now: data.end)
            try ClickHouseTesting.withStore(configure: { $0.querySettings = spilling }) { store, project in
                try data.write(into: store, project: project)
                Self.expectSame(
                    try EveryReport.answers(store, project, filters: filters, now: data.end), expected)
                // Spilled indeed: a read of the sessions' marks wrote parts of its aggregation to disk.
                let id = "footprint-spill-\(UInt64.random(in: 0...UInt64.max))"
                _ = try store.client.rows(
                    "SELECT count() FROM (\(store.sql.sessionMarks(projectId: project.id, filter: everything, sessions: .all)))",
                    settings: ["query_id": id])
                var parts: Int64 = 0
                for shard in store.location.shards {
                    _ = try store.client.execute("SYSTEM FLUSH LOGS", on: shard)
                    let rows = try store.client.rows(
                        """
                        SELECT sum(ProfileEvents.Values[indexOf(ProfileEvents.Names, 'ExternalAggregationWritePart')])
                        FROM system.query_log WHERE type = 2 AND (query_id = '\(id)' OR initial_query_id = '\(id)')
                        """, on: shard)
                    parts += ClickHouseFormat.int64(try #require(rows.first?.first))
                }
                #expect(parts > 0)
            }
        }
    }

    /// A shared device, linked to a larger user id in the first batch and to a smaller one in the
    /// last: both stores take it for the smaller (REPORTS.md, who a person is), in the links,
    /// every report and the device's export.
    @Test func aSharedDeviceIsItsSmallestUserInBothStores() throws {
        let shared = try #require(PeopleTests.DataSet(seed: 1).withSharedDevice())
        try Self.expectSameReports(shared.data, people: [shared.device, shared.first]) { store, project in
            try shared.data.write(into: store, project: project)
            #expect(try store.identityLinks(projectId: project.id)[shared.device] == shared.smallest)
            let export = try store.exportPerson(id: shared.device, projectId: project.id)
            #expect(export.person == shared.smallest)
        }
    }

    /// Runs `body` with a second store on `store`'s database (another collector), with its own
    /// metadata file, the tag `tagsAfter` after `store`'s (as each collector of a cluster has its
    /// own, `--collector-tag`) and `configure`'s settings.
    static func withSecondCollector(
        of store: ClickHouseEventStore, tagsAfter: UInt64 = 1,
        configure: (inout ClickHouseEventStore.Configuration) -> Void = { _ in },
        _ body: (ClickHouseEventStore) throws -> Void
    ) throws {
        try withTemporaryDatabase("footprint-second-collector") { path in
            var configuration = ClickHouseEventStore.Configuration()
            configuration.sequenceTag = (store.sequenceTag + tagsAfter) % ClickHouseEventStore.sequenceTags
            configure(&configuration)
            let second = try ClickHouseEventStore(
                location: store.location, metadataPath: path, configuration: configuration)
            defer { second.close() }
            try body(second)
        }
    }

    /// Copies of every event left by a collector stopped between its INSERT and its check of the
    /// copies (it never answered, so its clients resend): the resend through another collector
    /// finds and records them, and every report counts each event once, with every copy still in
    /// the table (no merge ran).
    @Test func copiesOfACollectorStoppedBeforeItsCheckAreRecordedByTheResend() throws {
        let data = PeopleTests.DataSet(seed: 4)
        try Self.expectSameReports(data) { store, project in
            try ClickHouseTesting.stopMerges(store)
            try Self.withSecondCollector(of: store, configure: { $0.checksCopies = false }) { stopped in
                for batch in data.batches {
                    let ingest = IngestBatch(
                        projectId: project.id, events: batch.events, identityLinks: batch.links,
                        receivedAt: data.end)
                    _ = try stopped.write(ingest)
                    let resent = try store.write(ingest)
                    #expect(resent.stored == 0)
                    #expect(resent.duplicates == batch.events.count)
                }
            }
            let stored = try store.eventCount(projectId: project.id)
            #expect(try ClickHouseTesting.storedRows(store, project: project) == 2 * stored)
            #expect(try ClickHouseTesting.redundantCopies(store, project: project) == stored)
        }
    }

    /// Every batch sent again with other content under the same message ids, as a broken or
    /// hostile client may: another name, page, element text, app version and user id, a day
    /// later. The aggregate tables take every copy in; the reads take the redundant ones back,
    /// so only the first copy counts, as on SQLite, in every report, also once every table of
    /// every shard has been merged (`OPTIMIZE … FINAL`).
    @Test func aResendWithOtherContentCountsOnlyTheFirstCopyAfterEveryMerge() throws {
        let data = PeopleTests.DataSet(seed: 5)
        try Self.expectSameReports(data) { store, project in
            try Self.writeEachBatchTwice(data, into: store, project: project) { copy in
                copy.name = copy.name.map { "\($0) again" }
                copy.page = "Elsewhere"
                copy.elementText = "altered"
                copy.appVersion = "9.9"
                copy.userId = "someone-else"
                copy.time = copy.time.adding(milliseconds: 86_400_000)
            }
            let db = store.location.database
            for shard in store.location.shards {
                for table in try store.client.rows(
                    "SELECT name FROM system.tables WHERE database = '\(db)' AND engine LIKE '%MergeTree'",
                    on: shard)
                {
                    _ = try store.client.execute("OPTIMIZE TABLE \(db).\(table[0]) FINAL", on: shard)
                }
            }
        }
    }

    /// Every batch sent again with only its element texts changed, to a text that sorts after
    /// every other: the clicks fall in the same days, pages and versions as the first copies',
    /// and the texts the reports show stay the first copies', as on SQLite.
    @Test func aResendWithOtherElementTextsShowsTheFirstCopiesTexts() throws {
        let data = PeopleTests.DataSet(seed: 6)
        #expect(data.batches.contains { $0.events.contains { $0.elementText != nil } })
        try Self.expectSameReports(data) { store, project in
            try Self.writeEachBatchTwice(data, into: store, project: project) { copy in
                copy.elementText = copy.elementText.map { _ in "~ altered" }
            }
        }
    }

    /// Writes each batch of `data`, then the same messages again as `alter` changes them: every
    /// second copy is found redundant.
    static func writeEachBatchTwice(
        _ data: PeopleTests.DataSet, into store: ClickHouseEventStore, project: Project,
        alter: (inout EventRecord) -> Void
    ) throws {
        for batch in data.batches {
            let first = try store.write(
                IngestBatch(
                    projectId: project.id, events: batch.events, identityLinks: batch.links,
                    receivedAt: data.end))
            #expect(first.duplicates == 0)
            let altered = batch.events.map { event in
                var copy = event
                alter(&copy)
                return copy
            }
            let resent = try store.write(
                IngestBatch(projectId: project.id, events: altered, receivedAt: data.end))
            #expect(resent == WriteOutcome(stored: 0, duplicates: batch.events.count))
        }
    }

    /// Every batch written through two collectors (stores) at the same instant, three times: each
    /// collector's sequences differ from the other's, every report equals SQLite's, and the raw
    /// table still holds all six copies of each event (no merge ran), five of them recorded.
    @Test func batchesWrittenConcurrentlyThroughTwoCollectorsCountOnceWithoutAMerge() throws {
        let data = PeopleTests.DataSet(seed: 8)
        try Self.expectSameReports(data) { store, project in
            try ClickHouseTesting.stopMerges(store)
            try Self.withSecondCollector(of: store) { second in
                let failures = LockedValue<[String]>([])
                for batch in data.batches {
                    let ingest = IngestBatch(
                        projectId: project.id, events: batch.events, identityLinks: batch.links,
                        receivedAt: data.end)
                    for _ in 0..<3 {
                        DispatchQueue.concurrentPerform(iterations: 2) { collector in
                            do {
                                let outcome = try (collector == 0 ? store : second).write(ingest)
                                if outcome.stored + outcome.duplicates != batch.events.count {
                                    failures.withLock { $0.append("\(outcome)") }
                                }
                            } catch {
                                failures.withLock { $0.append("\(error)") }
                            }
                        }
                    }
                }
                #expect(failures.withLock { $0 }.isEmpty)
            }
            let stored = try store.eventCount(projectId: project.id)
            let rows = try ClickHouseTesting.storedRows(store, project: project)
            #expect(rows == 6 * stored)
            #expect(try ClickHouseTesting.redundantCopies(store, project: project) == rows - stored)
            let sequences = try store.client.rows(
                """
                SELECT uniqExact(sequence), uniqExact(sequence % \(ClickHouseEventStore.sequenceTags))
                FROM \(store.location.database).events WHERE project_id = \(project.id)
                """)
            #expect(sequences.first?.map { ClickHouseFormat.int64($0) } == [Int64(rows), 2])
        }
    }

    /// Every batch sent twice in a row, then the whole data set again through a second store
    /// (another collector) while the first sends it a third time, at the same time.
    @Test func batchesSentAgainAndConcurrentlyThroughTwoCollectorsAreStoredOnce() throws {
        try Self.expectResendsStoredOnce()
    }

    /// ``batchesSentAgainAndConcurrentlyThroughTwoCollectorsAreStoredOnce()`` on the shards at
    /// `url` (default `FOOTPRINT_CLICKHOUSE_URL`).
    static func expectResendsStoredOnce(url: String? = nil) throws {
        let data = PeopleTests.DataSet(seed: 3)
        try Self.expectSameReports(data, url: url) { store, project in
            let time = data.end
            for batch in data.batches {
                let ingest = IngestBatch(
                    projectId: project.id, events: batch.events, identityLinks: batch.links, receivedAt: time)
                let first = try store.write(ingest)
                #expect(first.stored + first.duplicates == batch.events.count)
                #expect(try store.write(ingest) == WriteOutcome(stored: 0, duplicates: batch.events.count))
            }
            let stored = try store.eventCount(projectId: project.id)
            try Self.withSecondCollector(of: store) { second in
                let failures = LockedValue<[String]>([])
                DispatchQueue.concurrentPerform(iterations: 2) { collector in
                    for batch in data.batches {
                        let ingest = IngestBatch(
                            projectId: project.id, events: batch.events, identityLinks: batch.links,
                            receivedAt: time)
                        do {
                            _ = try (collector == 0 ? store : second).write(ingest)
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    }
                }
                #expect(failures.withLock { $0 }.isEmpty)
            }
            #expect(try store.eventCount(projectId: project.id) == stored)
        }
    }
}
