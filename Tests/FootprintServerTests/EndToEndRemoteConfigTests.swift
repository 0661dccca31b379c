import Footprint
import FootprintDemo
import FootprintServer
import FootprintSimulation
import FootprintWire
import Foundation
import Testing

/// A plan published on the server reaches the tracker and automatic capture follows it.
struct EndToEndRemoteConfigTests {
    static let plan = """
        {"version": 1, "uploadMode": "matched", "pageMode": "configured",
         "pages": {"HomeViewController": {"name": "Home"}},
         "events": [
           {"id": "1", "name": "buy",
            "triggers": [{"path": "#buttonTapped:#UIButton#**#HomeViewController#**", "match": "pattern",
                          "attributes": {"currentTitle": "Buy"}}]},
           {"id": "2", "name": "order_completed",
            "triggers": [{"target": "CheckoutViewController", "method": "placeOrder"}]}
         ]}
        """

    static func button(_ title: String) -> ElementDescription {
        ElementDescription(
            chain: [
                .view("UIButton", 0), .view("UIView", 0), .controller("HomeViewController"),
                .other("UIApplication"), .other("AppDelegate"),
            ],
            kind: .button,
            attributes: ElementAttributes(title: title, state: 0, isEnabled: true, isSelected: false))
    }

    @Test func aPublishedPlanIsFetchedAppliedAndFollowed() async throws {
        let harness = try EndToEndHarness()
        defer { harness.shutDown() }
        let store = harness.server.stores.metadata
        let projectId = harness.fixture.projectId
        let clock = SimulatedClock(start: Timestamp(millisecondsSince1970: 1_795_000_000_000))
        let transport = RecordingTransport()
        var configuration = harness.configuration(device: "phone", transport: transport)
        configuration.clock = clock
        configuration.remoteConfigRefreshSeconds = 60
        let tracker = Tracker(configuration: configuration)
        // The launch fetch finds nothing published yet.
        let launched = await transport.exchanges.wait { exchanges in
            exchanges.contains { $0.request.url.hasSuffix("/v1/config") && $0.status == 404 }
        }
        #expect(launched)
        #expect(!tracker.plans.hasRemotePlan)

        // An invalid document is refused and publishes nothing.
        let invalid = #"{"version": 1, "uploadMode": "sometimes"}"#
        #expect(throws: ServerError.self) {
            try store.publishConfig(document: Array(invalid.utf8), projectId: projectId, at: clock.now())
        }
        #expect(try store.latestConfig(projectId: projectId) == nil)

        try store.publishConfig(document: Array(Self.plan.utf8), projectId: projectId, at: clock.now())
        clock.advance(milliseconds: 61_000)
        let first = await tracker.refreshRemoteConfig()
        let expected = try TrackingPlan(jsonBytes: Array(Self.plan.utf8))
        guard case .apply(let applied, let etag) = first else {
            Issue.record("expected the plan to be applied, got \(String(describing: first))")
            return
        }
        #expect(applied == expected)
        #expect(etag != nil)
        #expect(tracker.plans.hasRemotePlan)
        #expect(tracker.plans.current.plan == expected)

        clock.advance(milliseconds: 61_000)
        #expect(await tracker.refreshRemoteConfig() == .unchanged)
        #expect(transport.exchanges.all.last?.status == 304)

        // Automatic capture follows the remote plan: matched mode drops the unnamed tap.
        let capture = tracker.makeAutoCapture()
        capture.pageAppeared(PageDescription(controllerType: "HomeViewController", instanceID: 1))
        capture.controlActed(
            Self.button("Buy"), action: ActionDescription(selector: "buttonTapped:", senderType: "UIButton"))
        capture.controlActed(
            Self.button("Share"), action: ActionDescription(selector: "buttonTapped:", senderType: "UIButton")
        )
        capture.methodCalled(targetType: "CheckoutViewController", method: "placeOrder")
        capture.appEnteredBackground()
        await tracker.flushed()

        #expect(try harness.storedProperty("$event_name", event: "$element_click") == ["buy"])
        #expect(
            try harness.storedProperty("$trigger", event: "order_completed") == [
                "CheckoutViewController.placeOrder"
            ])
        let report = try harness.server.report(project: "default")
        #expect(report.namedEvents.map(\.event) == ["buy"])
        #expect(report.pages.map(\.page) == ["Home"])
        #expect(report.topEvents.first { $0.event == "$element_click" }?.count == 1)
    }
}
