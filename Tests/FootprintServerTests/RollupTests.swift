import FootprintSQLite
import FootprintSynthetic
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The daily rollups kept on ingest give the same traffic numbers as reading the events.
@Suite(.serialized) struct RollupTests {
    static func withStore(
        maximumReportEvents: Int = 5_000_000, _ body: (SQLiteEventStore, Project) throws -> Void
    ) throws {
        try withTemporaryDatabase("footprint-rollup") { path in
            var configuration = SQLiteEventStore.Configuration()
            configuration.synchronous = "OFF"
            configuration.maximumReportEvents = maximumReportEvents
            let store = try SQLiteEventStore(path: path, configuration: configuration)
            defer { store.close() }
            let project = try store.createProject(named: "rollups")
            for definition in Self.definitions {
                try store.saveEventDefinition(
                    definition, projectId: project.id, at: Timestamp(millisecondsSince1970: 0))
            }
            try body(store, project)
        }
    }

    /// The report a filter gives from rollups (through the service) and from the events (the
    /// engine), for comparison.
    struct Both {
        var rollups: ReportService
        var project: Project
        var engine: ReportEngine
        var parameters: ReportParameters
    }

    static func both(
        _ store: SQLiteEventStore, _ project: Project, _ filter: ReportFilter, query: [String: String] = [:]
    ) throws -> Both {
        var parameters = try ReportParameters(query: query, now: Timestamp(millisecondsSince1970: 0))
        parameters.filter = filter
        try saveDefinitions(in: store, project)
        return Both(
            rollups: ReportService(stores: Stores(store)), project: project,
            engine: ReportEngine(
                events: try store.analyticsEvents(
                    projectId: project.id, filter: filter, properties: .included),
                identityLinks: try store.identityLinks(projectId: project.id)),
            parameters: parameters)
    }

    /// Stores ``definitions`` (for funnel steps).
    static func saveDefinitions(in store: SQLiteEventStore, _ project: Project) throws {
        for definition in definitions {
            try store.saveEventDefinition(
                definition, projectId: project.id, at: Timestamp(millisecondsSince1970: 0))
        }
    }

    static func withoutDwell(_ report: TrafficReport) -> TrafficReport {
        var report = report
        report.pages = report.pages.map { page in
            var page = page
            page.averageDwellMilliseconds = nil
            page.medianDwellMilliseconds = nil
            page.dwellSamples = 0
            return page
        }
        return report
    }

