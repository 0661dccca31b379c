import Foundation
import Testing

@testable import Footprint

/// Collects what automatic capture hands to its sink.
final class CollectingCaptureSink: CaptureSink, @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [CapturedEvent] = []

    func record(_ event: CapturedEvent) {
        lock.lock()
        collected.append(event)
        lock.unlock()
    }

    var events: [CapturedEvent] {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }

    /// The event names in order: `screen:<name>` for screens, the track event name otherwise.
    var names: [String] {
        events.map {
            switch $0.kind {
            case .screen(let name): return "screen:\(name)"
            case .track(let event): return event
            }
        }
    }

    func removeAll() {
        lock.lock()
        collected.removeAll()
        lock.unlock()
    }
}

/// The fixtures folder next to this file.
enum CaptureFixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(name))
    }

    static func plan() throws -> TrackingPlan {
        try TrackingPlan(jsonBytes: [UInt8](data("plan.json")))
    }
}

/// Builds responder chains the way the UIKit adapter describes them.
enum Chains {
    static let applicationTail: [ResponderDescription] = [.other("UIApplication"), .other("AppDelegate")]

    /// A button at `index` in the root view of `controller`.
    static func button(
        _ index: Int = 0, in controller: String = "ViewController", title: String? = "Button"
    ) -> ElementDescription {
        ElementDescription(
            chain: [.view("UIButton", index), .view("UIView", 0), .controller(controller)] + applicationTail,
            kind: .button,
            attributes: ElementAttributes(title: title, state: 0, isEnabled: true, isSelected: false))
    }

    /// A product cell at `row` in a table in `controller`.
    static func cell(
        section: Int = 0, row: Int, in controller: String = "HomeViewController", itemID: String? = nil
    )
        -> ElementDescription
    {
        ElementDescription(
            chain: [
                ResponderDescription(
                    "ProductCell", cellIndexPath: CellIndexPath(section: section, row: row), itemID: itemID),
                .view("UITableView", 0), .view("UIView", 0), .controller(controller),
            ] + applicationTail,
            kind: .cell, attributes: ElementAttributes(title: "Red Shoes"))
    }

    static let tableSelection = ActionDescription(
        selector: "tableView:didSelectRowAtIndexPath:", senderType: "UITableView")

    static func tap(_ selector: String = "buttonClick:", sender: String = "UIButton") -> ActionDescription {
        ActionDescription(selector: selector, senderType: sender)
    }
}
