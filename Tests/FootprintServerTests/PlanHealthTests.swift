import FootprintServer
import FootprintWire
import Testing

/// The plan health table from a plan, reports and daily counts (pure).
@Suite struct PlanHealthTests {
    let plan: TrackingPlan

    init() throws {
        plan = try TrackingPlan(
            jsonBytes: Array(
                """
                {"version": 1, "pageMode": "configured",
                 "pages": {"ProductViewController": {"name": "Product"}},
                 "events": [
                   {"id": "buy", "name": "Buy", "triggers": [{"path": "#buy:#UIButton#Detail"}]},
                   {"id": "share", "name": "Share", "triggers": [
                      {"target": "ArticleViewController", "method": "goShare"}, {"path": "#share:#UIButton#Article"}]}]}
                """.utf8))
    }

    static func report(
        _ version: String, at millisecond: Int64, _ entries: JSONValue, truncated: Bool = false
    ) -> PlanHealthReport {
        var properties: JSONObject = ["plan_version": 7, "entries": entries]
        if truncated { properties["truncated"] = true }
        return PlanHealthReport(
            appVersion: version, time: Timestamp(millisecondsSince1970: millisecond), properties: properties)
    }

    @Test func aReportIsReadWithinItsBounds() {
        let report = Self.report(
            "2.0", at: 1,
            [
                ["id": "buy", "status": "applied", "reason": ""],
                ["id": 42, "status": "missing_class", "reason": "x"],
                ["id": "buy", "status": "missing_class"], ["status": "applied"], ["id": "no-status"], "junk",
            ])
        #expect(report.planVersion == 7 && !report.truncated)
        #expect(
            report.entries == [
                PlanHealthReport.Entry(id: "buy", status: "applied"),
                PlanHealthReport.Entry(id: "42", status: "missing_class", reason: "x"),
            ])
        let many = Self.report(
            "2.0", at: 1, .array((0..<2000).map { ["id": .string("e\($0)"), "status": "applied"] }))
        #expect(many.entries.count == PlanHealthReport.maximumEntries)
    }

    @Test func eachEntryHasAStatusAndItsMatchesPerAppVersion() {
        let counts: [String: [RollupCount]] = [
            "2.0": [
                RollupCount(day: 1, kind: .planEvents, key: "Buy", count: 3),
                RollupCount(day: 2, kind: .planEvents, key: "Buy", count: 4),
                RollupCount(day: 2, kind: .trackEvents, key: "Buy", count: 100),
                RollupCount(day: 2, kind: .trackEvents, key: "Share", count: 5),
                RollupCount(day: 2, kind: .planEvents, key: "Share", count: 1),
                RollupCount(day: 2, kind: .pageViews, key: "Product", count: 9),
                RollupCount(day: 2, kind: .elementClicks, key: "Buy", count: 50),
            ]
        ]
        let health = PlanHealth(
            plan: plan, planVersion: 7,
            reports: [
                Self.report(
                    "2.0", at: 10,
                    [
                        [
                            "id": "share", "status": "partial",
                            "reason": "ArticleViewController.goShare: no such method",
                        ],
                        ["id": "page:ProductViewController", "status": "applied", "reason": ""],
                    ], truncated: true),
                Self.report(
                    "2.1", at: 20,
                    [["id": "buy", "status": "applied"], ["id": "old", "status": "missing_class"]]),
            ],
            counts: counts)
        #expect(health.appVersions == ["2.1", "2.0"] && health.planVersion == 7)
        #expect(health.entries.map(\.id) == ["buy", "share", "page:ProductViewController", "old"])
        #expect(health.entries.map(\.inPlan) == [true, true, true, false])
        #expect(health.entries[2].name == "Product" && health.entries[3].name == nil)
        let onTwo = health.entries.map { $0.versions[1] }
        // Element triggers count `$event_name` clicks only; a method trigger its track events too.
        #expect(onTwo.map(\.matched) == [7, 6, 9, 0])
        #expect(onTwo.map(\.status) == ["not_reported", "partial", "applied", "not_reported"])
        // The truncated report says why an entry is missing; an empty reason is none.
        #expect(onTwo[0].reason?.contains("left this entry out") == true && onTwo[2].reason == nil)
        #expect(
            health.entries.map { $0.versions[0].status } == [
                "applied", "not_reported", "not_reported", "missing_class",
            ])
        #expect(health.entries.map { $0.versions[0].matched } == [0, 0, 0, 0])
        #expect(
            onTwo.allSatisfy { $0.planVersion == 7 && $0.reportedAt == Timestamp(millisecondsSince1970: 10) })
    }

    @Test func withoutAPlanOnlyTheReportsEntriesShow() {
        let health = PlanHealth(
            plan: nil, reports: [Self.report("1.0", at: 1, [["id": "x", "status": "applied"]])], counts: [:])
        #expect(health.entries.map(\.id) == ["x"] && health.entries[0].inPlan == false)
        #expect(PlanHealth(plan: nil, reports: [], counts: [:]).entries.isEmpty)
    }
}
