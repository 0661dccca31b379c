import FootprintWire
import Testing

@testable import FootprintServer

/// Reports on small hand-made event sets with known answers.
struct ReportEngineTests {
    static let day: Int64 = 86_400_000
    /// 2026-11-01T00:00:00Z.
    static let start: Int64 = 1_793_491_200_000

    static func at(_ days: Int64, _ seconds: Int64 = 0) -> Timestamp {
        Timestamp(millisecondsSince1970: start + days * day + seconds * 1000)
    }

    static func screen(
        _ page: String, _ time: Timestamp, anon: String, user: String? = nil, session: String? = nil
    )
        -> AnalyticsEvent
    {
        AnalyticsEvent(
            type: .screen, name: page, time: time, anonymousId: anon, userId: user, sessionId: session,
            page: page)
    }

    static func track(
        _ event: String, _ time: Timestamp, anon: String, user: String? = nil, session: String? = nil,
        page: String? = nil
    ) -> AnalyticsEvent {
        AnalyticsEvent(
            type: .track, name: event, time: time, anonymousId: anon, userId: user, sessionId: session,
            page: page)
    }

    @Test func uniqueVisitorsMergeAnAnonymousIdWithItsUserIdAfterIdentify() {
        let events = [
            Self.screen("Home", Self.at(0, 10), anon: "device-1"),
            Self.screen("Home", Self.at(0, 20), anon: "device-1", user: "alice"),
            Self.screen("Home", Self.at(0, 30), anon: "device-2", user: "alice"),
            Self.screen("Home", Self.at(0, 40), anon: "device-3"),
        ]
        let merged = ReportEngine(events: events, identityLinks: ["device-1": "alice"]).traffic()
        #expect(merged.people == 2)
        #expect(merged.pages.first?.visitors == 2)
        #expect(merged.pages.first?.pageViews == 4)
        let unmerged = ReportEngine(events: events).traffic()
        #expect(unmerged.people == 3, "without the link device-1's anonymous views are another person")
    }

    @Test func dailyWeeklyAndMonthlyActivePeople() {
        let events = [
            Self.track("a", Self.at(0), anon: "p1"), Self.track("a", Self.at(0), anon: "p2"),
            Self.track("a", Self.at(3), anon: "p1"), Self.track("a", Self.at(8), anon: "p3"),
        ]
        let days = ReportEngine(events: events).traffic().days
        #expect(days.count == 9)
        #expect(days.map(\.dailyActive) == [2, 0, 0, 1, 0, 0, 0, 0, 1])
        #expect(days[3].weeklyActive == 2)
        #expect(days[7].weeklyActive == 1, "day 7's week is days 1...7: only p1 on day 3")
        #expect(days[8].weeklyActive == 2)
        #expect(days[8].monthlyActive == 3)
        #expect(days[0].day == "2026-11-01")
    }

    @Test func dwellUsesTheLeaveEventElseTheGapToTheNextScreenCappedAtTheTimeout() {
        var leave = Self.track("$screen_leave", Self.at(0, 100), anon: "p", session: "s", page: "Home")
        leave.durationMilliseconds = 4_000
        let events = [
            Self.screen("Home", Self.at(0, 96), anon: "p", session: "s"), leave,
            // No leave: the gap to the next screen (10 s).
            Self.screen("List", Self.at(0, 200), anon: "p", session: "s"),
            Self.screen("Detail", Self.at(0, 210), anon: "p", session: "s"),
            // No leave and a 2-hour gap: capped at 30 minutes.
            Self.screen("List", Self.at(0, 7410), anon: "p", session: "s"),
            // The last screen with neither has no dwell.
        ]
        let pages = Dictionary(
            uniqueKeysWithValues: ReportEngine(events: events).traffic().pages.map { ($0.page, $0) })
        #expect(pages["Home"]?.averageDwellMilliseconds == 4_000)
        #expect(pages["List"]?.averageDwellMilliseconds == 10_000)
        #expect(pages["List"]?.dwellSamples == 1)
        #expect(pages["Detail"]?.averageDwellMilliseconds == 1_800_000)
        #expect(pages["Detail"]?.medianDwellMilliseconds == 1_800_000)
    }

