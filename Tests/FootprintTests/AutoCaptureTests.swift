import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// The capture façade end to end: adapter calls in, captured events out.
struct AutoCaptureTests {
    let sink = CollectingCaptureSink()
    let clock = SimulatedClock(start: Timestamp(millisecondsSince1970: 1_795_981_800_000))
    let plans: PlanStore
    let fixture: TrackingPlan

    init() throws {
        fixture = try CaptureFixtures.plan()
        var plan = fixture
        plan.uploadMode = .all
        plan.pageMode = .all
        plan.capture.gestures = true
        plans = PlanStore(bundled: plan)
    }

    func capture(
        configuration: AutoCaptureConfiguration = AutoCaptureConfiguration(), deviceID: String = "device-1"
    )
        -> AutoCapture
    {
        AutoCapture(configuration: configuration, plans: plans, deviceID: deviceID, sink: sink, clock: clock)
    }

    func page(_ type: String, _ id: UInt64, parent: String? = nil) -> PageDescription {
        PageDescription(controllerType: type, instanceID: id, title: "Title \(id)", parentType: parent)
    }

    // MARK: Pages

    @Test func pageEnterAndLeaveFollowTheContract() throws {
        let capture = capture()
        capture.pageAppeared(page("HomeViewController", 1))
        clock.advance(milliseconds: 4_200)
        capture.pageDisappeared(page("HomeViewController", 1))
        capture.pageAppeared(page("SettingsViewController", 2))
        let events = sink.events
        #expect(sink.names == ["screen:Home", "$screen_leave", "screen:SettingsViewController"])
        #expect(
            events[0].properties == [
                "$screen_class": "HomeViewController", "tab": "home", "$title": "Title 1",
            ])
        #expect(
            events[1].properties == [
                "$page_name": "Home", "$screen_class": "HomeViewController", "duration_ms": 4200,
            ])
        #expect(events[2].properties["$referrer"] == "Home")
        #expect(capture.currentPageName == "SettingsViewController")
        capture.pageAppeared(
            PageDescription(controllerType: "ProfileViewController", instanceID: 9, title: "ann@example.com"))
        #expect(sink.events.last?.properties["$title"] == "[email]", "titles are redacted")
    }

    @Test func configuredModeTracksOnlyPlanPages() {
        plans.replaceBundled(fixture)
        let capture = capture()
        capture.pageAppeared(page("SettingsViewController", 1))
        capture.pageAppeared(page("CartViewController", 2))
        capture.pageAppeared(page("UINavigationController", 3))
        #expect(sink.names == ["screen:Cart"])
    }

    @Test func containersAndChildControllersAreNoPages() {
        let capture = capture()
        capture.pageAppeared(page("UINavigationController", 1))
        capture.pageAppeared(page("UITabBarController", 2))
        capture.pageAppeared(page("SettingsViewController", 3, parent: "UINavigationController"))
        capture.pageAppeared(page("AdChildController", 4, parent: "SettingsViewController"))
        #expect(sink.names == ["screen:SettingsViewController"])
    }

    @Test func backgroundAndForeground() {
        let capture = capture()
        capture.pageAppeared(page("HomeViewController", 1))
        clock.advance(milliseconds: 1_000)
        capture.appEnteredBackground()
        clock.advance(milliseconds: 60_000)
        capture.appEnteredForeground()
        clock.advance(milliseconds: 500)
        capture.pageDisappeared(page("HomeViewController", 1))
        #expect(sink.names == ["screen:Home", "$screen_leave", "$screen_leave"])
        #expect(sink.events.map { $0.properties["duration_ms"] } == [nil, 1000, 500])
    }

    @Test func aTapOnAPageReturnedToComesAfterItsEnter() {
        let capture = capture()
        capture.pageAppeared(page("HomeViewController", 1))
        capture.pageAppeared(page("ShareSheetController", 2))
        capture.pageDisappeared(page("ShareSheetController", 2))
        capture.controlActed(Chains.button(in: "HomeViewController"), action: Chains.tap())
        #expect(
            sink.names == [
                "screen:Home", "$screen_leave", "screen:ShareSheetController", "$screen_leave", "screen:Home",
                "$element_click",
            ])
    }

    // MARK: Elements

    @Test func aTapCarriesEveryContractProperty() throws {
        let capture = capture()
        var element = Chains.button(in: "HomeViewController", title: "Call 555-123-4567")
        element.chain[0].accessibilityIdentifier = "call-button"
        capture.controlActed(element, action: Chains.tap())
        let event = try #require(sink.events.first)
        #expect(event.kind == .track(event: "$element_click"))
        let path = ElementPath(element: element, action: Chains.tap())
        #expect(event.properties["$element_path"] == .string(path.exact))
        #expect(event.properties["$element_similar_path"] == .string(path.similar))
        #expect(event.properties["$element_type"] == "UIButton")
        #expect(event.properties["$element_text"] == "Call [phone]")
        #expect(event.properties["$element_id"] == "call-button")
        #expect(event.properties["$page_name"] == "Home")
        #expect(event.properties["$element_position"] == nil)
        #expect(event.properties["$event_id"] == nil)
    }

    @Test func cellSelectionCarriesPositionItemAndMatchedEvent() throws {
        let capture = capture()
        capture.cellSelected(Chains.cell(row: 5, itemID: "SKU-42"), action: Chains.tableSelection)
        let event = try #require(sink.events.first)
        #expect(event.properties["$element_position"] == "0:5")
        #expect(event.properties["$item_id"] == "SKU-42")
        #expect(event.properties["$element_text"] == "Red Shoes")
        #expect(event.properties["$event_id"] == "1003")
        #expect(event.properties["$event_name"] == "open_product")
        #expect(event.properties["$element_similar_path"]?.stringValue?.contains("ProductCell[0:*]") == true)
    }

    @Test func businessPropertiesNearestWinsAndCannotOverrideAutoKeys() throws {
        let capture = capture()
        var element = Chains.button(in: "HomeViewController")
        element.chain[0].properties = ["campaign": "near", "$element_type": "spoofed"]
        element.chain[1].properties = ["campaign": "far", "section": "hero"]
        capture.controlActed(element, action: Chains.tap())
        let properties = try #require(sink.events.first?.properties)
        #expect(properties["campaign"] == "near")
        #expect(properties["section"] == "hero")
        #expect(properties["$element_type"] == "UIButton")
    }

    @Test func secureAndTextInputElementsNeverSendTheirText() {
        let capture = capture()
        var secure = Chains.button(title: "hunter2")
        secure.isSecureTextEntry = true
        capture.controlActed(secure, action: Chains.tap())
        let field = ElementDescription(
            chain: [.view("UITextField", 0), .controller("LoginViewController")], kind: .textInput,
            attributes: ElementAttributes(title: "ann@example.com"))
        capture.controlActed(field, action: Chains.tap("editingChanged:", sender: "UITextField"))
        #expect(sink.events.count == 2)
        for event in sink.events {
            #expect(event.properties["$element_text"] == nil)
            #expect(!"\(event.properties)".contains("hunter2"))
            #expect(!"\(event.properties)".contains("ann@"))
        }
    }

    @Test func longTextIsCut() throws {
        let capture = capture(configuration: AutoCaptureConfiguration(maximumTextLength: 5))
        capture.controlActed(Chains.button(title: "Add everything to the cart"), action: Chains.tap())
        #expect(sink.events.first?.properties["$element_text"] == "Add e")
    }

    static let ignoreCases: [(String, @Sendable (inout ElementDescription) -> Void, Set<String>)] = [
        ("the element", { $0.chain[0].ignoresTracking = true }, []),
        ("an ancestor view", { $0.chain[1].ignoresTracking = true }, []),
        ("the controller", { $0.chain[2].ignoresTracking = true }, []),
        ("the element's type", { _ in }, ["UIButton"]),
        ("an ancestor's type", { _ in }, ["UIView"]),
        ("the controller's type", { _ in }, ["ViewController"]),
    ]

    @Test(arguments: 0..<ignoreCases.count)
    func ignoreRulesAtEveryLevelSuppressCapture(index: Int) {
        let (_, change, types) = Self.ignoreCases[index]
        let capture = capture(configuration: AutoCaptureConfiguration(ignoredTypes: types))
        var element = Chains.button()
        change(&element)
        capture.controlActed(element, action: Chains.tap())
        #expect(sink.events.isEmpty, "ignored by \(Self.ignoreCases[index].0)")
        // The same button on another controller is captured unless its own types are ignored.
        capture.controlActed(Chains.button(in: "OtherController"), action: Chains.tap())
        let otherIsIgnored = types.contains("UIButton") || types.contains("UIView")
        #expect(sink.events.count == (otherIsIgnored ? 0 : 1))
    }

    @Test func anIgnoredControllerTypeHasNoPageViews() {
        let capture = capture(configuration: AutoCaptureConfiguration(ignoredTypes: ["HomeViewController"]))
        capture.pageAppeared(page("HomeViewController", 1))
        #expect(sink.events.isEmpty)
    }

    @Test func gesturesAndAlertActions() throws {
        let capture = capture()
        let banner = ElementDescription(
            chain: [.view("BannerView", 0), .view("UIView", 0), .controller("HomeViewController")]
                + Chains.applicationTail,
            kind: .other)
        capture.gestureRecognized(
            on: banner, action: Chains.tap("bannerTapped:", sender: "UITapGestureRecognizer"))
        capture.alertActionChosen(
            AlertActionDescription(
                alertTitle: "Delete ann@example.com?", actionTitle: "Delete", actionIndex: 1,
                presenterChain: [.controller("CartViewController")] + Chains.applicationTail))
        let events = sink.events
        try #require(events.count == 2)
        #expect(
            events[0].properties["$element_path"]
                == "#bannerTapped:#UITapGestureRecognizer#BannerView[0]#UIView[0]#HomeViewController#UIApplication#AppDelegate"
        )
        #expect(
            events[1].properties["$element_path"]
                == "#alertAction#UIAlertController#UIAlertAction[1]#UIAlertController#CartViewController#UIApplication#AppDelegate"
        )
        #expect(events[1].properties["$element_text"] == "Delete")
        #expect(events[1].properties["$alert_title"] == "Delete [email]?")
        #expect(events[1].properties["$page_name"] == "Cart")
        #expect(events[1].properties["$element_type"] == "UIAlertAction")
    }

    // MARK: Plan rules

    @Test func matchedModeSendsOnlyMatchedElementEvents() {
        var plan = fixture
        plan.uploadMode = .matched
        plans.replaceBundled(plan)
        let capture = capture()
        capture.controlActed(
            Chains.button(in: "HomeViewController", title: "Other"), action: Chains.tap("other:"))
        capture.controlActed(
            Chains.button(0, in: "ProductViewController", title: "Buy"), action: Chains.tap("buyTapped:"))
        capture.cellSelected(Chains.cell(row: 2), action: Chains.tableSelection)
        #expect(sink.events.map { $0.properties["$event_name"] } == ["buy", "open_product"])
    }

    @Test func allModeSendsEverythingAndMarksMatches() {
        let capture = capture()
        capture.controlActed(
            Chains.button(in: "HomeViewController", title: "Other"), action: Chains.tap("other:"))
        capture.controlActed(
            Chains.button(0, in: "ProductViewController", title: "Buy"), action: Chains.tap("buyTapped:"))
        #expect(sink.events.map { $0.properties["$event_id"] } == [nil, "1002"])
    }

    @Test func keyPathPropertiesOfAMatchedElementEvent() throws {
        struct Banner { var url: String? }
        final class Home { var banner = Banner(url: "https://shop.example/spring") }
        let capture = capture()
        let element = ElementDescription(
            chain: [
                .view("UIButton", 0, properties: ["slot": "top"]), .view("UIView", 0),
                .controller("HomeViewController"),
            ]
                + Chains.applicationTail,
            kind: .button, keyPathSource: MirrorKeyPathSource(roots: ["viewController": Home()]))
        capture.controlActed(element, action: Chains.tap("bannerTapped:"))
        let properties = try #require(sink.events.first?.properties)
        #expect(properties["$event_name"] == "banner")
        #expect(properties["banner_url"] == "https://shop.example/spring")
    }

    @Test func configuredMethodEvents() throws {
        struct Article { var url: String }
        final class ArticleViewController { var article: Article? = Article(url: "https://shop.example/a/1") }
        let capture = capture()
        capture.pageAppeared(page("ProductViewController", 1))
        capture.methodCalled(
            targetType: "ArticleViewController", method: "goShare",
            values: MirrorKeyPathSource(roots: ["target": ArticleViewController()]))
        capture.methodCalled(targetType: "ProductViewController", method: "goShare")
        capture.methodCalled(targetType: "ProductViewController", method: "unknown")
        let events = sink.events.filter { $0.kind == .track(event: "share") }
        try #require(events.count == 2)
        #expect(
            events[0].properties == [
                "$event_id": "1001", "$trigger": "ArticleViewController.goShare",
                "article_url": "https://shop.example/a/1",
                "$page_name": "Product Detail",
            ])
        #expect(events[1].properties["$trigger"] == "ProductViewController.goShare")
        #expect(events[1].properties["article_url"] == nil, "no source: no value, no crash")
        #expect(sink.names.count == 3)
    }

    /// A purpose method called off the main thread: its values are read on the calling thread
    /// before the method runs, so what that thread changes afterwards is not reported.
    @Test func methodValuesReadAtTheCallAreTheOnesReported() throws {
        struct Article { var url: String }
        final class ArticleViewController { var article: Article? = Article(url: "https://shop.example/a/1") }
        let capture = capture()
        let controller = ArticleViewController()
        let keyPaths = plans.keyPaths(ofMethod: "goShare", targetType: "ArticleViewController")
        #expect(keyPaths.map(\.description) == ["target.article.url"])
        let values = KeyPathValues(
            reading: keyPaths, from: MirrorKeyPathSource(roots: ["target": controller]))
        controller.article = Article(url: "https://shop.example/a/2")
        capture.methodCalled(targetType: "ArticleViewController", method: "goShare", values: values)
        let event = try #require(sink.events.first { $0.kind == .track(event: "share") })
        #expect(event.properties["article_url"] == "https://shop.example/a/1")
        #expect(plans.keyPaths(ofMethod: "unknown", targetType: "ArticleViewController").isEmpty)
    }

    @Test func blockListDropsByEventName() {
        var plan = plans.current.plan
        plan.blockedEvents = ["$screen_leave", "buy", "share"]
        plans.replaceBundled(plan)
        let capture = capture()
        capture.pageAppeared(page("HomeViewController", 1))
        capture.pageDisappeared(page("HomeViewController", 1))
        capture.controlActed(
            Chains.button(0, in: "ProductViewController", title: "Buy"), action: Chains.tap("buyTapped:"))
        capture.controlActed(Chains.button(), action: Chains.tap())
        capture.methodCalled(targetType: "ProductViewController", method: "goShare")
        #expect(sink.names == ["screen:Home", "$element_click"])
        plan.blockedEvents = ["$element_click", "$screen"]
        plans.replaceBundled(plan)
        sink.removeAll()
        capture.pageAppeared(page("HomeViewController", 2))
        capture.controlActed(Chains.button(), action: Chains.tap())
        #expect(sink.names == [])
    }

    @Test func killSwitchesPerKind() {
        var plan = plans.current.plan
        plan.capture = CaptureSwitches(
            pages: false, controls: false, cells: true, gestures: false, alerts: false, methods: false)
        plans.replaceBundled(plan)
        let capture = capture()
        capture.pageAppeared(page("HomeViewController", 1))
        capture.controlActed(Chains.button(), action: Chains.tap())
        capture.gestureRecognized(
            on: Chains.button(), action: Chains.tap("pan:", sender: "UIPanGestureRecognizer"))
        capture.alertActionChosen(
            AlertActionDescription(actionTitle: "OK", actionIndex: 0, presenterChain: []))
        capture.methodCalled(targetType: "ProductViewController", method: "goShare")
        capture.cellSelected(Chains.cell(row: 0), action: Chains.tableSelection)
        #expect(sink.names == ["$element_click"])
        #expect(sink.events.first?.properties["$element_position"] == "0:0")
        #expect(capture.allows(\.cells) && capture.allows(\.exposures) && !capture.allows(\.gestures))
    }

    @Test func samplingIsDeterministicPerDevice() {
        var plan = plans.current.plan
        plan.sampleRate = 0.5
        plans.replaceBundled(plan)
        let devices = (0..<40).map { "device-\($0)" }
        var included: [String] = []
        for device in devices {
            sink.removeAll()
            let capture = capture(deviceID: device)
            capture.controlActed(Chains.button(), action: Chains.tap())
            capture.pageAppeared(page("HomeViewController", 1))
            #expect(sink.events.count == 0 || sink.events.count == 2)
            if !sink.events.isEmpty { included.append(device) }
        }
        #expect(included == devices.filter { DeviceSampling.includes(deviceID: $0, rate: 0.5) })
        #expect(!included.isEmpty && included.count < devices.count)
    }

    @Test func aRemotePlanAppliesAtOnceAndWinsOverTheBundledOne() {
        let capture = capture()
        capture.controlActed(Chains.button(), action: Chains.tap())
        #expect(sink.events.count == 1)
        var remote = fixture
        remote.uploadMode = .matched
        plans.applyRemote(remote)
        capture.controlActed(Chains.button(), action: Chains.tap())
        #expect(sink.events.count == 1)
        plans.replaceBundled(TrackingPlan())
        capture.controlActed(Chains.button(), action: Chains.tap())
        #expect(sink.events.count == 1, "the remote plan stays in force")
        #expect(plans.hasRemotePlan)
    }
}
