import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// Snapshot content built from the seam's descriptions: the paths of article 001's hierarchies
/// are the ones their taps produce, text is redacted, ignored elements say so, sizes are bounded.
struct ScreenSnapshotCoreTests {
    let sink = CollectingCaptureSink()

    func makeCapture(plan: TrackingPlan = TrackingPlan(), ignoredTypes: Set<String> = []) -> AutoCapture {
        AutoCapture(
            configuration: AutoCaptureConfiguration(ignoredTypes: ignoredTypes),
            plans: PlanStore(bundled: plan),
            deviceID: "device", sink: sink,
            clock: SimulatedClock(start: Timestamp(millisecondsSince1970: 1_795_981_800_000)))
    }

    static let frame = ScreenSnapshot.Frame(x: 10, y: 20, width: 100, height: 44)

    static func placed(_ element: ElementDescription, frame: ScreenSnapshot.Frame = frame)
        -> ElementDescription
    {
        var placed = element
        placed.frame = frame
        return placed
    }

    /// Article 001's hierarchies as the UIKit adapter describes them, each with the action a tap
    /// sends and its route.
    static var articleElements: [ScreenElement] {
        let chain: [ResponderDescription] = [
            .view("UIButton", 0), .view("UIView", 0), .controller("ViewController"), .view("UIWindow", 0),
            .other("UIWindowScene"), .other("UIApplication"), .other("AppDelegate"),
        ]
        func control(_ type: String, _ kind: ElementKind, _ attributes: ElementAttributes, selector: String)
            -> ScreenElement
        {
            var controlChain = chain
            controlChain[0] = .view(type, 1)
            return ScreenElement(
                element: placed(ElementDescription(chain: controlChain, kind: kind, attributes: attributes)),
                action: ActionDescription(selector: selector, senderType: type), route: .control)
        }
        return [
            ScreenElement(
                element: placed(
                    ElementDescription(
                        chain: chain, kind: .button,
                        attributes: ElementAttributes(
                            title: "Button", state: 1, isEnabled: true, isSelected: false))),
                action: Chains.tap(), route: .control),
            control("UISwitch", .toggle, ElementAttributes(isOn: true), selector: "switchChanged:"),
            control(
                "UISegmentedControl", .segmentedControl, ElementAttributes(selectedSegmentIndex: 2),
                selector: "segmentChanged:"),
            control("UIStepper", .stepper, ElementAttributes(value: 2.5), selector: "stepperChanged:"),
            ScreenElement(element: placed(Chains.cell(row: 3)), action: Chains.tableSelection, route: .cell),
            ScreenElement(
                element: placed(Chains.cell(section: 1, row: 0, itemID: "sku-1")),
                action: Chains.tableSelection,
                route: .cell),
            ScreenElement(
                element: placed(
                    ElementDescription(
                        chain: [
                            .view("BannerView", 0, properties: ["banner_url": "https://example.com/sale"])
                        ]
                            + Array(chain.dropFirst()), kind: .other)),
                action: ActionDescription(selector: "bannerTapped:", senderType: "UITapGestureRecognizer"),
                route: .gesture),
        ]
    }

    /// The `$element_path` and `$element_similar_path` of a tap on `item`, through its route.
    func tapPaths(_ item: ScreenElement, on capture: AutoCapture) throws -> (String, String) {
        sink.removeAll()
        switch item.route {
        case .control: capture.controlActed(item.element, action: item.action)
        case .cell: capture.cellSelected(item.element, action: item.action)
        case .gesture: capture.gestureRecognized(on: item.element, action: item.action)
        }
        let event = try #require(sink.events.last)
        return (
            try #require(event.properties["$element_path"]?.stringValue),
            try #require(event.properties["$element_similar_path"]?.stringValue)
        )
    }

