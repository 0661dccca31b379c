import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The settled session figures (dwell histograms, page moves and session lengths per day,
/// computed by a round): with a round's figures for the days no session was touched on since,
/// and the others computed from the marks, every report stays SQLite's, through late events of
/// settled sessions, a resend and a person's deletion, and so do the rounds after each, which
/// compute only the touched days.
@Suite(.serialized, .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHouseSettledTests {
    /// A quarter of the data set's events, picked by message id: written after a round, they
    /// come late to sessions it settled (and to their last views' dwells and moves).
    static func isLate(_ event: EventRecord) -> Bool { (event.messageId.utf8.last ?? 0) % 4 == 0 }

    /// Waits past the second of the shards' clocks a round's cutoff was taken in, so that what
    /// is written next is touched after it.
    static func pastCutoff() { Thread.sleep(forTimeInterval: 1.1) }

    /// `data` with a fifth of its identified people's events sent before their identify (no user
    /// id): their devices' links, not the events, make them one person with their user ids. And
    /// a device whose id is a user id's: its events without a user id are that user's, with no
    /// link.
    static func identifiedLate(_ data: PeopleTests.DataSet) -> PeopleTests.DataSet {
        var copy = data
        let user = data.batches.flatMap(\.events).compactMap(\.userId).min()
        for batch in copy.batches.indices {
            for event in copy.batches[batch].events.indices {
                let byte = copy.batches[batch].events[event].messageId.utf8.last ?? 0
                if byte % 5 == 1 { copy.batches[batch].events[event].userId = nil }
                if byte % 5 == 2, copy.batches[batch].events[event].userId == nil, let user {
                    copy.batches[batch].events[event].anonymousId = user
                }
            }
        }
        return copy
    }

    @Test func everyReportEqualsSQLitesFromARoundAndTheDaysTouchedSince() throws {
        let data = Self.identifiedLate(PeopleTests.DataSet(seed: 3))
        // A third of the links come after the round, days after both of their ids' events.
        let linkedLate: (IdentityLink) -> Bool = { ($0.anonymousId.utf8.last ?? 0) % 3 == 0 }
        let early = data.filtered(events: { !Self.isLate($0) }, links: { !linkedLate($0) })
        let late = data.filtered(events: Self.isLate, links: { _ in false })
        var links = data.filtered(events: { _ in false }, links: linkedLate)
        #expect(!links.batches.flatMap(\.links).isEmpty)
        // And devices with events without a user id linked before the round linked again after
        // it, to a smaller user id with events: their person changes from one to the other.
        let events = data.batches.flatMap(\.events)
        let smallest = try #require(events.compactMap(\.userId).min())
        let anonymous = Set(events.filter { $0.userId == nil }.compactMap(\.anonymousId))
        let relinked = early.batches.flatMap(\.links).filter {
            $0.userId > smallest && anonymous.contains($0.anonymousId)
        }.prefix(5).map { IdentityLink(anonymousId: $0.anonymousId, userId: smallest) }
        #expect(!relinked.isEmpty)
        links.batches[0].links += relinked
        let person = try #require(data.linkedUser())
        let request = PersonDeletion.Request(requestedBy: "test", at: data.end)
        try withTemporaryStore("footprint-settled") { sqlite, sqliteProject in
            try ClickHouseTesting.withStore(configure: { $0.settledMargin = 0 }) { store, project throws in
                func expectAgreement(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws
                {
                    let expected = try ClickHouseAgreementTests.everyReport(sqlite, sqliteProject, data: data)
                    let answers = try ClickHouseAgreementTests.everyReport(store, project, data: data)
                    #expect(answers.count == expected.count, "\(step)", sourceLocation: sourceLocation)
                    for (got, want) in zip(answers, expected) where got != want {
                        Issue.record(
                            "\(step): ClickHouse: \(got)\nSQLite:     \(want)", sourceLocation: sourceLocation
                        )
                    }
                    // Every report again through one view whose reads share their lookups: the
                    // same answers, each lookup made once for the project.
                    let view = try #require(store.sharingLookups() as? SharedLookupReads)
                    let shared = try ClickHouseAgreementTests.everyReport(view, project, data: data)
                    #expect(shared.count == expected.count, "\(step)", sourceLocation: sourceLocation)
                    for (got, want) in zip(shared, expected) where got != want {
                        Issue.record(
                            "\(step), shared lookups: ClickHouse: \(got)\nSQLite:     \(want)",
                            sourceLocation: sourceLocation)
                    }
                    #expect(view.lookups.rounds.count == 1, "\(step)", sourceLocation: sourceLocation)
                    #expect(view.lookups.people.count <= 1, "\(step)", sourceLocation: sourceLocation)
                }
                // No round yet: the figures come from the marks.
                try early.write(into: sqlite, project: sqliteProject)
                try early.write(into: store, project: project)
                #expect(try store.settledRound(projectId: project.id) == nil)
                let first = try #require(try store.settle(projectId: project.id))
                #expect(first.computed == nil)
                let settled = try #require(try store.settledRound(projectId: project.id))
                #expect(settled.round == first.round)
                #expect(settled.touchedDays.isEmpty)
                let lastDay = try #require(early.batches.flatMap(\.events).map(\.time.dayNumber).max())
                #expect(settled.window == lastDay - 1)
                let week = ReportFilter.lastDays(7, now: data.end)
                let people = try store.settledPeopleRound(projectId: project.id, filter: week)
                #expect(people?.round == first.round)
                // Its people are read from its totals.
                #expect(people?.totals == true)
                // The activity of one page, app version or OS too (its labelled kinds), not of two.
                let label = data.batches.flatMap(\.events).compactMap(\.appVersion).max()
                for filter in [
                    ReportFilter(from: week.from, to: week.to, page: "ProductList"),
                    ReportFilter(from: week.from, to: week.to, appVersion: label),
                ] {
                    #expect(
                        try store.settledPeopleRound(projectId: project.id, filter: filter, labelled: true)?
                            .round == first.round)
                    #expect(try store.settledPeopleRound(projectId: project.id, filter: filter) == nil)
                }
                #expect(
                    try store.settledPeopleRound(
                        projectId: project.id,
                        filter: ReportFilter(
                            from: week.from, to: week.to, appVersion: label, page: "ProductList"),
                        labelled: true) == nil)
                try expectAgreement("after the round")

                // Links made after the round: they touch no session, and the people of their
                // members are grouped as the links are now.
                Self.pastCutoff()
                try links.write(into: sqlite, project: sqliteProject)
                try links.write(into: store, project: project)
                #expect(try store.settledPeopleRound(projectId: project.id, filter: week)?.touchedDays == [])
                try expectAgreement("after links made after the round")

                // What `change` writes after the round `round`: the days it touched come from the
                // marks, the others from the round. Then the next round, which computes only those
                // days and copies the others: every day from it.
                // `keepsPeople`: whether the next round keeps the round's people of the members
                // with nothing written since (`nil`: either).
                func afterRound(
                    _ round: String, _ step: String, keepsPeople: Bool?,
                    sourceLocation: SourceLocation = #_sourceLocation, _ change: () throws -> Void
                ) throws -> String {
                    Self.pastCutoff()
                    try change()
                    let settled = try #require(try store.settledRound(projectId: project.id))
                    #expect(settled.round == round, sourceLocation: sourceLocation)
                    #expect(!settled.touchedDays.isEmpty, sourceLocation: sourceLocation)
                    // The round's window is its last two days with sessions: the sessions touched
                    // since on those are taken back and computed again, every session of the days
                    // before it.
                    #expect(settled.window == lastDay - 1, sourceLocation: sourceLocation)
                    try expectAgreement(step, sourceLocation: sourceLocation)
                    let next = try #require(try store.settle(projectId: project.id))
                    #expect(next.computed == settled.touchedDays, sourceLocation: sourceLocation)
                    if let keepsPeople {
                        #expect(
                            next.peopleFrom == (keepsPeople ? round : nil), "\(step)",
                            sourceLocation: sourceLocation)
                    }
                    #expect(
                        try store.settledRound(projectId: project.id)?.touchedDays == [],
                        sourceLocation: sourceLocation)
                    try expectAgreement(step + ", then a round", sourceLocation: sourceLocation)
                    return next.round
                }
                // Late events of settled sessions.
                let second = try afterRound(first.round, "after late events", keepsPeople: true) {
                    try late.write(into: sqlite, project: sqliteProject)
                    try late.write(into: store, project: project)
                    // The people from the round and the rows written since.
                    #expect(
                        try store.settledPeopleRound(projectId: project.id, filter: week)?.round
                            == first.round)
                    // The sessions touched since on the window's days are taken back.
                    #expect(
                        try store.settledRound(projectId: project.id)?.takenBackSessions(week)?.isEmpty
                            == false)
                }
                // A resend: the records of its copies touch their sessions.
                let third = try afterRound(second, "after a resend", keepsPeople: false) {
                    try late.write(into: store, project: project)
                    try late.write(into: sqlite, project: sqliteProject)
                }
                // New events, not copies, of the devices with a redundant copy under a new name:
                // their rows written since come from their counted events.
                var again = late.filtered(events: { $0.type == .track }, links: { _ in false })
                for batch in again.batches.indices {
                    for event in again.batches[batch].events.indices {
                        again.batches[batch].events[event].messageId += "-again"
                        again.batches[batch].events[event].name = "Again"
                    }
                }
                let fourth = try afterRound(
                    third, "after new events of devices with a redundant copy", keepsPeople: true
                ) {
                    try again.write(into: sqlite, project: sqliteProject)
                    try again.write(into: store, project: project)
                    #expect(try store.settledPeopleRound(projectId: project.id, filter: week)?.round == third)
                }
                // A person's deletion.
                let fifth = try afterRound(fourth, "after a deletion", keepsPeople: nil) {
                    _ = try sqlite.deletePerson(id: person, projectId: sqliteProject.id, request: request)
                    _ = try store.deletePerson(id: person, projectId: project.id, request: request)
                    // The deletion takes the totals away: the reads take the members' rows (or the
                    // person rows, when the copy records it deleted void the round's people).
                    #expect(try store.settledPeopleRound(projectId: project.id, filter: week)?.totals != true)
                }
                #expect(try store.settledPeopleRound(projectId: project.id, filter: week)?.round == fifth)
                #expect(try store.settledPeopleRound(projectId: project.id, filter: week)?.totals == true)
                // The rounds before the latest two are deleted (in the background).
                let deadline = Date().addingTimeInterval(60)
                while try store.client.rows(store.sql.rounds(projectId: project.id)).count > 2,
                    Date() < deadline
                {
                    Thread.sleep(forTimeInterval: 0.2)
                }
                #expect(try store.client.rows(store.sql.rounds(projectId: project.id)).count == 2)
            }
        }
    }

    /// A round with a window but no rows per session (one copied by a binary that knew no
    /// window keeps the window's row without them) is read without a window: the touched days of
    /// its window are computed from every session of theirs, and every report stays SQLite's.
    @Test func aRoundWithoutRowsPerSessionIsReadWithoutAWindow() throws {
        let data = PeopleTests.DataSet(seed: 7)
        let early = data.filtered(events: { !Self.isLate($0) }, links: { _ in true })
        let late = data.filtered(events: Self.isLate, links: { _ in false })
        try withTemporaryStore("footprint-settled-no-window") { sqlite, sqliteProject in
            try ClickHouseTesting.withStore(configure: { $0.settledMargin = 0 }) { store, project throws in
                try early.write(into: sqlite, project: sqliteProject)
                try early.write(into: store, project: project)
                try #require(try store.settle(projectId: project.id) != nil)
                #expect(try store.settledRound(projectId: project.id)?.window != nil)
                for shard in store.location.shards {
                    _ = try store.client.execute(
                        "TRUNCATE TABLE \(store.location.database).settled_sessions_local", on: shard)
                }
                Self.pastCutoff()
                try late.write(into: sqlite, project: sqliteProject)
                try late.write(into: store, project: project)
                let round = try #require(try store.settledRound(projectId: project.id))
                #expect(round.window == nil)
                #expect(round.recomputedDays == round.touchedDays && !round.touchedDays.isEmpty)
                ClickHouseAgreementTests.expectSame(
                    try ClickHouseAgreementTests.everyReport(store, project, data: data),
                    try ClickHouseAgreementTests.everyReport(sqlite, sqliteProject, data: data))
            }
        }
    }

    /// A session id that two devices send (a client chooses it) makes one session whose rows sit
    /// on both devices' shards: the days touched since a round walk it whole, as SQLite does.
    @Test func aSessionOfTwoDevicesIsWalkedWholeOnTheDaysTouchedSince() throws {
        let data = PeopleTests.DataSet(seed: 6)
        let events = data.batches.flatMap(\.events)
        let lastDay = try #require(events.map(\.time.dayNumber).max())
        // Ten sessions of the last day, each sent again a second later by a device of its own.
        let sessions = Set(
            Set(events.filter { $0.time.dayNumber == lastDay }.compactMap(\.sessionId)).sorted().prefix(10))
        #expect(sessions.count == 10)
        var twins = data.filtered(events: { _ in false }, links: { _ in false })
        twins.batches[0].events = events.filter { $0.sessionId.map(sessions.contains) ?? false }.map {
            var twin = $0
            twin.messageId += "-twin"
            twin.anonymousId = "twin-" + ($0.sessionId ?? "")
            twin.userId = nil
            twin.time = $0.time.adding(milliseconds: 1_000)
            return twin
        }
        try withTemporaryStore("footprint-settled-twins") { sqlite, sqliteProject in
            try ClickHouseTesting.withStore(configure: { $0.settledMargin = 0 }) { store, project throws in
                try data.write(into: sqlite, project: sqliteProject)
                try data.write(into: store, project: project)
                try #require(try store.settle(projectId: project.id) != nil)
                Self.pastCutoff()
                try twins.write(into: sqlite, project: sqliteProject)
                try twins.write(into: store, project: project)
                #expect(try store.settledRound(projectId: project.id)?.touchedDays.contains(lastDay) == true)
                ClickHouseAgreementTests.expectSame(
                    try ClickHouseAgreementTests.everyReport(store, project, data: data),
                    try ClickHouseAgreementTests.everyReport(sqlite, sqliteProject, data: data))
            }
        }
    }

    /// A touch up to a round's cutoff that comes after the round (an INSERT still under way, a
    /// replica's fetch) voids it: the reads compute every day from the marks until the next.
    @Test func aTouchThatComesAfterTheRoundUpToItsCutoffVoidsIt() throws {
        let data = PeopleTests.DataSet(seed: 4)
        try ClickHouseTesting.withStore(configure: { $0.settledMargin = 0 }) { store, project throws in
            try data.write(into: store, project: project)
            let round = try #require(try store.settleSessionFigures(projectId: project.id))
            #expect(try store.settledRound(projectId: project.id)?.round == round)
            let cutoff = try #require(
                try store.client.rows(store.sql.latestRounds(projectId: project.id)).first
            )
            .cutoff
            _ = try store.client.execute(
                """
                INSERT INTO \(store.location.database).touched_sessions (project_id, touched, session_key, day)
                VALUES (\(project.id), \(cutoff - 5), 'late', 1)
                """, settings: ["insert_distributed_sync": "1"])
            #expect(try store.settledRound(projectId: project.id) == nil)
            let next = try #require(try store.settleSessionFigures(projectId: project.id))
            #expect(try store.settledRound(projectId: project.id)?.round == next)
        }
    }

    /// Retention deletes the touches of the days before its horizon: the round before it no
    /// longer holds, and the reads and the next round (every day) give SQLite's reports after the
    /// same retention.
    @Test func retentionVoidsTheRoundBeforeIt() throws {
        let data = PeopleTests.DataSet(seed: 8)
        try withTemporaryStore("footprint-settled-retention") { sqlite, sqliteProject in
            try data.write(into: sqlite, project: sqliteProject)
            _ = try sqlite.applyRetention(defaultDays: 4, now: data.end)
            let expected = try ClickHouseAgreementTests.everyReport(sqlite, sqliteProject, data: data)
            try ClickHouseTesting.withStore(configure: { $0.settledMargin = 0 }) { store, project throws in
                try data.write(into: store, project: project)
                try #require(try store.settleSessionFigures(projectId: project.id) != nil)
                _ = try store.applyRetention(defaultDays: 4, now: data.end)
                #expect(try store.settledRound(projectId: project.id) == nil)
                ClickHouseAgreementTests.expectSame(
                    try ClickHouseAgreementTests.everyReport(store, project, data: data), expected)
                let next = try #require(try store.settle(projectId: project.id))
                #expect(next.computed == nil)
                #expect(try store.settledRound(projectId: project.id)?.round == next.round)
                ClickHouseAgreementTests.expectSame(
                    try ClickHouseAgreementTests.everyReport(store, project, data: data), expected)
            }
        }
    }

    /// The days a read computes from the marks beside a round: each run of touched days within
    /// the filter's, as whole days.
    @Test func theTouchedDaysWithinAFilterAreReadAsRunsOfWholeDays() {
        let day: Int64 = 86_400_000
        let filter = ReportFilter(
            from: Timestamp(millisecondsSince1970: 10 * day), to: Timestamp(millisecondsSince1970: 20 * day),
            appVersion: "2.0")
        let live = ClickHouseEventStore.liveFilters(filter, days: [3, 10, 11, 12, 15, 19, 20, 25])
        #expect(
            live.map { [$0.from?.millisecondsSince1970 ?? -1, $0.to?.millisecondsSince1970 ?? -1] }
                == [[10 * day, 13 * day], [15 * day, 16 * day], [19 * day, 20 * day]])
        #expect(live.allSatisfy { $0.appVersion == "2.0" })
        #expect(ClickHouseEventStore.liveFilters(ReportFilter(), days: [1, 2, 4]).count == 2)
        #expect(ClickHouseEventStore.liveFilters(filter, days: []).isEmpty)
    }

    /// A round's window splits the days touched since: those before it are computed from every
    /// session of theirs, and within the filter's days from the window's first on, the sessions
    /// touched since are taken back and computed again; none when no touched day is in it or the
    /// filter ends before it, and every touched day computed without a window or without the
    /// touched sessions' hashes (more than a read sends).
    @Test func aWindowTakesBackTheSessionsTouchedSinceOnItsDaysOnly() {
        let day: Int64 = 86_400_000
        func filter(_ from: Int64?, _ to: Int64?) -> ReportFilter {
            ReportFilter(
                from: from.map { Timestamp(millisecondsSince1970: $0 * day) },
                to: to.map { Timestamp(millisecondsSince1970: $0 * day) }, os: "iOS")
        }
        func days(_ filter: ReportFilter?) -> [Int64?]? {
            filter.map {
                [$0.from?.millisecondsSince1970, $0.to?.millisecondsSince1970].map { $0.map { $0 / day } }
            }
        }
        var round = ClickHouseEventStore.SettledRound(
            round: "r", cutoff: 1, touchedDays: [3, 18, 19, 20], window: 19, touchedSessions: [7])
        #expect(round.recomputedDays == [3, 18])
        #expect(days(round.takenBack(filter(10, 21))) == [19, 21])
        #expect(round.takenBackSessions(filter(10, 21)) == [7])
        #expect(round.touchedTable(.touched).count == 1 && round.touchedTable(.inRange).isEmpty)
        #expect(days(round.takenBack(filter(20, 21))) == [20, 21])
        #expect(days(round.takenBack(filter(nil, nil))) == [19, nil])
        #expect(round.takenBack(filter(10, 21))?.os == "iOS")
        #expect(round.takenBack(filter(10, 19)) == nil)
        #expect(round.takenBackSessions(filter(10, 19)) == nil)
        round.touchedSessions = nil
        #expect(round.recomputedDays == [3, 18, 19, 20])
        #expect(round.takenBack(filter(10, 21)) == nil)
        round.touchedSessions = [7]
        round.touchedDays = [3, 18]
        #expect(round.takenBack(filter(10, 21)) == nil)
        #expect(round.recomputedDays == [3, 18])
        round.window = nil
        round.touchedDays = [3, 18, 19, 20]
        #expect(round.recomputedDays == [3, 18, 19, 20])
        #expect(round.takenBack(filter(10, 21)) == nil)
    }

    /// The totals count each person once in every span: random day sets over three 64-day blocks
    /// (with the edges: the first and last day of a block, gaps of 63, 64 and 65 days, one day
    /// alone), their gap counts (``ClickHouseSQL/gapCounts(of:)``) summed by the reads' measures
    /// for every span of random ranges of 1…64 days, on the cluster, against the people with a
    /// day in the span.
    /// A read filtered on one page, app version or OS takes the round's rows of that value, and
    /// counts each for its own kind and key; a value that begins with another's is not taken as
    /// it.
    @Test func aLabelledReadTakesTheRowsOfItsValueOnly() throws {
        typealias Items = ClickHouseSQL.SettledPeopleItems
        #expect(SettledLabel(ReportFilter(page: "Home")) == SettledLabel(dimension: .page, value: "Home"))
        #expect(SettledLabel(ReportFilter(os: "iOS 17")) == SettledLabel(dimension: .os, value: "iOS 17"))
        #expect(SettledLabel(ReportFilter()) == nil)
        #expect(SettledLabel(ReportFilter(appVersion: "1", page: "Home")) == nil)
        let (views, any) = (Int(RollupKind.pageViews.rawValue), Int(RollupKind.anyEvent.rawValue))
        let version = SettledLabel(dimension: .appVersion, value: "2.4")
        let pages = Items(kind: views, keys: nil, label: version)
        #expect(pages.storedKind == ClickHouseSQL.labelledKind(views, by: .appVersion))
        #expect(pages.reported(kind: pages.storedKind, key: "3:2.4Home")! == (views, "Home"))
        // Version "2.4X", which begins with this one, is not taken as it.
        #expect(pages.reported(kind: pages.storedKind, key: "4:2.4XHome") == nil)
        #expect(pages.reported(kind: views, key: "Home") == nil)
        let active = Items(kind: any, keys: nil, label: version)
        #expect(active.reported(kind: active.storedKind, key: "2.4")! == (any, ""))
        #expect(active.condition.contains("key = '2.4'"))
        // Unlabelled, its own rows; so are a page's page views on that page.
        #expect(Items(kind: views, keys: ["Home"]).reported(kind: views, key: "Home")! == (views, "Home"))
        let home = Items(kind: views, keys: ["Home"], label: SettledLabel(dimension: .page, value: "Home"))
        #expect(home.storedKind == views)
        #expect(home.condition == Items(kind: views, keys: ["Home"]).condition)
        // And its page views of any page, that page's.
        let visitors = Items(kind: ClickHouseSQL.anyPageKind, keys: nil, label: home.label)
        #expect(visitors.condition == home.condition)
        #expect(visitors.reported(kind: views, key: "Home")! == (ClickHouseSQL.anyPageKind, ""))
        #expect(visitors.reported(kind: views, key: "Cart") == nil)
        // Every labelled kind is a kind of its own, apart from the others a round keeps.
        let kinds = ClickHouseSQL.settledKindCodes
        #expect(Set(kinds).count == kinds.count)
        #expect(
            Set(kinds).isDisjoint(with: [
                ClickHouseSQL.copiesSeenKind, ClickHouseSQL.linkedMembersKind, ClickHouseSQL.sharedIdsKind,
                ClickHouseSQL.totalsMarkerKind,
            ]))
    }

    @Test func theTotalsCountEachPersonOnceInEverySpanOfAnyRange() throws {
        var random = SeededRandom(seed: 26)
        let firstBlock: Int64 = 300
        var people: [Set<Int64>] = [
            [0], [63], [64], [191], [0, 63], [0, 64], [0, 65], [1, 65], [63, 127], [0, 127, 191],
            [62, 63, 64],
        ]
        for _ in 0..<300 {
            let density = Int.random(in: 1...40, using: &random)
            let days = (0..<192).filter { _ in Int.random(in: 0..<100, using: &random) < density }
            if !days.isEmpty { people.append(Set(days.map(Int64.init))) }
        }
        func masks(_ days: Set<Int64>) -> [UInt64] {
            var masks = Array(repeating: UInt64(0), count: Int((days.max() ?? 0) / 64 + 1))
            for day in days { masks[Int(day / 64)] |= UInt64(1) << UInt64(day % 64) }
            return masks
        }
        let rows = people.map { "[" + masks($0).map(String.init).joined(separator: ", ") + "]" }
        let source = """
            SELECT toUInt8(1) AS kind, '' AS key, toInt64(\(firstBlock)) AS first_block, days
            FROM system.one ARRAY JOIN CAST([\(rows.joined(separator: ", "))] AS Array(Array(UInt64))) AS days
            """
        try ClickHouseTesting.withStore { store, _ throws in
            for _ in 0..<12 {
                let count = Int.random(in: 1...64, using: &random)
                let first = Int64.random(in: 0...(192 - Int64(count)), using: &random)
                let spans =
                    ClickHouseSQL.SettledSpan.range(count)
                    + ClickHouseSQL.SettledSpan.windows(count, window: 7)
                    + ClickHouseSQL.SettledSpan.windows(count, window: 30)
                let start = firstBlock * 64 + first
                let measures = spans.map { $0.totalsMeasure(firstDay: start) }.joined(separator: ", ")
                let got = try store.client.rows(
                    """
                    SELECT \(measures) FROM (\(ClickHouseSQL.gapCounts(of: source)))
                    WHERE day >= \(start) AND day < \(start + Int64(count))
                    """
                ).first?.map { Int($0) ?? -1 }
                let want = spans.map { span in
                    people.filter { days in
                        days.contains { $0 >= first + Int64(span.first) && $0 <= first + Int64(span.last) }
                    }.count
                }
                #expect(got == want, "days \(first) to \(first + Int64(count) - 1)")
            }
        }
    }

    /// The settling thread's turn drops the hours of `touched_members` and `touched_links` older than
    /// ``ClickHouseSQL/touchedKept`` and keeps the others.
    @Test func theHoursOfRowsWrittenSinceAreDroppedOnceNoReadTakesThem() throws {
        try ClickHouseTesting.withStore { store, project throws in
            let now = Int64(Date().timeIntervalSince1970)
            let table = "\(store.location.database).touched_rows"
            for (age, device) in [(ClickHouseSQL.touchedKept + 3_600, "old"), (3_600, "recent"), (0, "now")] {
                _ = try store.client.execute(
                    """
                    INSERT INTO \(table) (project_id, touched, kind, key, day, device, user_id)
                    VALUES (\(project.id), \(now - age), 1, '', 0, '\(device)', '')
                    """, settings: ["insert_distributed_sync": "1"])
            }
            let links = "\(store.location.database).touched_links"
            for (age, device) in [(ClickHouseSQL.touchedKept + 3_600, "old"), (0, "now")] {
                _ = try store.client.execute(
                    """
                    INSERT INTO \(links) (project_id, touched, anonymous_id)
                    VALUES (\(project.id), \(now - age), '\(device)')
                    """, settings: ["insert_distributed_sync": "1"])
            }
            store.dropStaleTouchedHours()
            let left = try store.client.rows("SELECT device FROM \(table) ORDER BY device")
            #expect(left.map { $0.map(String.init) } == [["now"], ["recent"]])
            let linksLeft = try store.client.rows("SELECT anonymous_id FROM \(links)")
            #expect(linksLeft.map { $0.map(String.init) } == [["now"]])
        }
    }

    /// The settling thread makes a round by itself once sessions are touched.
    @Test func theSettlingThreadMakesARound() throws {
        let data = PeopleTests.DataSet(seed: 5)
        try ClickHouseTesting.withStore(configure: {
            $0.settledInterval = 1
            $0.settledMargin = 0
        }) { store, project throws in
            try data.write(into: store, project: project)
            let deadline = Date().addingTimeInterval(120)
            while try store.settledRound(projectId: project.id) == nil, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.2)
            }
            #expect(try store.settledRound(projectId: project.id) != nil)
        }
    }
}
