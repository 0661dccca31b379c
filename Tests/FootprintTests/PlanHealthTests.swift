import FootprintSQLite
import Foundation
import Testing

@testable import Footprint

/// The plan's health: per entry what applied, from the outcomes the adapter reports through the
/// seam, and the `$plan_health` event sent once per app release and plan revision.
struct PlanHealthTests {
    static let plan = TrackingPlan(
        pageMode: .configured,
        pages: ["CartViewController": PageRule(name: "Cart"), "GoneViewController": PageRule(name: "Gone")],
        events: [
            PlanEvent(
                id: "share", name: "Share",
                triggers: [.method(target: "ArticleViewController", method: "goShare")]),
            PlanEvent(
                id: "buy", name: "Buy",
                triggers: [
                    .method(target: "OldCheckout", method: "buy"),
                    .method(target: "CheckoutViewController", method: "buy"),
                ]),
            PlanEvent(id: "tap", name: "Tap", triggers: [.element(ElementRule(path: "#tap:#UIButton"))]),
            PlanEvent(
                id: "pay", name: "Pay", triggers: [.method(target: "Payment", method: "pay:amount:currency:")]
            ),
            PlanEvent(id: "free", name: "Free", triggers: [.method(target: "Wallet", method: "dealloc")]),
            PlanEvent(id: "later", name: "Later", triggers: [.method(target: "Later", method: "go")]),
        ])

    /// What the UIKit adapter reports for this plan in an app where `OldCheckout`, the page
    /// `GoneViewController` and `Payment`'s three-argument method cannot be hooked.
    static let methods: [CaptureHooks.Method: PlanHealth.Outcome] = [
        .init(target: "ArticleViewController", method: "goShare"): .applied,
        .init(target: "OldCheckout", method: "buy"): .init(
            status: .missingClass, reason: "no class OldCheckout"),
        .init(target: "CheckoutViewController", method: "buy"): .applied,
        .init(target: "Payment", method: "pay:amount:currency:"): .init(
            status: .unsupportedSignature, reason: "at most 2 object arguments"),
        .init(target: "Wallet", method: "dealloc"): .init(
            status: .refusedSelector, reason: "a runtime method"),
    ]
    static let pages: [String: PlanHealth.Outcome] = [
        "CartViewController": .applied,
        "GoneViewController": .init(status: .missingClass, reason: "not a class"),
    ]