    @Test func articlePathsAreByteIdenticalToWhatATapProduces() throws {
        let capture = makeCapture()
        let content = capture.snapshotContent(
            of: ScreenDescription(
                screen: .init(width: 390, height: 844, scale: 3), elements: Self.articleElements))
        #expect(content.elements.count == Self.articleElements.count)
        for (item, element) in zip(Self.articleElements, content.elements) {
            let (exact, similar) = try tapPaths(item, on: capture)
            #expect(Array(element.path.utf8) == Array(exact.utf8))
            #expect(Array(element.similarPath.utf8) == Array(similar.utf8))
            #expect(element.frame == Self.frame)
        }
        #expect(
            content.elements[0].path
                == "#buttonClick:#UIButton#UIButton[0]#UIView[0]#ViewController#UIWindow[0]#UIWindowScene#UIApplication#AppDelegate#currentTitle=Button#state=1#enabled=1#selected=0"
        )
        #expect(content.elements[4].similarPath.contains("#ProductCell[0:*]#"))
        #expect(
            content.elements.map(\.kind) == [
                "button", "switch", "segmented_control", "stepper", "cell", "cell", "gesture",
            ])
    }

    @Test func planEventsAreMarkedWithTheirEntry() throws {
        let capture = makeCapture()
        let cellPath = ElementPath(element: Chains.cell(row: 3), action: Chains.tableSelection)
        let buttonPath = ElementPath(element: Self.articleElements[0].element, action: Chains.tap())
        capture.plans.replaceBundled(
            TrackingPlan(events: [
                PlanEvent(
                    id: "pick", name: "Pick Product",
                    triggers: [.element(.init(match: .similar, path: cellPath.similar))]),
                PlanEvent(id: "7", name: "Press", triggers: [.element(.init(path: buttonPath.exact))]),
            ]))
        let content = capture.snapshotContent(
            of: ScreenDescription(
                screen: .init(width: 390, height: 844, scale: 3), elements: Self.articleElements))
        #expect(content.elements.map(\.planEntry) == ["7", nil, nil, nil, "pick", nil, nil])
        #expect(content.elements.map(\.planned) == [true, false, false, false, true, false, false])
        // The tap on the same button names the same plan event.
        capture.controlActed(Self.articleElements[0].element, action: Chains.tap())
        #expect(sink.events.last?.properties["$event_id"] == "7")
    }

    @Test func textIsRedactedAndIgnoredElementsCarryNone() {
        var secure = ElementDescription(
            chain: [.view("UITextField", 0), .view("UIView", 0), .controller("LoginViewController")],
            kind: .textInput,
            attributes: ElementAttributes(title: "hunter2"), isSecureTextEntry: true)
        secure.frame = Self.frame
        var optedOut = Chains.button(title: "Call 555-123-4567")
        optedOut.chain[1].ignoresTracking = true
        optedOut.frame = Self.frame
        let mail = Self.placed(Chains.button(1, title: "Mail ann@example.com"))
        let wallet = Self.placed(
            ElementDescription(
                chain: [.view("UIButton", 2), .view("WalletView", 0), .controller("ViewController")],
                kind: .button,
                attributes: ElementAttributes(title: "Card 4111 1111 1111 1111")))
        let capture = makeCapture(ignoredTypes: ["WalletView"])
        let content = capture.snapshotContent(
            of: ScreenDescription(
                screen: .init(width: 390, height: 844, scale: 3),
                elements: [
                    ScreenElement(
                        element: secure, action: Chains.tap("login:", sender: "UITextField"), route: .control),
                    ScreenElement(element: optedOut, action: Chains.tap(), route: .control),
                    ScreenElement(element: mail, action: Chains.tap(), route: .control),
                    ScreenElement(element: wallet, action: Chains.tap(), route: .control),
                ]))
        #expect(content.elements.map(\.ignored) == [true, true, false, true])
        #expect(content.elements.map(\.text) == [nil, nil, "Mail [email]", nil])
        #expect(content.elements[0].kind == "text_field")
        let everything = String(
            decoding: content.elements.map(\.jsonValue).map { JSONWriter.bytes($0) }.joined(), as: UTF8.self)
        for secret in ["hunter2", "555-123-4567", "ann@example.com", "4111"] {
            #expect(!everything.contains(secret))
        }
    }

    /// Masking fails closed: the screenshot of a walk cut short (views past the limit were never
    /// checked for secure fields) is dropped; its elements stay.
    @Test func anIncompleteWalkSendsNoScreenshot() throws {
        let capture = makeCapture(ignoredTypes: [])
        let image = ScreenSnapshot.Image(format: .jpeg, width: 1, height: 1, data: [0xFF, 0xD8, 0xFF, 0xD9])
        let element = ScreenElement(
            element: Self.placed(Chains.button(title: "Buy")), action: Chains.tap(), route: .control)
        let screen = ScreenSnapshot.Screen(width: 390, height: 844, scale: 3)
        let complete = capture.snapshotContent(
            of: ScreenDescription(screen: screen, elements: [element], image: image))
        #expect(complete.image == image)
        let cut = capture.snapshotContent(
            of: ScreenDescription(screen: screen, elements: [element], image: image, isComplete: false))
        #expect(cut.image == nil)
        #expect(cut.elements.count == 1)
    }

    /// A mask covers where the view will be and where it is drawn now, with a margin.
    @Test func masksCoverTheModelAndThePresentationFrame() {
        let model = CGRect(x: 20, y: 300, width: 200, height: 40)
        let moving = CGRect(x: 20, y: 500, width: 200, height: 40)
        #expect(
            ScreenMask.rect(model: model, presentation: moving)
                == CGRect(x: 16, y: 296, width: 208, height: 248))
        #expect(ScreenMask.rect(model: model, presentation: nil) == model.insetBy(dx: -4, dy: -4))
    }

    @Test func sizesStayWithinTheLimits() throws {
        var limits = ScreenSnapshot.Limits()
        limits.maximumElements = 3
        limits.maximumImageBytes = 8
        var long = Self.placed(Chains.button(title: String(repeating: "é", count: 150)))
        long.chain[0] = .view("UIButton", 0)
        var deep = Self.placed(Chains.button(title: "Deep"))
        deep.chain = Array(repeating: .view("UIView", 0), count: 200) + deep.chain
        let nowhere = Self.placed(
            Chains.button(title: "NaN"), frame: .init(x: .nan, y: 0, width: 1, height: 1))
        let farAway = Self.placed(
            Chains.button(title: "Far"), frame: .init(x: 0, y: 2e5, width: 1, height: 1))
        var unplaced = Chains.button(title: "Unplaced")
        unplaced.frame = nil
        let items =
            [long, deep, nowhere, farAway, unplaced]
            + (0..<5).map { Self.placed(Chains.button($0, title: "B\($0)")) }
        let capture = makeCapture()
        let content = capture.snapshotContent(
            of: ScreenDescription(
                screen: .init(width: 0, height: .infinity, scale: 9),
                elements: items.map { ScreenElement(element: $0, action: Chains.tap(), route: .control) },
                image: .init(
                    format: .jpeg, width: 10, height: 10,
                    data: [0xFF, 0xD8, 0xFF] + Array(repeating: 0, count: 6))),
            limits: limits)
        #expect(content.elements.count == 3)
        let text = try #require(content.elements[0].text)
        #expect(text.utf8.count == 200 && text == String(repeating: "é", count: 100))
        #expect(content.elements.map(\.text) == [text, "B0", "B1"])
        #expect(content.screen == .init(width: 1, height: 1, scale: 4))
        #expect(content.image == nil)
    }

    @Test func theContentMakesAValidSnapshotOnTheWire() throws {
        let capture = makeCapture()
        var page = PageDescription(controllerType: "ViewController", instanceID: 1)
        page.title = "Home"
        let content = capture.snapshotContent(
            of: ScreenDescription(
                page: page, screen: .init(width: 390, height: 844, scale: 3), elements: Self.articleElements,
                image: .init(
                    format: .png, width: 2, height: 2,
                    data: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1])))
        #expect(content.page == "ViewController")
        let snapshot = ScreenSnapshot(
            connectToken: "token-0123456789abcdef",
            snapshotID: UUIDv7.make(at: Timestamp(millisecondsSince1970: 0)),
            anonymousID: "a", page: content.page, appVersion: "1.0", build: "1", osVersion: "18.1",
            deviceModel: "iPhone15,2", screen: content.screen, takenAt: Timestamp(millisecondsSince1970: 5),
            trigger: .pageAppear, elements: content.elements, image: content.image)
        #expect(try ScreenSnapshot(jsonBytes: snapshot.jsonBytes) == snapshot)
    }
}

/// How a screenshot is brought under its byte cap.
struct ScreenshotSizingTests {
    @Test func smallerScalesAreTriedUntilTheImageFitsOrNoneIsLeft() {
        var sizing = ScreenshotSizing()
        sizing.maximumBytes = 1_000
        #expect(sizing.firstScale(screenScale: 3) == 3)
        #expect(sizing.firstScale(screenScale: .nan) == 1)
        #expect(sizing.next(afterScale: 3, encodedBytes: 1_000) == nil)
        #expect(sizing.next(afterScale: 3, encodedBytes: 1_001) == .retry(scale: 2.25))
        var scale = 3.0
        var tries = 0
        while case .retry(let smaller)? = sizing.next(afterScale: scale, encodedBytes: 5_000) {
            #expect(smaller < scale && smaller >= sizing.minimumScale)
            scale = smaller
            tries += 1
        }
        #expect(tries == 6)
        #expect(sizing.next(afterScale: scale, encodedBytes: 5_000) == .giveUp)
    }
}
