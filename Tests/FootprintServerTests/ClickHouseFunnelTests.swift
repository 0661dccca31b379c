import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// ClickHouse counts funnels in SQL (``ClickHouseSQL/funnelDepths(of:stepSets:stepCount:windowMilliseconds:)``):
/// on random timelines full of ties and hits exactly at the window's end, each person's depth is
/// the one ``FunnelReport/depth(stepCount:hits:windowMilliseconds:)`` walks, on 18.16 and on a
/// current release, and the store's funnels equal SQLite's and the walk's over stored events.
@Suite(.serialized, .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHouseFunnelTests {
    /// Random hits of `people` people: times on a 1-second grid of 12 (so hits tie, and windows
    /// of whole seconds end exactly on one), each completing one of `sets`.
    static func timelines(seed: UInt64, people: Int, sets: [UInt64]) -> [[FunnelHit]] {
        var random = SeededRandom(seed: seed)
        return (0..<people).map { _ in
            (0..<Int.random(in: 0...9, using: &random)).map { _ in
                FunnelHit(
                    time: 1_796_083_200_000 + Int64.random(in: 0..<12, using: &random) * 1_000,
                    steps: sets.randomElement(using: &random)!)
            }
        }
    }

    /// The SQL over literal rows `id, hits`: each person's hits packed as the store packs them
    /// (`time * sets + rank`), ascending; returns `id, depth` ascending as TSV.
    static func depths(of people: [[FunnelHit]], sets: [UInt64], stepCount: Int, window: Int64) -> String {
        let packed = people.map { hits in
            hits.map { $0.time * Int64(sets.count) + Int64(sets.firstIndex(of: $0.steps)!) }.sorted()
        }
        let rows = packed.map { "[\($0.map(String.init).joined(separator: ","))]" }
        let literal = """
            SELECT number AS id, arrayMap(h -> toInt64(h), [\(rows.joined(separator: ", "))][number + 1]) AS hits
            FROM system.numbers LIMIT \(people.count)
            """
        let depths = ClickHouseSQL.funnelDepths(
            of: literal, stepSets: sets, stepCount: stepCount, windowMilliseconds: window)
        return "SELECT id, depth FROM (\(depths)) ORDER BY id FORMAT TSV"
    }

    @Test func eachPersonsDepthInSQLIsTheWalksOnBothReleases() throws {
        let port = try #require(
            ClickHouseTestEnvironment.shardPorts(ClickHouseTestEnvironment.requireURL()).first)
        // Steps 0…3; sets with one step, with two (one hit completing two steps of an attempt
        // counts for one), and a step repeated (a funnel A → B → A); ascending, as
        // ``FunnelSources/stepSets`` gives them (ties are taken in that order).
        let sets: [UInt64] = [0b1, 0b10, 0b11, 0b100, 0b101, 0b1000, 0b1010]
        var statements: [(label: String, sql: String, expect: String?)] = []
        var checked = 0
        for (index, (stepCount, window)) in [
            (2, Int64(0)), (2, 3_000), (3, 2_000), (4, 5_000), (4, 86_400_000), (3, -1), (1, 1_000),
        ].enumerated() {
            let people = Self.timelines(seed: UInt64(index + 1), people: 300, sets: sets)
            let depths = people.map {
                FunnelReport.depth(stepCount: stepCount, hits: $0, windowMilliseconds: window)
            }
            let expected = depths.enumerated().map { id, depth in "\(id)\t\(depth)" }
            let sql = Self.depths(of: people, sets: sets, stepCount: stepCount, window: window)
            let answer = try ClickHouseTestEnvironment.query(sql, port: port)
            #expect(
                answer.split(separator: "\n").map(String.init) == expected,
                "\(stepCount) steps, window \(window) ms")
            statements.append(
                ("\(stepCount) steps, window \(window) ms", sql, expected.joined(separator: "\n")))
            checked += depths.filter { $0 > 1 }.count
        }
        // Not a vacuous check: many people got past the first step.
        #expect(checked > 500)
        if ChDBCheck.python != nil || ClickHouseTesting.required {
            try ChDBCheck.expectEveryStatementRuns(statements)
        }
    }

    /// One event of the random data set.
    struct Event {
        var device: String
        var user: String?
        var name: String
        var page: String
        var view: Bool
        var time: Int64
    }

    @Test func funnelsOfRandomEventsEqualTheWalkAndSQLites() throws {
        var random = SeededRandom(seed: 15)
        let day: Int64 = 1_796_083_200_000
        let names = ["A", "B", "C"]
        let pages = ["P", "Q"]
        var events: [Event] = []
        var links: [IdentityLink] = []
        for device in 0..<60 {
            if device % 4 == 0 {
                links.append(IdentityLink(anonymousId: "d\(device)", userId: "u\(device % 12)"))
            }
            for _ in 0..<Int.random(in: 0...10, using: &random) {
                let view = Int.random(in: 0..<3, using: &random) == 0
                events.append(
                    Event(
                        device: "d\(device)", user: device % 7 == 0 ? "u\(device % 12)" : nil,
                        name: view
                            ? pages.randomElement(using: &random)! : names.randomElement(using: &random)!,
                        page: pages.randomElement(using: &random)!, view: view,
                        time: day + Int64.random(in: 0..<15, using: &random) * 1_000))
            }
        }
        let records = events.enumerated().map { index, event in
            let time = Timestamp(millisecondsSince1970: event.time)
            return EventRecord(
                messageId: "m\(index)", type: event.view ? .screen : .track, name: event.name, time: time,
                clientTimestamp: time, sentAt: nil, receivedAt: time, anonymousId: event.device,
                userId: event.user, sessionId: "s-\(event.device)",
                page: event.view ? event.name : event.page,
                elementPath: nil, appVersion: "1.0", os: "iOS 17.2",
                payload: event.view ? #"{"type":"screen"}"# : #"{"type":"track"}"#)
        }
        // The third batch is sent twice: its copies are recorded, and the reads leave them out.
        let batches = stride(from: 0, to: records.count, by: 100).map {
            Array(records[$0..<min($0 + 100, records.count)])
        }
        let definition = EventDefinition(
            id: "b-on-q", name: "B on Q", matchers: [EventMatcher(event: "B", page: "Q")])
        let choices: [FunnelStep] = [
            .event("A"), .event("B"), .event("C"), .page("P"), .page("Q"), .defined(definition),
        ]
        let filters = [
            ReportFilter(
                from: Timestamp(millisecondsSince1970: day),
                to: Timestamp(millisecondsSince1970: day + 86_400_000)),
            ReportFilter(
                from: Timestamp(millisecondsSince1970: day + 3_000),
                to: Timestamp(millisecondsSince1970: day + 11_000)),
            ReportFilter(page: "P"),
        ]
        var funnels: [(steps: [FunnelStep], window: Int64)] = []
        for _ in 0..<40 {
            funnels.append(
                (
                    (0..<Int.random(in: 2...4, using: &random)).map { _ in
                        choices.randomElement(using: &random)!
                    },
                    [0, 1_000, 2_000, 5_000, 86_400_000].randomElement(using: &random)!
                ))
        }
        let linked = Dictionary(
            links.map { ($0.anonymousId, $0.userId) }, uniquingKeysWith: { first, _ in first })

        // The walk over the events themselves.
        func walk(_ steps: [FunnelStep], window: Int64, filter: ReportFilter) -> [Int] {
            var people: [String: [FunnelHit]] = [:]
            for event in events {
                if let from = filter.from, event.time < from.millisecondsSince1970 { continue }
                if let to = filter.to, event.time >= to.millisecondsSince1970 { continue }
                let page = event.view ? event.name : event.page
                if let wanted = filter.page, page != wanted { continue }
                var bits: UInt64 = 0
                for (index, step) in steps.enumerated() {
                    let matches: Bool
                    switch step {
                    case .event(let name): matches = !event.view && event.name == name
                    case .page(let name): matches = event.view && event.name == name
                    case .defined: matches = !event.view && event.name == "B" && event.page == "Q"
                    }
                    if matches { bits |= 1 << UInt64(index) }
                }
                guard bits != 0 else { continue }
                let person = event.user ?? linked[event.device] ?? event.device
                people[person, default: []].append(FunnelHit(time: event.time, steps: bits))
            }
            return FunnelReport.reached(
                stepCount: steps.count, people: Array(people.values), windowMilliseconds: window)
        }
        func answers(_ store: any EventStore, _ project: Project) throws -> [[Int]] {
            try Stores(testing: store).metadata.saveEventDefinition(
                definition, projectId: project.id, at: Timestamp(millisecondsSince1970: day))
            for (index, batch) in (batches + [batches[2]]).enumerated() {
                _ = try store.write(
                    IngestBatch(
                        projectId: project.id, events: batch, identityLinks: index == 0 ? links : [],
                        receivedAt: Timestamp(millisecondsSince1970: day)))
            }
            return try filters.flatMap { filter in
                let counts = try store.rollupPageCounts(
                    projectId: project.id, filter: filter, kinds: RollupReports.definitionCountKinds,
                    texts: false)
                return try funnels.map { funnel in
                    let sources = try #require(FunnelSources(steps: funnel.steps, counts: counts))
                    return try store.funnelPeople(
                        projectId: project.id, filter: filter, sources: sources,
                        stepCount: funnel.steps.count,
                        windowMilliseconds: funnel.window)
                }
            }
        }
        let expected = filters.flatMap { filter in
            funnels.map { walk($0.steps, window: $0.window, filter: filter) }
        }
        // Not vacuous: many funnels have people past the first step, and some stop short.
        #expect(expected.filter { $0.count > 1 && $0[1] > 0 }.count > 40)
        #expect(expected.filter { $0.count > 1 && $0[1] < $0[0] }.count > 20)
        try withTemporaryStore("footprint-funnels") { sqlite, project throws in
            #expect(try answers(sqlite, project) == expected)
        }
        try ClickHouseTesting.withStore { store, project throws in
            #expect(try answers(store, project) == expected)
            #expect(try ClickHouseTesting.redundantCopies(store, project: project) == batches[2].count)
        }
    }
}

