import Foundation
import Testing

@testable import Footprint

/// The example app's bundled plan is valid, and its element rule matches the catalogue's cells
/// as the UIKit adapter describes them.
struct ExamplePlanTests {
    let plan: TrackingPlan

    init() throws {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/FootprintExample/FootprintExample/footprint-plan.json")
        plan = try TrackingPlan(jsonBytes: Array(try Data(contentsOf: url)))
    }

    @Test func namesThePagesAndThePurposeMethod() {
        let hooks = CaptureHooks(plan: plan)
        #expect(hooks.pageTypes == ["CatalogueViewController", "ArticleViewController", "Promotions"])
        #expect(hooks.methods == [CaptureHooks.Method(target: "ArticleViewController", method: "goShare")])
    }

    @Test func catalogueCellSelectionIsOpenProduct() throws {
        let sink = CollectingCaptureSink()
        let capture = AutoCapture(plans: PlanStore(bundled: plan), deviceID: "device", sink: sink)
        let cell = ElementDescription(
            chain: [
                ResponderDescription(
                    "UITableViewCell", cellIndexPath: CellIndexPath(section: 0, row: 7), itemID: "sku-8"),
                .view("UITableView", 0), .controller("CatalogueViewController"),
                .view("UIViewControllerWrapperView", 0), .controller("UINavigationController"),
                .controller("UITabBarController"), .view("UIWindow", 0), .other("UIWindowScene"),
                .other("UIApplication"), .other("AppDelegate"),
            ],
            kind: .cell)
        capture.cellSelected(
            cell,
            action: ActionDescription(
                selector: "tableView:didSelectRowAtIndexPath:", senderType: "UITableView"))
        let click = try #require(sink.events.first)
        #expect(click.properties["$event_name"] == .string("open_product"))
        #expect(click.properties["$item_id"] == .string("sku-8"))
    }
}