    @Test func medianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        #expect(ReportEngine.median([4, 1, 3, 2]) == 3)
        #expect(ReportEngine.median([5]) == 5)
        #expect(ReportEngine.median([]) == nil)
    }

    @Test func funnelCountsOrderedStepsWithinTheWindowOnly() {
        let steps: [FunnelStep] = [.page("Home"), .event("add"), .event("buy")]
        let events = [
            // p1: complete, with repeated steps.
            Self.screen("Home", Self.at(0), anon: "p1"), Self.screen("Home", Self.at(0, 5), anon: "p1"),
            Self.track("add", Self.at(0, 10), anon: "p1"), Self.track("add", Self.at(0, 11), anon: "p1"),
            Self.track("buy", Self.at(1), anon: "p1"),
            // p2: buys before adding (out of order): reaches step 2 only.
            Self.screen("Home", Self.at(0), anon: "p2"), Self.track("buy", Self.at(0, 5), anon: "p2"),
            Self.track("add", Self.at(0, 9), anon: "p2"),
            // p3: buys after the 14-day window: reaches step 2.
            Self.screen("Home", Self.at(0), anon: "p3"), Self.track("add", Self.at(1), anon: "p3"),
            Self.track("buy", Self.at(15), anon: "p3"),
            // p4: a later first step restarts the window, and converts.
            Self.screen("Home", Self.at(0), anon: "p4"), Self.screen("Home", Self.at(20), anon: "p4"),
            Self.track("add", Self.at(21), anon: "p4"), Self.track("buy", Self.at(22), anon: "p4"),
            // p5: never starts.
            Self.track("add", Self.at(0), anon: "p5"), Self.track("buy", Self.at(0, 1), anon: "p5"),
        ]
        let report = ReportEngine(events: events).funnel(steps)
        #expect(report.steps.map(\.people) == [4, 4, 2])
        #expect(report.steps.map(\.dropOff) == [0, 0, 2])
        #expect(report.conversion == 0.5)
        let shortWindow = ReportEngine(events: events).funnel(steps, windowMilliseconds: Self.day / 2)
        #expect(shortWindow.steps.map(\.people) == [4, 2, 0])
    }

    @Test func retentionCohortsByFirstSeenDay() {
        let events = [
            Self.track("open", Self.at(0), anon: "a"), Self.track("open", Self.at(1), anon: "a"),
            Self.track("open", Self.at(0), anon: "b"), Self.track("other", Self.at(2), anon: "b"),
            Self.track("open", Self.at(1), anon: "c"), Self.track("open", Self.at(3), anon: "c"),
        ]
        let report = ReportEngine(events: events).retention(returnEvent: "open", days: 2)
        #expect(report.cohorts.map(\.day) == ["2026-11-01", "2026-11-02"])
        #expect(report.cohorts.map(\.people) == [2, 1])
        #expect(report.cohorts[0].returned == [2, 1, 0], "b's day-2 event is not the return event")
        #expect(report.cohorts[1].returned == [1, 0, 1])
        #expect(report.cohorts[0].rate(day: 1) == 0.5)
        let anyEvent = ReportEngine(events: events).retention(days: 2)
        #expect(anyEvent.cohorts[0].returned == [2, 1, 1])
        let lastDay = ReportEngine(events: events).retention(days: 3, lastDay: Self.at(2).dayNumber)
        #expect(lastDay.cohorts[1].returned == [1, 0, nil, nil], "days after the data are unknown, not zero")
    }

    @Test func itemsCountExposuresSkipsClicksAndTheirRate() {
        func item(_ name: String, _ id: String) -> AnalyticsEvent {
            var event = Self.track(name, Self.at(0), anon: "p")
            event.itemId = id
            return event
        }
        let events =
            Array(repeating: item("$item_exposure", "sku-1"), count: 4) + [item("$element_click", "sku-1")]
            + [item("$item_skip", "sku-2"), item("$element_click", "sku-3")]
        let items = ReportEngine(events: events).items()
        #expect(items.map(\.itemId) == ["sku-1", "sku-3", "sku-2"])
        #expect(items[0].clickThroughRate == 0.25)
        #expect(items[1].clickThroughRate == nil)
        #expect(items[2].skips == 1)
    }

    @Test func elementsGroupByExactOrSimilarPath() {
        func click(_ path: String, _ similar: String, text: String) -> AnalyticsEvent {
            AnalyticsEvent(
                type: .track, name: "$element_click", time: Self.at(0), anonymousId: "p", page: "List",
                elementPath: path, similarPath: similar, elementText: text)
        }
        let events = [
            click("List/Table/Cell[0:1]", "List/Table/Cell[0:*]", text: "One"),
            click("List/Table/Cell[0:2]", "List/Table/Cell[0:*]", text: "Two"),
            click("List/Table/Cell[0:2]", "List/Table/Cell[0:*]", text: "Two"),
        ]
        let engine = ReportEngine(events: events)
        #expect(engine.elements(grouping: .exact).map(\.clicks) == [2, 1])
        let similar = engine.elements(grouping: .similar)
        #expect(similar.count == 1)
        #expect(similar[0].clicks == 3)
        #expect(similar[0].page == "List")
    }

    @Test func sessionsAndNextPages() {
        let events = [
            Self.screen("Home", Self.at(0, 0), anon: "p", session: "s1"),
            Self.screen("List", Self.at(0, 60), anon: "p", session: "s1"),
            Self.screen("Home", Self.at(0, 120), anon: "p", session: "s1"),
            // No session id: one session per device and UTC day, however long the pauses.
            Self.screen("Home", Self.at(1, 0), anon: "q"), Self.screen("Detail", Self.at(1, 30), anon: "q"),
            Self.screen("Home", Self.at(1, 4000), anon: "q"), Self.screen("Home", Self.at(2, 10), anon: "q"),
        ]
        let engine = ReportEngine(events: events)
        let sessions = engine.sessions()
        #expect(sessions.sessions == 3)
        #expect(sessions.bounces == 1)
        #expect(sessions.medianLengthMilliseconds == 120_000)
        #expect(sessions.averageLengthMilliseconds == (120_000 + 4_000_000) / 3)
        #expect(sessions.screensPerSession == 7.0 / 3)
        let paths = engine.paths(after: "Home")
        #expect(paths.visits == 5)
        #expect(paths.next.first == PageTransition(next: nil, count: 3, share: 0.6))
        #expect(Set(paths.next.dropFirst().compactMap(\.next)) == ["List", "Detail"])
    }

    @Test func definitionsMatchRetroactivelyAcrossPathsOfTwoAppVersions() throws {
        let definition = try EventDefinition(
            json: try JSONParser().parse(
                Array(
                    ##"{"id":"buy","name":"Buy","matchers":[{"path":"#buy:#UIButton#Detail"},{"path":"#buyNow:#UIButton#**#Detail","match":"pattern"}]}"##
                        .utf8)))
        func click(_ path: String) -> AnalyticsEvent {
            AnalyticsEvent(
                type: .track, name: "$element_click", time: Self.at(0), anonymousId: "p", elementPath: path)
        }
        let engine = ReportEngine(events: [
            click("#buy:#UIButton#Detail"), click("#buyNow:#UIButton#UIStackView#Detail"),
            click("#back:#UIButton#Detail"),
        ])
        #expect(
            engine.definedEvents([definition]) == [EventStatistics(event: "Buy", count: 2, uniqueVisitors: 1)]
        )
        #expect(engine.funnel([.defined(definition)]).steps[0].people == 1)
        #expect(definition.planEvent?.triggers.count == 2)
        let again = try EventDefinition(json: definition.jsonValue)
        #expect(again == definition)
    }

    @Test(arguments: [
        #"{"id":"","name":"x","matchers":[{"event":"a"}]}"#,
        #"{"id":"a b","name":"x","matchers":[{"event":"a"}]}"#,
        #"{"id":"a","name":"","matchers":[{"event":"a"}]}"#, #"{"id":"a","name":"x","matchers":[]}"#,
        #"{"id":"a","name":"x","matchers":[{}]}"#,
        #"{"id":"a","name":"x","matchers":[{"path":"a","match":"fuzzy"}]}"#,
        #"{"id":"a","name":"x","matchers":[{"event":"a","colour":"red"}]}"#, #"[1]"#,
    ])
    func invalidDefinitionsAreRefusedWithTheirCode(_ text: String) throws {
        let json = try JSONParser().parse(Array(text.utf8))
        #expect(throws: ServerError.self) { try EventDefinition(json: json) }
    }

    @Test func funnelNeverReportsMorePeopleAtALaterStep() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<50 {
            let events = (0..<60).map { _ in
                let person = "p\(random.next() % 6)"
                let time = Self.at(Int64(random.next() % 20), Int64(random.next() % 1000))
                return random.next() % 3 == 0
                    ? Self.screen("Home", time, anon: person)
                    : Self.track(["a", "b"][Int(random.next() % 2)], time, anon: person)
            }
            let report = ReportEngine(events: events).funnel([.page("Home"), .event("a"), .event("b")])
            let people = report.steps.map(\.people)
            #expect(zip(people, people.dropFirst()).allSatisfy { $0 >= $1 })
            #expect(people[0] <= 6)
        }
    }
}