    /// Every report from rollups equals the engine's over the same events, except the dwell
    /// median (a histogram estimate, within 6.25 %).
    static func expectSameReports(_ both: Both, sessions: Bool, dwell: Bool, _ comment: Comment) throws {
        let service = both.rollups
        let project = both.project
        let parameters = both.parameters
        let engine = both.engine
        let filter = parameters.filter
        #expect(RollupReports.canAnswer(filter))
        let traffic = try service.traffic(project: project, parameters: parameters)
        let scanned = engine.traffic(days: filter)
        #expect(Self.withoutDwell(traffic) == Self.withoutDwell(scanned), comment)
        #expect(traffic.pageViews > 0, comment)
        if dwell {
            for (rolled, exact) in zip(traffic.pages, scanned.pages) {
                #expect(rolled.averageDwellMilliseconds == exact.averageDwellMilliseconds, comment)
                #expect(rolled.dwellSamples == exact.dwellSamples, comment)
                let median = Double(exact.medianDwellMilliseconds ?? 0)
                #expect(
                    abs(Double(rolled.medianDwellMilliseconds ?? 0) - median) <= median * 0.0625 + 1, comment)
            }
        }
        #expect(
            try service.topEvents(project: project, parameters: parameters, limit: 50)
                == engine.topEvents(limit: 50), comment)
        for grouping in ElementGrouping.allCases {
            #expect(
                try service.elements(project: project, parameters: parameters, grouping: grouping, limit: 20)
                    == engine.elements(grouping: grouping, limit: 20), comment)
        }
        #expect(
            try service.items(project: project, parameters: parameters, limit: 50) == engine.items(limit: 50),
            comment)
        let definitions = Self.definitions
        #expect(
            try service.definedEvents(project: project, parameters: parameters, definitions: definitions)
                == engine.definedEvents(definitions), comment)
        for funnel in Self.funnels {
            var funnelParameters = parameters
            funnelParameters.query = Dictionary(
                uniqueKeysWithValues: funnel.enumerated().map { ("step\($0.offset + 1)", $0.element) })
            let steps = try funnelParameters.funnelSteps(definitions: definitions)
            #expect(
                try service.funnel(project: project, parameters: funnelParameters) == engine.funnel(steps),
                "\(comment) \(funnel)")
        }
        for returnEvent in [nil, "$element_click"] as [String?] {
            var retention = parameters
            retention.query = ["days": "3"].merging(returnEvent.map { ["return_event": $0] } ?? [:]) { $1 }
            #expect(
                try service.retention(project: project, parameters: retention)
                    == engine.retention(
                        returnEvent: returnEvent, days: 3,
                        lastDay: filter.to!.adding(milliseconds: -1).dayNumber), comment)
        }
        guard sessions else { return }
        #expect(try service.sessions(project: project, parameters: parameters) == engine.sessions(), comment)
        for page in ["Home", "ProductList", "Cart"] {
            #expect(
                try service.paths(project: project, parameters: parameters, after: page, limit: 10)
                    == engine.paths(after: page, limit: 10), comment)
        }
        #expect(
            try service.transitions(project: project, parameters: parameters, limit: 20)
                == engine.topTransitions(limit: 20), comment)
    }

    /// Funnels over pages, events and definitions: read from the event times, or (the last
    /// two: a click read both as `$element_click` and by its path; identify messages on a
    /// page) from the events.
    static let funnels: [[String]] = [
        ["page:Home", "page:ProductList", "event:$element_click"],
        ["page:Home", "defined:any-product-cell", "defined:buy-or-favorite-on-detail"],
        ["defined:share-anywhere", "defined:share-anywhere", "event:$screen_leave"],
        ["defined:home-views", "defined:leaves-on-cart", "defined:clicks-on-search", "page:Cart"],
        ["defined:every-click", "event:$item_exposure", "defined:every-click"],
        ["event:$element_click", "defined:buy-on-home"],
        ["page:Home", "defined:anything-on-checkout"],
    ]

    /// Definitions of every shape: exact, similar and pattern paths with and without a page,
    /// events with and without a page, a page alone, clicks without a path rule, and two the
    /// rollups cannot answer (attribute conditions; similar mixed with exact rules).
    static let definitions: [EventDefinition] = {
        func define(_ id: String, _ matchers: [EventMatcher]) -> EventDefinition {
            EventDefinition(id: id.replacingOccurrences(of: " ", with: "-"), name: id, matchers: matchers)
        }
        let cells =
            "#tableView:didSelectRowAtIndexPath:#UITableView#ProductCell[0:*]#ProductListViewController"
        return [
            define(
                "buy on home",
                [EventMatcher(path: ElementRule(path: "#buy:#UIButton#UIStackView[0]#HomeViewController"))]),
            define("any product cell", [EventMatcher(path: ElementRule(match: .similar, path: cells))]),
            define("share anywhere", [EventMatcher(path: ElementRule(match: .pattern, path: "#share:#**"))]),
            define(
                "buy or favorite on detail",
                [
                    EventMatcher(path: ElementRule(match: .pattern, path: "#buy:#**"), page: "ProductDetail"),
                    EventMatcher(
                        path: ElementRule(match: .pattern, path: "#favorite:#**"), page: "ProductDetail"),
                    EventMatcher(
                        path: ElementRule(match: .pattern, path: "#buy:#**#ProductDetailViewController")),
                ]),
            define("exposures", [EventMatcher(event: "$item_exposure")]),
            define("leaves on cart", [EventMatcher(event: "$screen_leave", page: "Cart")]),
            define("home views", [EventMatcher(event: "Home")]),
            define("anything on checkout", [EventMatcher(page: "Checkout")]),
            define(
                "clicks on search",
                [
                    EventMatcher(event: "$element_click", page: "Search"),
                    EventMatcher(path: ElementRule(match: .pattern, path: "#**#SearchViewController")),
                ]),
            define("every click", [EventMatcher(event: "$element_click")]),
            define(
                "typed buy",
                [
                    EventMatcher(
                        path: ElementRule(
                            match: .pattern, path: "#buy:#**", attributes: ["element_type": "UIButton"]))
                ]),
            define(
                "mixed",
                [
                    EventMatcher(path: ElementRule(match: .similar, path: cells)),
                    EventMatcher(
                        path: ElementRule(path: "#back:#UIButton#UIStackView[0]#CartViewController")),
                ]),
        ]
    }()

    static func synthetic(seed: UInt64) -> SyntheticTraffic.Configuration {
        var configuration = SyntheticTraffic.Configuration()
        configuration.people = 40
        configuration.days = 10
        configuration.seed = seed
        return configuration
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func everyRollupReportEqualsTheEventScanForEveryFilter(seed: UInt64) throws {
        try Self.expectEveryRollupReportEqualsTheEventScan(Self.synthetic(seed: seed))
    }

    /// Users whose devices browse before they sign in: people of two members each.
    @Test func everyRollupReportEqualsTheEventScanWhenUsersSignInLater() throws {
        var configuration = Self.synthetic(seed: 4)
        configuration.signInLater = true
        try Self.expectEveryRollupReportEqualsTheEventScan(configuration)
    }

    static func expectEveryRollupReportEqualsTheEventScan(_ configuration: SyntheticTraffic.Configuration)
        throws
    {
        try Self.withStore { store, project in
            var traffic = SyntheticTraffic(configuration: configuration)
            try traffic.write(count: 3_000, into: store, projectId: project.id, batchSize: 500)
            // Resent batches must not count twice.
            var again = SyntheticTraffic(configuration: configuration)
            try again.write(count: 3_000, into: store, projectId: project.id, batchSize: 500)
            #expect(!(try store.identityLinks(projectId: project.id)).isEmpty)
            let end = configuration.end
            let day: Int64 = 86_400_000
            // Wider than the data: sessions are whole on both sides.
            let everything = ReportFilter(
                from: end.adding(milliseconds: -11 * day), to: end.adding(milliseconds: day))
            try Self.expectSameReports(
                Self.both(store, project, everything), sessions: true, dwell: true, "everything")
            let all = try Self.both(store, project, everything)
            let defined = try all.rollups.definedEvents(
                project: project, parameters: all.parameters, definitions: Self.definitions)
            #expect(defined.allSatisfy { $0.count > 0 && $0.uniqueVisitors > 0 }, "\(defined)")
            for filter in [
                ReportFilter(from: everything.from, to: everything.to, appVersion: "2.4.0"),
                ReportFilter(from: everything.from, to: everything.to, os: "iOS 18.1"),
            ] {
                try Self.expectSameReports(
                    Self.both(store, project, filter), sessions: true, dwell: true, "\(filter)")
            }
            for page in ["ProductList", "Home", "Checkout"] {
                let filter = ReportFilter(from: everything.from, to: everything.to, page: page)
                try Self.expectSameReports(
                    Self.both(store, project, filter), sessions: true, dwell: false, "\(filter)")
            }
            // Sessions across the range's edges count whole on their first day, unlike the
            // engine's, which reads only the range's events.
            let lastDays = ReportFilter.lastDays(3, now: end.adding(milliseconds: -day - 1))
            try Self.expectSameReports(
                Self.both(store, project, lastDays), sessions: false, dwell: false, "\(lastDays)")
        }
    }

    /// Sessions stored before their marks were bytes (JSON text) are read, continued by later
    /// events, and rewritten as bytes: the reports equal the event scan's.
    @Test func sessionsStoredWithMarksAsTextAreReadAndContinued() throws {
        var generator = SyntheticTraffic(configuration: Self.synthetic(seed: 14))
        var events: [EventRecord] = []
        while events.count < 1_500 { events += generator.session().events }
        let end = Self.synthetic(seed: 14).end
        let everything = ReportFilter(
            from: end.adding(milliseconds: -11 * 86_400_000), to: end.adding(milliseconds: 86_400_000))
        try Self.withStore { store, project in
            // Each session's events split across the two writes.
            let first = events.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            let second = events.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            _ = try store.write(IngestBatch(projectId: project.id, events: first, receivedAt: end))
            let rewritten = try store.requireWriter().perform { database in
                let rows = try database.prepare(
                    "SELECT start_time, end_time, page_views, app_version, os, marks, session_key FROM sessions"
                ).rows { (GroupCommitWriter.storedTimeline($0), $0.text(at: 6) ?? "") }
                let update = try database.prepare("UPDATE sessions SET marks = ?1 WHERE session_key = ?2")
                for (timeline, key) in rows {
                    try update.run([.text(try #require(timeline).encodedMarks), .text(key)])
                }
                return rows.count
            }
            #expect(rewritten > 100)
            let text = try store.read { database in
                try database.prepare("SELECT count(*) FROM sessions WHERE typeof(marks) = 'text'").rows {
                    $0.int64(at: 0)
                }
            }
            #expect(text == [Int64(rewritten)])
            _ = try store.write(IngestBatch(projectId: project.id, events: second, receivedAt: end))
            try Self.expectSameReports(
                try Self.both(store, project, everything), sessions: true, dwell: true, "text marks continued"
            )
            let stillText = try store.read { database in
                try database.prepare("SELECT count(*) FROM sessions WHERE typeof(marks) = 'text'").rows {
                    $0.int64(at: 0)
                }
            }
            #expect(stillText.first ?? 0 < Int64(rewritten), "the sessions continued are bytes now")
        }
    }

    /// The rollups do not depend on the order events arrive in: batches shuffled, split and
    /// resent give the same reports as the events sent in order.
    @Test(arguments: [UInt64(4), 5])
    func rollupsDoNotDependOnArrivalOrder(seed: UInt64) throws {
        var generator = SyntheticTraffic(configuration: Self.synthetic(seed: seed))
        var events: [EventRecord] = []
        var links: [IdentityLink] = []
        while events.count < 2_000 {
            let session = generator.session()
            events += session.events
            links += session.links
        }
        var random = SeededRandom(seed: seed)
        let shuffled = events.shuffled(using: &random)
        let end = Self.synthetic(seed: seed).end
        let everything = ReportFilter(
            from: end.adding(milliseconds: -11 * 86_400_000), to: end.adding(milliseconds: 86_400_000))
        var reports: [[String]] = []
        for ordered in [events, shuffled] {
            try Self.withStore { store, project in
                var start = 0
                var size = 1
                while start < ordered.count {
                    let slice = Array(ordered[start..<min(ordered.count, start + size)])
                    _ = try store.write(
                        IngestBatch(
                            projectId: project.id, events: slice, identityLinks: links, receivedAt: end))
                    start += size
                    size = size % 97 + 13
                }
                let both = try Self.both(store, project, everything)
                try Self.expectSameReports(both, sessions: true, dwell: true, "arrival order")
                var onPage = everything
                onPage.page = "ProductList"
                try Self.expectSameReports(
                    Self.both(store, project, onPage), sessions: true, dwell: false, "arrival order, one page"
                )
                let service = both.rollups
                reports.append([
                    "\(try service.traffic(project: project, parameters: both.parameters))",
                    "\(try service.sessions(project: project, parameters: both.parameters))",
                    "\(try service.transitions(project: project, parameters: both.parameters, limit: 100))",
                ])
            }
        }
        #expect(reports[0] == reports[1])
    }

    /// A database from before the rollups of migration 3 is migrated and its rollups rebuilt
    /// from its events on open: the reports then equal the event scan.
    @Test func anOlderDatabaseIsMigratedAndItsRollupsRebuilt() throws {
        try withTemporaryDatabase("footprint-rollup-upgrade") { path in
            var generator = SyntheticTraffic(configuration: Self.synthetic(seed: 7))
            var events: [EventRecord] = []
            while events.count < 1_500 { events += generator.session().events }
            do {
                let database = try SQLiteDatabase(path: path)
                try database.migrate(Array(SQLiteSchema.migrations.prefix(2)))
                try database.execute("INSERT INTO projects(id, name, created_at) VALUES (1, 'old', 0)")
                // The insert of schema version 2 (no plan_event column yet).
                try insertAsBefore14(events, into: database, project: 1, planEvent: false) {
                    .text($0.payload)
                }
                #expect(try database.userVersion == 2)
            }
            var configuration = SQLiteEventStore.Configuration()
            configuration.synchronous = "OFF"
            let store = try SQLiteEventStore(path: path, configuration: configuration)
            defer { store.close() }
            let project = try #require(try store.project(named: "old"))
            let end = Self.synthetic(seed: 7).end
            let everything = ReportFilter(
                from: end.adding(milliseconds: -11 * 86_400_000), to: end.adding(milliseconds: 86_400_000))
            try Self.expectSameReports(
                Self.both(store, project, everything), sessions: true, dwell: true, "upgraded")
            #expect(try store.eventCount(projectId: project.id) == events.count)
        }
    }

    /// A database whose rollups must be rebuilt (as after the upgrade) is refused to read-only
    /// readers (`footprint report` beside a server) until a writable open has rebuilt them; the
    /// rebuilt rollups give the figures ingest gave.
    @Test func aPendingRebuildRefusesReadOnlyReadersUntilDone() throws {
        try withTemporaryDatabase("footprint-rollup-resume") { path in
            var configuration = SQLiteEventStore.Configuration()
            configuration.synchronous = "OFF"
            let end = Self.synthetic(seed: 8).end
            let everything = ReportFilter(
                from: end.adding(milliseconds: -11 * 86_400_000), to: end.adding(milliseconds: 86_400_000))
            var expected: [String] = []
            do {
                let store = try SQLiteEventStore(path: path, configuration: configuration)
                let project = try store.createProject(named: "resume")
                var traffic = SyntheticTraffic(configuration: Self.synthetic(seed: 8))
                try traffic.write(count: 1_200, into: store, projectId: project.id, batchSize: 300)
                let both = try Self.both(store, project, everything)
                expected = [
                    "\(try both.rollups.traffic(project: project, parameters: both.parameters))",
                    "\(try both.rollups.sessions(project: project, parameters: both.parameters))",
                ]
                store.close()
            }
            // As right after the migration: rollups empty, rebuild pending.
            do {
                let database = try SQLiteDatabase(path: path)
                try database.execute(
                    """
                    INSERT INTO store_state(key, value) VALUES ('\(SQLiteSchema.rebuildKey)', 0);
                    DELETE FROM rollup_counts; DELETE FROM rollup_totals; DELETE FROM person_label_sets;
                    DELETE FROM person_sets;
                    DELETE FROM rollup_times;
                    DELETE FROM sessions; DELETE FROM rollup_dwell; DELETE FROM rollup_moves;
                    """)
            }
            var readOnly = configuration
            readOnly.readOnly = true
            let refused = #expect(throws: ServerError.self) {
                try SQLiteEventStore(path: path, configuration: readOnly)
            }
            #expect(refused?.message.contains("still being built") == true)
            let store = try SQLiteEventStore(path: path, configuration: configuration)
            defer { store.close() }
            let project = try #require(try store.project(named: "resume"))
            let both = try Self.both(store, project, everything)
            #expect(
                [
                    "\(try both.rollups.traffic(project: project, parameters: both.parameters))",
                    "\(try both.rollups.sessions(project: project, parameters: both.parameters))",
                ] == expected)
            try Self.expectSameReports(both, sessions: true, dwell: true, "rebuilt")
            let reader = try SQLiteEventStore(path: path, configuration: readOnly)
            reader.close()
        }
    }

    /// The rows a store keeps for its events, every column, in a set order: the events by id, the
    /// links, the daily counts and totals, the person days, the sessions and their pages, the
    /// dwell and the moves.
    static func storedRows(_ path: String) throws -> [String: [String]] {
        let database = try SQLiteDatabase(path: path)
        var rows: [String: [String]] = [:]
        for table in [
            "events", "identities", "rollup_counts", "rollup_totals", "sessions", "session_pages",
            "rollup_dwell", "rollup_moves",
        ] {
            // A session's number follows the order sessions were first written in: its key stands for it.
            let columns = try database.prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid")
                .rows([.text(table)]) { $0.text(at: 0) ?? "" }
                .filter { table != "sessions" || $0 != "number" }
                .map {
                    table == "session_pages" && $0 == "session"
                        ? "(SELECT session_key FROM sessions s WHERE s.number = session_pages.session)" : $0
                }
            let quoted = columns.map { "quote(\($0))" }.joined(separator: " || ',' || ")
            let order = table == "events" ? "id" : "1"
            rows[table] = try database.prepare("SELECT \(quoted) FROM \(table) ORDER BY \(order)")
                .rows { $0.text(at: 0) ?? "" }
        }
        // The sets of people, each member as its id (numbers follow the order ids were first
        // seen; the file keeps only digests salted per file, here of the ids its events hold)
        // and a set's chunks together.
        let salt = try database.prepare("SELECT salt FROM people_salt").rows { $0.blob(at: 0) }.first ?? []
        let ids = try database.prepare(
            "SELECT anonymous_id FROM events UNION SELECT user_id FROM events WHERE user_id IS NOT NULL"
        ).rows { $0.text(at: 0) ?? "" }
        let byDigest = Dictionary(
            ids.map { (PersonIdDigest(of: $0, salt: salt).bytes, $0) },
            uniquingKeysWith: { first, _ in first })
        let digests = Dictionary(
            uniqueKeysWithValues: try database.prepare("SELECT number, digest FROM person_numbers").rows {
                (UInt32($0.int64(at: 0)), byDigest[$0.blob(at: 1)] ?? "?")
            })
        for (table, columns) in [
            ("person_sets", "project_id, kind, key, day, role"),
            ("person_label_sets", "project_id, kind, key, day, page, app_version, os, role"),
        ] {
            var sets: [String: [String]] = [:]
            let key = columns.split(separator: ", ").map { "quote(\($0))" }.joined(separator: " || ',' || ")
            for (row, members) in try database.prepare("SELECT \(key), members FROM \(table)").rows(
                [],
                {
                    ($0.text(at: 0) ?? "", PersonSet(encoded: $0.blob(at: 1))?.members ?? [.max])
                })
            {
                sets[row, default: []] += members.map { digests[$0] ?? "?" }
            }
            rows[table] = sets.map { "\($0.key): \($0.value.sorted())" }.sorted()
        }
        return rows
    }

    /// The generator hands the store its next batch while the one before is being committed; the
    /// rows stored are those of one batch at a time, whatever the batches' size and overlap.
    @Test func generatedTrafficStoresTheSameRowsHowEverItsBatchesOverlap() throws {
        var stored: [[String: [String]]] = []
        for (batchSize, inFlight) in [(600, 1), (170, 4), (2_000, 2)] {
            try withTemporaryDatabase("footprint-rollup-overlap") { path in
                var configuration = SQLiteEventStore.Configuration()
                configuration.synchronous = "OFF"
                let store = try SQLiteEventStore(path: path, configuration: configuration)
                let project = try store.createProject(named: "overlap")
                var traffic = SyntheticTraffic(configuration: Self.synthetic(seed: 5))
                var reported: [Int] = []
                let written = try traffic.write(
                    count: 2_500, into: store, projectId: project.id, batchSize: batchSize, inFlight: inFlight
                ) { reported.append($0) }
                #expect(written == (try store.eventCount(projectId: project.id)))
                #expect(written >= 2_500)
                #expect(reported.last == written)
                #expect(reported == reported.sorted())
                store.close()
                stored.append(try Self.storedRows(path))
            }
        }
        #expect(stored[0]["events"]?.count ?? 0 >= 2_500)
        #expect(stored[0]["sessions"]?.isEmpty == false)
        for table in stored[0].keys.sorted() {
            #expect(stored[1][table] == stored[0][table], "\(table)")
            #expect(stored[2][table] == stored[0][table], "\(table)")
        }
    }

    /// The generator writes its days in order, as traffic arrives: the sessions' start days (in
    /// their ids) never go back from one stored event to the next, and each day has its share.
    @Test func generatedTrafficArrivesDayAfterDay() throws {
        try withTemporaryDatabase("footprint-generated-days") { path in
            let store = try SQLiteEventStore(path: path)
            let project = try store.createProject(named: "days")
            var configuration = Self.synthetic(seed: 7)
            configuration.days = 10
            var traffic = SyntheticTraffic(configuration: configuration)
            let written = try traffic.write(count: 3_000, into: store, projectId: project.id, batchSize: 700)
            store.close()
            let first = configuration.end.millisecondsSince1970 / 86_400_000 - 10
            let days = try SQLiteDatabase(path: path).prepare("SELECT session_id FROM events ORDER BY id")
                .rows {
                    Int64(($0.text(at: 0) ?? "").split(separator: "-").last ?? "").map {
                        $0 / 86_400_000 - first
                    }
                }
            #expect(days.count == written)
            #expect(days.allSatisfy { $0 != nil })
            let started = days.compactMap { $0 }
            #expect(started == started.sorted())
            let perDay = Dictionary(grouping: started, by: { $0 }).mapValues(\.count)
            #expect(perDay.keys.sorted() == Array(0..<10))
            #expect(perDay.values.allSatisfy { abs($0 - 300) <= 120 }, "\(perDay)")
        }
    }

    /// A store that fails its writes fails the generator, at once and with the store's error.
    @Test func generatedTrafficIntoAClosedStoreThrowsTheStoresError() throws {
        try Self.withStore { store, project in
            store.close()
            var traffic = SyntheticTraffic(configuration: Self.synthetic(seed: 5))
            let error = #expect(throws: ServerError.self) {
                try traffic.write(
                    count: 2_000, into: store, projectId: project.id, batchSize: 100, inFlight: 3)
            }
            #expect(error?.code == .closed)
        }
    }

    @Test func aRangeWithTooManyEventsIsRefusedButRollupsStillAnswer() throws {
        try Self.withStore(maximumReportEvents: 100) { store, project in
            var traffic = SyntheticTraffic()
            try traffic.write(count: 300, into: store, projectId: project.id)
            let filter = ReportFilter.lastDays(
                30, now: SyntheticTraffic.Configuration().end.adding(milliseconds: -1))
            let error = #expect(throws: ServerError.self) {
                try store.analyticsEvents(projectId: project.id, filter: filter, properties: .omitted)
            }
            #expect(error?.code == .invalidQuery)
            let counts = try store.rollupCounts(projectId: project.id, filter: filter)
            #expect(counts.reduce(0) { $0 + $1.count } >= 300)
        }
    }

    /// The counts of some kinds, read one day and kind at a time, are the rows of those kinds
    /// among every count, in the same order, for every filter (a range without ends or longer
    /// than the days read one by one reads the whole range); the kinds traffic and the
    /// dashboard's overview read have a row on every day any kind has one.
    @Test func theCountsOfSomeKindsAreThoseAmongAllCounts() throws {
        try Self.withStore { store, project in
            let configuration = Self.synthetic(seed: 6)
            var traffic = SyntheticTraffic(configuration: configuration)
            try traffic.write(count: 2_000, into: store, projectId: project.id, batchSize: 500)
            let end = configuration.end
            let day: Int64 = 86_400_000
            let from = end.adding(milliseconds: -11 * day)
            let to = end.adding(milliseconds: day)
            let filters = [
                ReportFilter(from: from, to: to), ReportFilter(from: from, to: to, appVersion: "2.4.0"),
                ReportFilter(from: from, to: to, os: "iOS 18.1"),
                ReportFilter(from: from, to: to, page: "ProductList"),
                ReportFilter(from: end.adding(milliseconds: -3 * day), to: end), ReportFilter(),
                ReportFilter(from: Timestamp(millisecondsSince1970: 0), to: to),
            ]
            let kindSets: [Set<RollupKind>] = [
                RollupReports.trafficCountKinds, RollupReports.itemCountKinds, RollupReports.dayCountKinds,
                [.trackEvents], [.planEvents], [.elementClicks, .anyEvent], [], Set(RollupKind.allCases),
            ]
            for filter in filters {
                let all = try store.rollupCounts(projectId: project.id, filter: filter)
                #expect(all.contains { RollupReports.itemCountKinds.contains($0.kind) }, "\(filter)")
                for kinds in kindSets {
                    #expect(
                        try store.rollupCounts(projectId: project.id, filter: filter, kinds: kinds)
                            == all.filter { kinds.contains($0.kind) }, "\(filter) \(kinds)")
                }
                // The page counts without texts are those with texts, the texts left out.
                let kinds = RollupReports.definitionCountKinds
                let withTexts = try store.rollupPageCounts(
                    projectId: project.id, filter: filter, kinds: kinds, texts: true)
                let withoutTexts = try store.rollupPageCounts(
                    projectId: project.id, filter: filter, kinds: kinds, texts: false)
                if filter.from == nil { #expect(withTexts.contains { $0.text != nil }) }
                #expect(
                    withoutTexts
                        == withTexts.map {
                            var count = $0
                            count.text = nil
                            return count
                        }, "\(filter)")
                let days = try store.rollupCounts(
                    projectId: project.id, filter: filter, kinds: RollupReports.dayCountKinds)
                #expect(
                    Set(days.filter { $0.count > 0 }.map(\.day))
                        == Set(all.filter { $0.count > 0 }.map(\.day)),
                    "\(filter)")
            }
        }
    }

    /// The page counts of a range read per day and kind (a range with both ends) are those of
    /// one read over the days (an open range) on the same days: canonically equal texts in two
    /// spellings stay apart, as keys and as pages.
    @Test func pageCountsReadPerDayAreThoseOfOneRead() throws {
        try Self.withStore { store, project in
            let configuration = Self.synthetic(seed: 7)
            var generator = SyntheticTraffic(configuration: configuration)
            var events: [EventRecord] = []
            while events.count < 1_500 { events += generator.session().events }
            // Byte order and Swift's order differ on these (and the two spellings of "éclair"
            // are equal as Swift strings).
            let texts = ["Zebra", "e\u{301}clair", "\u{e9}clair", "\u{c4}rger", "apple", "\u{1f600}"]
            for index in events.indices where index % 3 == 0 {
                if events[index].page != nil { events[index].page = texts[(index / 3) % texts.count] }
                if events[index].type == .track { events[index].name = texts[(index / 3 + 1) % texts.count] }
            }
            _ = try store.write(
                IngestBatch(
                    projectId: project.id, events: events, identityLinks: [], receivedAt: configuration.end))
            let day: Int64 = 86_400_000
            let from = configuration.end.adding(milliseconds: -11 * day)
            let to = configuration.end.adding(milliseconds: day)
            func bytes(_ counts: [RollupPageCount]) -> [String] {
                counts.map {
                    "\($0.kind) \(Array($0.key.utf8)) \(Array($0.page.utf8)) \($0.day) \($0.count) \($0.text ?? "-")"
                }
            }
            for texts in [true, false] {
                let kinds = RollupReports.definitionCountKinds
                let perDay = try store.rollupPageCounts(
                    projectId: project.id, filter: ReportFilter(from: from, to: to), kinds: kinds,
                    texts: texts)
                let oneRead = try store.rollupPageCounts(
                    projectId: project.id, filter: ReportFilter(to: to), kinds: kinds, texts: texts
                ).filter { $0.day >= from.dayNumber }
                #expect(bytes(perDay).sorted() == bytes(oneRead).sorted())
                // Not vacuous: both spellings were counted, apart, as keys and as pages.
                for spelling in ["e\u{301}clair", "\u{e9}clair"] {
                    #expect(perDay.contains { $0.key.utf8.elementsEqual(spelling.utf8) })
                    #expect(perDay.contains { $0.page.utf8.elementsEqual(spelling.utf8) })
                }
            }
        }
    }

    /// Which funnels the event times answer: each click is read under one kind only, and a
    /// step limited to a page completes only that page's rows.
    @Test func funnelSourcesReadEveryEventOnce() throws {
        func defined(_ id: String) throws -> FunnelStep {
            .defined(try #require(Self.definitions.first { $0.name == id }))
        }
        let home = "#buy:#UIButton#UIStackView[0]#HomeViewController"
        let detail = "#buy:#UIButton#UIStackView[0]#ProductDetailViewController"
        func count(_ kind: RollupKind, _ key: String, page: String) -> RollupPageCount {
            RollupPageCount(kind: kind, key: key, page: page, day: 0, count: 1, text: nil)
        }
        let counts = [
            count(.pageViews, "Home", page: "Home"),
            count(.trackEvents, "$element_click", page: "Home"),
            count(.elementClicks, home, page: "Home"),
            count(.elementClicks, detail, page: "ProductDetail"),
            count(.trackEvents, "$element_click", page: "ProductDetail"),
            // Two clicks on Search, one of them without a path.
            RollupPageCount(
                kind: .trackEvents, key: "$element_click", page: "Search", day: 0, count: 2, text: nil),
            count(.elementClicks, "#search:#UIButton#SearchViewController", page: "Search"),
            count(.otherEvents, "identify", page: "Checkout"),
        ]
        func sources(_ steps: [FunnelStep]) -> FunnelSources? {
            FunnelSources(steps: steps, counts: counts)
        }
        let buyOnDetail = try defined("buy or favorite on detail")
        let read = try #require(sources([.page("Home"), buyOnDetail, buyOnDetail]))
        #expect(
            read.sources == [
                .init(kind: .pageViews, key: "Home"): .init(onAnyPage: 0b001),
                .init(kind: .elementClicks, key: detail): .init(onPage: ["ProductDetail": 0b110]),
            ])
        #expect(read.sources.values.first { !$0.onPage.isEmpty }?.completed(onPage: "Home") == 0)
        // The step sets rows complete, ascending (the order ties are taken in); none empty.
        #expect(read.stepSets == [0b001, 0b110])
        let twice = try #require(sources([.page("Home"), .event("Added"), .page("Home"), buyOnDetail]))
        #expect(twice.stepSets == [0b0010, 0b0101, 0b1000])
        // Every click on Search is read as `$element_click` there, not by path as well.
        let search = try #require(sources([try defined("clicks on search")]))
        #expect(
            search.sources == [.init(kind: .trackEvents, key: "$element_click"): .init(onPage: ["Search": 1])]
        )
        // Clicks by path and all clicks on the same page, in two steps: the engine decides.
        #expect(sources([.event("$element_click"), try defined("buy on home")]) == nil)
        #expect(sources([try defined("anything on checkout")]) == nil)
        #expect(sources([try defined("typed buy")]) == nil)
        // On different pages the two kinds never share a click.
        #expect(sources([try defined("clicks on search"), buyOnDetail]) != nil)
    }

    /// Funnels with defined steps and a page filter answer from the event times over a range
    /// with more events than a report may read.
    @Test func definedFunnelsAnswerWithoutReadingTheEvents() throws {
        try Self.withStore(maximumReportEvents: 100) { store, project in
            var traffic = SyntheticTraffic()
            try traffic.write(count: 3_000, into: store, projectId: project.id)
            try Self.saveDefinitions(in: store, project)
            var parameters = try ReportParameters(
                query: [
                    "step1": "page:Home", "step2": "defined:any-product-cell",
                    "step3": "defined:buy-or-favorite-on-detail",
                ], now: SyntheticTraffic.Configuration().end.adding(milliseconds: -1))
            let funnel = try ReportService(stores: Stores(store)).funnel(
                project: project, parameters: parameters)
            #expect(funnel.steps.map(\.people).allSatisfy { $0 > 0 }, "\(funnel)")
            parameters.filter.page = "ProductList"
            parameters.query = ["step1": "page:ProductList", "step2": "defined:any-product-cell"]
            let onList = try ReportService(stores: Stores(store)).funnel(
                project: project, parameters: parameters)
            #expect(onList.steps[1].people > 0 && onList.steps[1].people <= onList.steps[0].people)
        }
    }

    @Test func aRangeNotOnDayBoundariesIsAnsweredFromEvents() {
        let start = Timestamp(millisecondsSince1970: 1_793_491_200_000)
        #expect(
            !RollupReports.canAnswer(
                ReportFilter(from: start.adding(milliseconds: 1), to: start.adding(milliseconds: 86_400_000)))
        )
        #expect(!RollupReports.canAnswer(ReportFilter()))
        #expect(
            RollupReports.canAnswer(ReportFilter(from: start, to: start.adding(milliseconds: 86_400_000))))
    }
}
