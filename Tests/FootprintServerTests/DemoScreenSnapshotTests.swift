import Footprint
import FootprintSimulation
import Foundation
import Testing

@testable import FootprintDemo

/// Snapshots of the demo shop's screens: every element's paths are byte-identical to what the
/// virtual users' taps on it produce, and the bundled plan's events are marked.
struct DemoScreenSnapshotTests {
    final class Events: CaptureSink, @unchecked Sendable {
        private let lock = NSLock()
        private var events: [CapturedEvent] = []

        func record(_ event: CapturedEvent) {
            lock.lock()
            events.append(event)
            lock.unlock()
        }

        var last: CapturedEvent? {
            lock.lock()
            defer { lock.unlock() }
            return events.last
        }
    }

    static let cases: [(ShopScreen, String)] = ShopScreen.allCases.flatMap { screen in
        ShopInterface.appVersions.map { (screen, $0) }
    }

    @Test(arguments: cases)
    func pathsAreTheTapsPaths(screen: ShopScreen, appVersion: String) throws {
        let events = Events()
        let capture = AutoCapture(
            plans: PlanStore(bundled: try ShopPlan.plan()), deviceID: "device", sink: events,
            clock: SimulatedClock(start: Timestamp(millisecondsSince1970: 1_795_981_800_000)))
        let description = ShopInterface.screenDescription(of: screen, appVersion: appVersion)
        let content = capture.snapshotContent(of: description)
        #expect(content.page == screen.pageName)
        #expect(!content.elements.isEmpty)
        #expect(content.elements.count == description.elements.count)
        for (item, element) in zip(description.elements, content.elements) {
            switch item.route {
            case .cell: capture.cellSelected(item.element, action: item.action)
            case .control: capture.controlActed(item.element, action: item.action)
            case .gesture: capture.gestureRecognized(on: item.element, action: item.action)
            }
            let tap = try #require(events.last?.properties)
            #expect(Array(element.path.utf8) == tap["$element_path"]?.stringValue.map { Array($0.utf8) })
            #expect(
                Array(element.similarPath.utf8)
                    == tap["$element_similar_path"]?.stringValue.map { Array($0.utf8) })
            #expect(element.planEntry == tap["$event_id"]?.stringValue)
            #expect(element.planned == (tap["$event_id"] != nil))
            #expect(element.text == tap["$element_text"]?.stringValue)
        }
    }

    @Test func theDemoScreensNameThePlansEvents() {
        let capture = AutoCapture(
            plans: PlanStore(bundled: (try? ShopPlan.plan()) ?? TrackingPlan()), deviceID: "device",
            sink: Events())
        let detail = capture.snapshotContent(
            of: ShopInterface.screenDescription(of: .productDetail, appVersion: "2.0"))
        #expect(detail.elements.map(\.text) == ["Cart", "Add to Cart"])
        #expect(detail.elements.map(\.planned) == [false, true])
        let list = capture.snapshotContent(
            of: ShopInterface.screenDescription(of: .productList, appVersion: "2.0"))
        #expect(list.elements.allSatisfy { $0.kind == "cell" && $0.planned })
        #expect(Set(list.elements.map(\.similarPath)).count == 1)
        #expect(list.elements.allSatisfy { $0.frame.y >= 103 && $0.frame.y + $0.frame.height <= 852 - 34 })
    }
}
