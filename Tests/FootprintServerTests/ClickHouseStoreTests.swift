import FootprintSynthetic
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The ClickHouse store over a real cluster: its tables on every shard, writes stored once
/// however often they are sent, and failures that never claim a write was stored.
@Suite(.enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHouseStoreTests {
    static func event(_ id: String, anonymousId: String, name: String = "Opened", at time: Timestamp)
        -> EventRecord
    {
        EventRecord(
            messageId: id, type: .track, name: name, time: time, clientTimestamp: time, sentAt: nil,
            receivedAt: time, anonymousId: anonymousId, userId: nil, sessionId: "s-\(anonymousId)",
            page: "Home",
            elementPath: nil, appVersion: "1.0", os: "iOS 17.2", payload: #"{"type":"track"}"#)
    }

    @Test func theSchemaIsOnEveryShardAndEventsSpreadOverThem() throws {
        try ClickHouseTesting.withStore { store, project throws in
            let time = Timestamp(millisecondsSince1970: 1_796_083_200_000)
            let events = (0..<200).map { Self.event("m\($0)", anonymousId: "device-\($0 % 40)", at: time) }
            let outcome = try store.write(
                IngestBatch(projectId: project.id, events: events, receivedAt: time))
            #expect(outcome == WriteOutcome(stored: 200, duplicates: 0))
            #expect(try store.eventCount(projectId: project.id) == 200)
            var perShard: [Int] = []
            for shard in store.location.shards {
                let body = try store.client.execute(
                    "SELECT count() FROM \(store.location.database).events_local", on: shard)
                perShard.append(Int(String(decoding: body, as: UTF8.self).trimmingSpaces) ?? -1)
                let tables = try store.client.execute(
                    "SELECT name FROM system.tables WHERE database = '\(store.location.database)' ORDER BY name FORMAT TabSeparated",
                    on: shard)
                #expect(
                    String(decoding: tables, as: UTF8.self).split(separator: "\n")
                        == [
                            "daily_counts", "daily_counts_local", "daily_counts_mv", "duplicate_copies",
                            "duplicate_copies_local", "element_texts", "element_texts_local",
                            "element_texts_mv",
                            "events", "events_local", "identities",
                            "identities_local",
                            "lost_events", "lost_events_local", "person_blocks", "person_blocks_local",
                            "person_blocks_mv", "person_days", "person_days_local", "person_days_mv",
                            "session_pages", "session_pages_local", "session_pages_mv",
                            "sessions", "sessions_local", "sessions_mv", "settled_figures",
                            "settled_figures_local", "settled_people", "settled_people_local",
                            "settled_rounds",
                            "settled_rounds_local", "settled_sessions", "settled_sessions_local",
                            "settled_totals", "settled_totals_local", "step_times",
                            "step_times_local", "step_times_mv", "touched_links", "touched_links_local",
                            "touched_links_mv", "touched_rows", "touched_rows_local",
                            "touched_rows_mv", "touched_sessions", "touched_sessions_local",
                            "touched_sessions_mv",
                        ])
            }
            #expect(perShard.reduce(0, +) == 200)
            if store.location.shards.count > 1 { #expect(perShard.allSatisfy { $0 > 0 }, "\(perShard)") }
            // Opening it again finds the tables and keeps the events.
            try store.createSchema()
            #expect(try store.eventCount(projectId: project.id) == 200)
        }
    }

    /// The tables an earlier version made and this one neither reads nor fills
    /// (`touched_members`, its view first) are dropped when a store opens the database.
    @Test func openingADatabaseDropsTheRetiredTables() throws {
        try ClickHouseTesting.withStore { store, _ throws in
            let db = store.location.database
            for shard in store.location.shards {
                for statement in [
                    "CREATE TABLE \(db).touched_members_local (project_id Int64, touched Int64) ENGINE = MergeTree ORDER BY (project_id, touched)",
                    "CREATE TABLE \(db).touched_members AS \(db).touched_members_local ENGINE = Distributed(\(store.sql.cluster), \(db), touched_members_local, project_id)",
                    "CREATE MATERIALIZED VIEW \(db).touched_members_mv TO \(db).touched_members_local AS SELECT project_id, toInt64(0) AS touched FROM \(db).events_local",
                ] {
                    _ = try store.client.execute(statement, on: shard)
                }
            }
            try store.createSchema()
            for shard in store.location.shards {
                let left = try store.client.execute(
                    "SELECT name FROM system.tables WHERE database = '\(db)' AND name LIKE 'touched\\_members%' FORMAT TabSeparated",
                    on: shard)
                #expect(left.isEmpty, "\(String(decoding: left, as: UTF8.self))")
            }
        }
    }

    /// Each message is stored without the ids and times its row's columns hold (``StoredPayload``'s
    /// format 3) and comes back byte for byte: the generated traffic's messages and messages with
    /// quotes, tabs, line breaks and the cut keys in their texts.
    @Test func messagesAreStoredCutAndComeBackByteForByte() throws {
        try ClickHouseTesting.withStore { store, project throws in
            var traffic = SyntheticTraffic(configuration: RollupTests.synthetic(seed: 5))
            var events = (0..<6).flatMap { _ in traffic.session().events }
            let time = events[0].time
            for (index, text) in [
                "tab\there", "line\nbreak", #"quote " and \ backslash"#, #""$page_name":"x""#,
            ]
            .enumerated() {
                let message = Message(
                    type: .track, messageId: "hostile-\(index)", anonymousId: "device-\(text)",
                    event: "Tapped \(text)", timestamp: time,
                    context: ["os": ["name": "iOS", "version": .string(text)], "sessionId": .string(text)],
                    properties: ["$page_name": .string(text), "$element_text": .string(text)])
                events.append(EventRecord(message: message, time: time, receivedAt: time))
            }
            _ = try store.write(IngestBatch(projectId: project.id, events: events, receivedAt: time))
            let stored = try store.client.rows(
                ClickHouseQuery(
                    "SELECT payload FROM \(store.location.database).events WHERE project_id = \(project.id)",
                    fields: 1
                ) { row throws(ServerError) in row.string(0) })
            #expect(stored.count == events.count)
            #expect(stored.allSatisfy { $0.utf8.first == StoredPayload.cutFormat })
            let storedBytes = stored.map(\.utf8.count).reduce(0, +)
            let messageBytes = events.map(\.payload.utf8.count).reduce(0, +)
            #expect(storedBytes * 4 < messageBytes * 3, "\(storedBytes) bytes stored for \(messageBytes)")
            let recent = try store.recentEvents(projectId: project.id, limit: 1000, after: nil)
            #expect(recent.map(\.payload).sorted() == events.map(\.payload).sorted())
            let export = try store.exportPerson(id: "device-tab\there", projectId: project.id)
            let tabbed = try JSONParser().parse(Array(events[events.count - 4].payload.utf8))
            #expect(export.events.map { $0["message"] } == [tabbed])
        }
    }

    @Test func aBatchSentTwiceIsStoredOnce() throws {
        try ClickHouseTesting.withStore { store, project throws in
            let time = Timestamp(millisecondsSince1970: 1_796_083_200_000)
            let events = (0..<50).map { Self.event("m\($0)", anonymousId: "device-\($0 % 7)", at: time) }
            let batch = IngestBatch(
                projectId: project.id, events: events + [events[3]],
                identityLinks: [IdentityLink(anonymousId: "device-1", userId: "u1")], evictedCount: 4,
                batchKey: "batch-1", receivedAt: time)
            try ClickHouseTesting.stopMerges(store)
            #expect(try store.write(batch) == WriteOutcome(stored: 50, duplicates: 1))
            // The second copy of each event is stored, found by the check after the INSERT,
            // answered as a duplicate and recorded, so no read counts it.
            #expect(try store.write(batch) == WriteOutcome(stored: 0, duplicates: 51))
            #expect(try ClickHouseTesting.storedRows(store, project: project) == 100)
            #expect(try ClickHouseTesting.redundantCopies(store, project: project) == 50)
            #expect(try store.eventCount(projectId: project.id) == 50)
            #expect(try store.lostEventCount(projectId: project.id) == 4)
            #expect(try store.identityLinks(projectId: project.id) == ["device-1": "u1"])
        }
    }

    /// The copy check sends its messages as a table of their own: ids with any bytes a string
    /// can hold (the form's boundary text, line breaks, tabs, quotes, backslashes, none at all)
    /// are each matched exactly.
    @Test func theCopyCheckMatchesMessagesOfAnyText() throws {
        try ClickHouseTesting.withStore { store, project throws in
            let time = Timestamp(millisecondsSince1970: 1_796_083_200_000)
            let ids = [
                "footprint-rows", "--footprint-rows\r\n", "a\tb", "line\nbreak", "it's", "back\\slash", "",
                "\u{0}", "ünï", String(repeating: "x", count: 5_000),
            ]
            let events = ids.enumerated().map { index, id in
                Self.event(id, anonymousId: "device-\(index % 3)", at: time)
            }
            try ClickHouseTesting.stopMerges(store)
            let first = try store.write(IngestBatch(projectId: project.id, events: events, receivedAt: time))
            #expect(first == WriteOutcome(stored: events.count, duplicates: 0))
            // All of them again, with one new message: only the new one is stored.
            let again = events + [Self.event("new", anonymousId: "device-0", at: time)]
            #expect(
                try store.write(IngestBatch(projectId: project.id, events: again, receivedAt: time))
                    == WriteOutcome(stored: 1, duplicates: ids.count))
            #expect(try ClickHouseTesting.redundantCopies(store, project: project) == ids.count)
            #expect(try store.eventCount(projectId: project.id) == ids.count + 1)
        }
    }

    /// A database made before the aggregate tables (its events stored, no aggregates): opening
    /// it creates them and fills them from the events, once, and every report is what it was.
    /// So does opening one whose fill was cut short (a table there, its view not yet): the
    /// table is filled anew, not added to.
    @Test func aDatabaseMadeBeforeTheAggregatesIsFilledFromItsEvents() throws {
        let data = PeopleTests.DataSet(seed: 6)
        try ClickHouseTesting.withStore { store, project throws in
            try data.write(into: store, project: project)
            let before = try ClickHouseAgreementTests.everyReport(store, project, data: data)
            let db = store.location.database
            for tables in [["_mv", "", "_local"], ["_mv"]] {
                for shard in store.location.shards {
                    for aggregate in store.sql.aggregates {
                        for suffix in tables {
                            _ = try store.client.execute(
                                "DROP TABLE \(db).\(aggregate.name)\(suffix)", on: shard)
                        }
                    }
                }
                try store.createSchema()
                ClickHouseAgreementTests.expectSame(
                    try ClickHouseAgreementTests.everyReport(store, project, data: data), before)
            }
            // Opened again: the views are there, nothing is filled twice.
            try store.createSchema()
            ClickHouseAgreementTests.expectSame(
                try ClickHouseAgreementTests.everyReport(store, project, data: data), before)
        }
    }

    /// A database whose `sessions` table an earlier version sorted by session first: opening it
    /// makes the table anew, sorted by day first, and fills it from the events; every report is
    /// what it was.
    @Test func aSessionsTableSortedAsBeforeIsMadeAnew() throws {
        let data = PeopleTests.DataSet(seed: 8)
        try ClickHouseTesting.withStore { store, project throws in
            try data.write(into: store, project: project)
            let before = try ClickHouseAgreementTests.everyReport(store, project, data: data)
            let sessions = try #require(store.sql.aggregates.first { $0.name == "sessions" })
            var earlier = sessions
            earlier.orderBy = "project_id, session_key, day, device, user_id"
            func keys() throws -> [String] {
                try store.location.shards.map { shard in
                    try store.client.rows(store.sql.sortingKeys, on: shard).first {
                        $0.name == "sessions_local"
                    }?
                    .key ?? ""
                }
            }
            for shard in store.location.shards {
                for statement in [
                    store.sql.dropView(sessions), store.sql.dropTable(sessions),
                    store.sql.createTable(earlier),
                    store.sql.fill(earlier), store.sql.createView(earlier),
                ] {
                    _ = try store.client.execute(statement, on: shard)
                }
            }
            #expect(try keys().allSatisfy { ClickHouseSQL.isSorted($0, as: earlier) })
            try store.createSchema()
            #expect(try keys().allSatisfy { ClickHouseSQL.isSorted($0, as: sessions) })
            ClickHouseAgreementTests.expectSame(
                try ClickHouseAgreementTests.everyReport(store, project, data: data), before)
        }
    }

    /// A database made before `person_blocks` (its events and every other aggregate stored):
    /// opening it creates the table and fills it from the events, through one replica of each
    /// shard when replicated, and every report is what it was.
    static func expectPersonBlocksFilled(url: String? = nil) throws {
        let data = PeopleTests.DataSet(seed: 9)
        try ClickHouseTesting.withStore(url: url) { store, project throws in
            try data.write(into: store, project: project)
            let before = try ClickHouseAgreementTests.everyReport(store, project, data: data)
            let db = store.location.database
            for node in store.location.shards {
                for table in ["person_blocks_mv", "person_blocks", "person_blocks_local"] {
                    _ = try store.client.execute("DROP TABLE \(db).\(table)", on: node)
                }
            }
            try store.createSchema()
            // Each replica holds the rows once its twin's fill reached it.
            for node in store.location.shards {
                let filled = ServerKillTests.wait(seconds: 60) {
                    let rows = try? store.client.rows(
                        "SELECT count() FROM \(db).person_blocks_local", on: node)
                    return (rows?.first?.first).flatMap { Int($0) } ?? 0 > 0
                }
                #expect(filled, "\(node)")
            }
            ClickHouseAgreementTests.expectSame(
                try ClickHouseAgreementTests.everyReport(store, project, data: data), before)
        }
    }

    /// A database made before the copy check's `message_hash` column: opening it adds the column
    /// to `events_local` and `events` on every shard, the rows stored before compute it when read,
    /// and a resend of those rows is still found by the check.
    @Test func aDatabaseMadeBeforeTheMessageHashGetsItAndFindsTheOlderCopies() throws {
        try Self.expectMessageHashAdded()
    }

    /// ``aDatabaseMadeBeforeTheMessageHashGetsItAndFindsTheOlderCopies()`` on the shards at `url`
    /// (default `FOOTPRINT_CLICKHOUSE_URL`); with replicas, the column is dropped through one
    /// replica of each shard and comes back to both.
    static func expectMessageHashAdded(url: String? = nil) throws {
        try ClickHouseTesting.withStore(url: url) { store, project throws in
            let time = Timestamp(millisecondsSince1970: 1_796_083_200_000)
            let events = (0..<40).map { Self.event("old-\($0)", anonymousId: "device-\($0 % 7)", at: time) }
            let batch = IngestBatch(projectId: project.id, events: events, receivedAt: time)
            let db = store.location.database
            #expect(try store.write(batch) == WriteOutcome(stored: events.count, duplicates: 0))
            // The column taken away again, from the stored parts too: as a database made before it.
            for shard in try store.oneReplicaOfEachShard() {
                _ = try store.client.execute(
                    "ALTER TABLE \(db).events_local DROP COLUMN message_hash", on: shard)
            }
            for shard in store.location.shards {
                _ = try store.client.execute("ALTER TABLE \(db).events DROP COLUMN message_hash", on: shard)
                #expect(
                    ServerKillTests.wait(seconds: 60) {
                        (try? store.client.execute(store.sql.hasMessageHash("events_local"), on: shard)
                            .isEmpty)
                            == true
                    })
            }
            try store.createSchema()
            for shard in store.location.shards {
                for table in ["events", "events_local"] {
                    #expect(try !store.client.execute(store.sql.hasMessageHash(table), on: shard).isEmpty)
                }
            }
            let hashed = try store.client.rows(
                "SELECT count() FROM \(db).events WHERE message_hash = cityHash64(device, message_id)")
            #expect(hashed.first?.first == "40")
            #expect(try store.write(batch) == WriteOutcome(stored: 0, duplicates: events.count))
            #expect(try store.eventCount(projectId: project.id) == events.count)
        }
    }

    /// Regression for the session aggregates (`sessions`, `session_pages`): sessions whose
    /// events arrive over several INSERTs, out of order, across midnight, before and after a
    /// login, with leaves of other pages (one page's twice between two views), before the first
    /// view and twice after one, one of them
    /// shared by two devices, and a device whose batch is sent again (its rows
    /// are read from its counted events, merged with the other device's aggregated rows). Their
    /// sessions, dwell and moves equal the SQLite store's before and after every table is merged.
    @Test func sessionsSplitOverInsertsAndResentBatchesEqualSQLites() throws {
        let midnight = Timestamp(millisecondsSince1970: 1_796_083_200_000 + 86_400_000)
        func event(
            _ id: String, _ device: String, _ session: String, _ seconds: Int64, view page: String,
            leave: Int64? = nil, user: String? = nil, version: String = "1.0"
        ) -> EventRecord {
            let time = midnight.adding(milliseconds: seconds * 1_000)
            return EventRecord(
                messageId: id, type: leave == nil ? .screen : .track,
                name: leave == nil ? page : "$screen_leave",
                time: time, clientTimestamp: time, sentAt: nil, receivedAt: time, anonymousId: device,
                userId: user, sessionId: session, page: page, elementPath: nil, appVersion: version,
                os: "iOS 17.2", payload: #"{"type":"screen"}"#, durationMilliseconds: leave)
        }
        let shared = [
            event("b1", "device-b", "shared", -110, view: "Home"),
            event("b2", "device-b", "shared", -80, view: "List"),
            event("b3", "device-b", "shared", -75, view: "List", leave: 4_000),
        ]
        let batches: [[EventRecord]] = [
            shared,
            [
                event("a4", "device-a", "long", 30, view: "Detail", user: "u1"),
                event("a5", "device-a", "long", 90, view: "Home", user: "u1"),
            ],
            [
                event("a1", "device-a", "long", -120, view: "Home"),
                event("a2", "device-a", "long", -90, view: "List"),
                event("s1", "device-a", "shared", -60, view: "Detail", version: "2.0"),
            ],
            [
                event("a3", "device-a", "long", -70, view: "List", leave: 15_000),
                event("a7", "device-a", "long", -80, view: "Home", leave: 2_000),
                event("a8", "device-a", "long", -65, view: "List", leave: 16_000),
                event("a0", "device-a", "long", -130, view: "Detail", leave: 1_000),
                event("a6", "device-a", "long", 100, view: "List", user: "u1"),
                event("c1", "device-c", "third", 5, view: "List", version: "2.0"),
                // Another page's leaves, twice, before the next view: the view's dwell is the gap.
                event("c3", "device-c", "third", 6, view: "Home", leave: 1_500, version: "2.0"),
                event("c4", "device-c", "third", 7, view: "Home", leave: 2_500, version: "2.0"),
            ],
            shared,
            [event("c2", "device-c", "third", 9, view: "Detail", version: "2.0")],
        ]
        let first = midnight.adding(milliseconds: -86_400_000)
        let filters = [
            ReportFilter(from: first, to: midnight.adding(milliseconds: 86_400_000)),
            ReportFilter(from: midnight, to: midnight.adding(milliseconds: 86_400_000)),
            ReportFilter(from: first, to: midnight),
            ReportFilter(from: first, to: midnight.adding(milliseconds: 86_400_000), page: "List"),
            ReportFilter(page: "Detail"),
            ReportFilter(appVersion: "2.0"),
        ]
        // Each answer as sorted lines, so that the order of rows and dictionaries does not count.
        func answers(_ store: any EventStore, _ project: Project) throws -> [[String]] {
            try filters.map { filter in
                let sessions = ["sessions \(try store.sessionFigures(projectId: project.id, filter: filter))"]
                let dwell = try store.rollupDwell(projectId: project.id, filter: filter).flatMap {
                    page, histogram in
                    histogram.bins.map {
                        "dwell \(page) bucket \($0.key): \($0.value.count), \($0.value.total) ms"
                    }
                }
                let moves = try [nil, "List"].flatMap { from in
                    try store.rollupMoves(projectId: project.id, filter: filter, from: from).map {
                        "moves from \(from ?? "any"): \($0.from) to \($0.to ?? "end") \($0.count)"
                    }
                }
                return (sessions + dwell + moves).sorted()
            }
        }
        func write(_ store: any EventStore, _ project: Project) throws {
            for events in batches {
                _ = try store.write(IngestBatch(projectId: project.id, events: events, receivedAt: midnight))
            }
        }
        try withTemporaryStore("footprint-sessions") { sqlite, sqliteProject in
            try write(sqlite, sqliteProject)
            let expected = try answers(sqlite, sqliteProject)
            #expect(try sqlite.sessionFigures(projectId: sqliteProject.id, filter: filters[0]).sessions == 3)
            try ClickHouseTesting.withStore { store, project throws in
                let db = store.location.database
                let tables = ["sessions_local", "session_pages_local"]
                for shard in store.location.shards {
                    for table in tables {
                        _ = try store.client.execute("SYSTEM STOP MERGES \(db).\(table)", on: shard)
                    }
                }
                try write(store, project)
                #expect(try ClickHouseTesting.redundantCopies(store, project: project) == shared.count)
                #expect(try answers(store, project) == expected)
                // Narrowed to the sessions with a row on the filter's days or not, the same rows.
                for filter in filters {
                    let sql = store.sql
                    for narrowed in [
                        { sql.sessionFigures(projectId: project.id, filter: filter, sessions: $0).sql },
                        { sql.rollupDwell(projectId: project.id, filter: filter, sessions: $0).sql },
                        {
                            sql.rollupMoves(projectId: project.id, filter: filter, from: nil, sessions: $0)
                                .sql
                        },
                    ] as [(ClickHouseSQL.Sessions) -> String] {
                        #expect(
                            try store.client.rows(narrowed(.inRange)).map { $0.joined(separator: "\t") }
                                .sorted()
                                == store.client.rows(narrowed(.all)).map { $0.joined(separator: "\t") }
                                .sorted())
                    }
                }
                for shard in store.location.shards {
                    for table in tables {
                        _ = try store.client.execute("SYSTEM START MERGES \(db).\(table)", on: shard)
                        _ = try store.client.execute("OPTIMIZE TABLE \(db).\(table) FINAL", on: shard)
                    }
                }
                #expect(try answers(store, project) == expected)
            }
        }
    }

    /// Regression: the copy check after a group's INSERT named every device and message id of
    /// the group in one query, and past 50,000 of them ClickHouse refused it ("AST is too big"),
    /// so a large group failed as a whole. The check now runs on slices of the group.
    @Test func aGroupPastTheQueryElementLimitIsStoredAndCheckedOnce() throws {
        try ClickHouseTesting.withStore { store, project throws in
            let time = Timestamp(millisecondsSince1970: 1_796_083_200_000)
            let count = 2 * 15_000
            let events = (0..<count).map { Self.event("m\($0)", anonymousId: "device-\($0)", at: time) }
            let batch = IngestBatch(projectId: project.id, events: events, receivedAt: time)
            try ClickHouseTesting.stopMerges(store)
            #expect(try store.write(batch) == WriteOutcome(stored: count, duplicates: 0))
            #expect(try store.write(batch) == WriteOutcome(stored: 0, duplicates: count))
            #expect(try ClickHouseTesting.redundantCopies(store, project: project) == count)
            #expect(try store.eventCount(projectId: project.id) == count)
        }
    }
}