extension ClickHouseFunnelTests {
    /// Regression: a defined step named every page it matches in the funnel's SQL, four times,
    /// so a definition over 2,000 pages made a query past ClickHouse's default `max_query_size`
    /// (256 KiB) and `max_ast_elements`, and the funnel and defined-event reports failed. Each
    /// page is named once per part now, and the store's queries may be larger.
    @Test func aDefinedStepOverThousandsOfPagesIsCountedAsOnSQLite() throws {
        let day: Int64 = 1_796_083_200_000
        let pages = (0..<2_000).map { "Page \($0) " + String(repeating: "of a long screen title ", count: 5) }
        let opened = EventDefinition(
            id: "opened", name: "Opened anywhere",
            matchers: pages.map { EventMatcher(event: "Opened", page: $0) })
        let events = pages.enumerated().flatMap { index, page in
            let time = Timestamp(millisecondsSince1970: day + Int64(index) * 1_000)
            return [
                EventRecord(
                    messageId: "v\(index)", type: .screen, name: "Home", time: time, clientTimestamp: time,
                    sentAt: nil, receivedAt: time, anonymousId: "d\(index % 300)", userId: nil,
                    sessionId: "s\(index % 300)", page: "Home", elementPath: nil, appVersion: "1.0",
                    os: "iOS 17.2", payload: #"{"type":"screen"}"#),
                EventRecord(
                    messageId: "o\(index)", type: .track, name: "Opened",
                    time: time.adding(milliseconds: 500), clientTimestamp: time.adding(milliseconds: 500),
                    sentAt: nil, receivedAt: time, anonymousId: "d\((index * 7) % 300)", userId: nil,
                    sessionId: "s\(index % 300)", page: page, elementPath: nil, appVersion: "1.0",
                    os: "iOS 17.2", payload: #"{"type":"track"}"#),
            ]
        }
        let filter = ReportFilter(
            from: Timestamp(millisecondsSince1970: day),
            to: Timestamp(millisecondsSince1970: day + 86_400_000))
        func answers(_ store: any EventStore, _ project: Project) throws -> [[Int]] {
            try Stores(testing: store).metadata.saveEventDefinition(
                opened, projectId: project.id, at: Timestamp(millisecondsSince1970: day))
            _ = try store.write(
                IngestBatch(
                    projectId: project.id, events: events, receivedAt: Timestamp(millisecondsSince1970: day)))
            let counts = try store.rollupPageCounts(
                projectId: project.id, filter: filter, kinds: RollupReports.definitionCountKinds, texts: false
            )
            let sources = try #require(
                FunnelSources(steps: [.page("Home"), .defined(opened)], counts: counts))
            let selectors = RollupReports.match(opened, counts: counts).people
            #expect(selectors.count == pages.count)
            return [
                try store.funnelPeople(
                    projectId: project.id, filter: filter, sources: sources, stepCount: 2,
                    windowMilliseconds: 60_000),
                try store.peopleCounts(projectId: project.id, filter: filter, selections: [Set(selectors)]),
            ]
        }
        let expected = try withTemporaryStore("footprint-wide-funnel") { sqlite, project throws in
            try answers(sqlite, project)
        }
        #expect(expected[0][1] > 30)
        try ClickHouseTesting.withStore { store, project throws in
            #expect(try answers(store, project) == expected)
        }
    }
}