    @Test func eachEntrySaysWhatApplied() {
        let health = PlanHealth(plan: Self.plan, planVersion: 12, methods: Self.methods, pages: Self.pages)
        #expect(
            health.entries.map(\.id) == [
                "share", "buy", "tap", "pay", "free", "later", "page:CartViewController",
                "page:GoneViewController",
            ])
        #expect(
            health.entries.map(\.status) == [
                .applied, .partial, .applied, .unsupportedSignature, .refusedSelector, .notChecked, .applied,
                .missingClass,
            ])
        #expect(health.entries[1].reason == "OldCheckout.buy: no class OldCheckout")
        #expect(health.entries[0].reason.isEmpty)
    }

    @Test func thePropertiesListFailuresFirstAndStayBounded() throws {
        let health = PlanHealth(plan: Self.plan, planVersion: 12, methods: Self.methods, pages: Self.pages)
        let properties = health.properties
        #expect(properties["plan_version"] == 12)
        let entries = try #require(properties["entries"]?.arrayValue)
        #expect(entries.first?["status"] == "partial")
        #expect(entries.last?["status"] == "applied")
        #expect(properties["truncated"] == nil)

        let many = TrackingPlan(
            events: (0..<150).map {
                PlanEvent(id: "e\($0)", name: "E", triggers: [.method(target: "T", method: "m\($0)")])
            })
        let bounded = PlanHealth(plan: many, planVersion: 1, methods: [:]).properties
        #expect(bounded["entries"]?.arrayValue?.count == PlanHealth.maximumEntries)
        #expect(bounded["truncated"] == true)
        let message = Message(
            type: .track, messageId: "m", anonymousId: "a", event: "$plan_health",
            timestamp: Timestamp(millisecondsSince1970: 0), properties: bounded)
        #expect(throws: Never.self) { try message.validatedBytes() }
    }

    @Test(arguments: [
        ("\"v12-00aa\"", Int64?.some(12)), ("W/\"v3-ff\"", 3), ("v7", 7), ("\"abc\"", nil),
        ("\"v-1-x\"", nil), ("", nil),
    ])
    func theRevisionComesFromTheETag(etag: String, version: Int64?) {
        #expect(PlanHealth.planVersion(fromETag: etag) == version)
    }

    @Test func theStoreKnowsTheRevisionOfTheRemotePlan() {
        let store = PlanStore(bundled: Self.plan)
        #expect(store.revision == 0)
        store.applyRemote(TrackingPlan(), etag: "\"v9-0123\"")
        #expect(store.revision == 9)
    }

    // MARK: Sent once per app release and plan revision

    let directory = ScratchFolder()

    func tracker(appVersion: String) -> Tracker {
        var configuration = Tracker.Configuration(writeKey: "key", serverURL: "http://127.0.0.1:1")
        configuration.storageDirectory = directory.path
        configuration.remoteConfigRefreshSeconds = nil
        configuration.flushAt = 1_000_000
        configuration.flushIntervalSeconds = 3600
        configuration.log = { _ in }
        configuration.lifecycleEvents = .none
        configuration.context.appVersion = appVersion
        configuration.context.appBuild = "1"
        configuration.plan = Self.plan
        return Tracker(configuration: configuration)
    }

    func storedHealth() throws -> [JSONValue] {
        let database = try SQLiteDatabase(path: directory.path + "/queue.sqlite")
        return try database.prepare("SELECT body FROM events ORDER BY id").rows {
            try JSONParser().parse($0.blob(at: 0))
        }
        .filter { $0["event"] == "$plan_health" }
    }

    @Test func healthIsSentOncePerAppReleaseAndPlanRevision() throws {
        do {
            let tracker = tracker(appVersion: "2.0")
            let capture = tracker.makeAutoCapture()
            capture.planApplied(methods: Self.methods, pages: Self.pages)
            capture.planApplied(methods: Self.methods, pages: Self.pages)
            #expect(tracker.waitUntilStored())
            #expect(try storedHealth().count == 1)
        }
        do {
            // A relaunch of the same release and plan sends nothing more.
            let tracker = tracker(appVersion: "2.0")
            tracker.makeAutoCapture().planApplied(methods: Self.methods, pages: Self.pages)
            #expect(tracker.waitUntilStored())
            #expect(try storedHealth().count == 1)
        }
        do {
            // A new plan revision, then a new app version, are reported again.
            let tracker = tracker(appVersion: "2.0")
            let capture = tracker.makeAutoCapture()
            capture.plans.applyRemote(Self.plan, etag: "\"v4-00\"")
            capture.planApplied(methods: Self.methods, pages: Self.pages)
            #expect(tracker.waitUntilStored())
        }
        let tracker = tracker(appVersion: "2.1")
        tracker.makeAutoCapture().planApplied(methods: Self.methods, pages: Self.pages)
        #expect(tracker.waitUntilStored())
        let stored = try storedHealth()
        #expect(stored.map { $0["properties"]?["plan_version"] } == [0, 4, 0])
        #expect(stored.map { $0["context"]?["app"]?["version"] } == ["2.0", "2.0", "2.1"])
    }

    @Test func reportsOfDroppedCallsAreSentEachTime() throws {
        let tracker = tracker(appVersion: "3.0")
        let capture = tracker.makeAutoCapture()
        capture.planApplied(methods: Self.methods, pages: Self.pages)
        let share = CaptureHooks.Method(target: "ArticleViewController", method: "goShare")
        for _ in 0..<11 { capture.methodCalled(targetType: share.target, method: share.method) }
        #expect(capture.methodLimiter.dropped == [share: 1])
        #expect(tracker.waitUntilStored())
        let stored = try storedHealth()
        #expect(stored.count == 2)
        let entries = try #require(stored.last?["properties"]?["entries"]?.arrayValue)
        #expect(entries.first { $0["id"] == "share" }?["status"] == "rate_limited")
        #expect(entries.first { $0["id"] == "share" }?["dropped_calls"] == 1)
    }
}