/// A shard stopped while the store writes: the write fails as `unavailable` (the collector
/// answers 503 with Retry-After), and once the shard is back the resent batches are stored
/// exactly once.
@Suite(.serialized, .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHouseShardFaultTests {
    @Test(.timeLimit(.minutes(5))) func aStoppedShardFailsTheWriteAndTheResendStoresEachEventOnce() throws {
        let shards = try PrivateShards()
        defer { shards.stop() }
        let data = PeopleTests.DataSet(seed: 5)
        try ClickHouseAgreementTests.expectSameReports(data, url: shards.url) { store, project in
            let batches = data.ingestBatches(project: project)
            _ = try store.write(batches[0])
            try shards.stopShard(2)
            let failure = ClickHouseTesting.writeFailure(store, batches[1])
            #expect(failure?.code == .unavailable, "\(String(describing: failure))")
            #expect(throws: ServerError.self) { try store.eventCount(projectId: project.id) }
            try shards.startShard(2)
            for batch in batches.dropFirst() { _ = try store.write(batch) }
            // The first batch again: nothing of it is stored twice.
            #expect(
                try store.write(batches[0]) == WriteOutcome(stored: 0, duplicates: batches[0].events.count))
        }
    }
}

/// The HTTP client's failures: each carries ClickHouse's message and the code the HTTP layer
/// turns into 503 with `Retry-After`.
@Suite(.enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHouseClientTests {
    static func client(port: UInt16? = nil, maximumResponseBytes: Int = 1 << 20) throws -> ClickHouseClient {
        var location = try ClickHouseTesting.newLocation()
        if let port { location.node.port = port }
        var configuration = ClickHouseClient.Configuration()
        configuration.maximumResponseBytes = maximumResponseBytes
        return ClickHouseClient(location: location, configuration: configuration)
    }

    @Test func aRefusedStatementCarriesClickHousesMessage() throws {
        let client = try Self.client()
        #expect(String(decoding: try client.execute("SELECT 1 + 1"), as: UTF8.self) == "2\n")
        do {
            _ = try client.execute("SELEC nothing")
            Issue.record("a syntax error was accepted")
        } catch {
            #expect(error.code == .storage)
            #expect(error.message.contains("Code: 62"), "\(error.message)")
        }
    }

    @Test func aNodeThatIsNotThereIsUnavailable() throws {
        let client = try Self.client(port: try freeLoopbackPort())
        do {
            _ = try client.execute("SELECT 1")
            Issue.record("a node that is not there answered")
        } catch {
            #expect(error.code == .unavailable, "\(error)")
            #expect(error.message.contains("cannot be reached"), "\(error)")
        }
    }

    @Test func anAnswerPastTheLimitIsCutOffAndFails() throws {
        let client = try Self.client(maximumResponseBytes: 10_000)
        #expect(try client.execute("SELECT arrayStringConcat(arrayMap(i -> 'x', range(9000)))").count == 9001)
        do {
            _ = try client.execute("SELECT number FROM system.numbers LIMIT 100000")
            Issue.record("an answer past the limit was read")
        } catch {
            #expect(error.code == .storage)
            #expect(error.message.contains("larger than 10000 bytes"), "\(error.message)")
        }
    }

    @Test func aQueryPastItsTimeOutIsUnavailable() throws {
        let client = try Self.client()
        do {
            _ = try client.execute("SELECT sleep(3)", timeout: 1)
            Issue.record("a query past its time-out was answered")
        } catch {
            #expect(error.code == .unavailable, "\(error)")
        }
    }

    @Test func requestsReuseOneKeptAliveConnection() throws {
        let client = try Self.client()
        for number in 0..<50 {
            #expect(String(decoding: try client.execute("SELECT \(number)"), as: UTF8.self) == "\(number)\n")
        }
        // A refusal keeps the connection too: ClickHouse answers it in full.
        #expect(throws: ServerError.self) { try client.execute("SELEC nothing") }
        _ = try client.execute("SELECT 1")
        #expect(client.connectionStatistics == HTTPConnectionPool.Statistics(connects: 1, requests: 52))
    }

    @Test func concurrentRequestsOpenAConnectionEachAndKeepThem() throws {
        let client = try Self.client()
        for _ in 0..<3 {
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                _ = try? client.execute("SELECT sleep(0.2)")
            }
        }
        let statistics = client.connectionStatistics
        #expect(statistics.requests == 12)
        #expect(statistics.connects >= 1 && statistics.connects <= 8, "\(statistics)")
    }

    @Test func aConnectionIdleTooLongIsNotReused() throws {
        let location = try ClickHouseTesting.newLocation()
        var configuration = ClickHouseClient.Configuration()
        configuration.maximumIdleSeconds = 0.2
        let client = ClickHouseClient(location: location, configuration: configuration)
        _ = try client.execute("SELECT 1")
        _ = try client.execute("SELECT 1")
        usleep(300_000)
        _ = try client.execute("SELECT 1")
        #expect(client.connectionStatistics == HTTPConnectionPool.Statistics(connects: 2, requests: 3))
    }

    @Test func theExceptionCodeHeaderSetsTheErrorsCode() throws {
        let client = try Self.client()
        do {
            _ = try client.execute("SELECT throwIf(number = 3) FROM system.numbers LIMIT 5")
            Issue.record("a thrown exception was accepted")
        } catch {
            #expect(error.code == .storage)
            #expect(error.message.contains("Code: 395"), "\(error.message)")
        }
        // A transient code (159, a time-out) is unavailable whatever the body says.
        let transient = ClickHouseClient.error(
            status: 500, body: Array("not a code".utf8), node: client.location.node, code: 159)
        #expect(transient.code == .unavailable)
    }
}
