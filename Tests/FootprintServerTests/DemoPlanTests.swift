import Footprint
import FootprintWire
import Testing

@testable import FootprintDemo

/// The sample shop's bundled plan names what the demo expects it to name.
struct DemoPlanTests {
    static let matcher: PlanMatcher? = try? PlanMatcher(plan: ShopPlan.plan())

    func eventName(of element: ElementDescription, action: ActionDescription) throws -> String? {
        let matcher = try #require(Self.matcher)
        let path = ElementPath(element: element, action: action)
        return matcher.event(exactPath: path.exact, similarPath: path.similar) {
            element.conditionValue(named: $0)
        }?
        .name
    }

    @Test(arguments: ShopInterface.appVersions)
    func addToCartIsNamedInEveryAppVersion(version: String) throws {
        let name = try eventName(
            of: ShopInterface.addToCartButton(appVersion: version), action: ShopInterface.buttonAction)
        #expect(name == "add_to_cart")
    }

    @Test func eachDemoActionHasItsPlanName() throws {
        #expect(
            try eventName(of: ShopInterface.dealsBanner, action: ShopInterface.buttonAction) == "deals_banner"
        )
        #expect(
            try eventName(of: ShopInterface.productCell(17), action: ShopInterface.cellAction)
                == "select_product")
        #expect(
            try eventName(of: ShopInterface.checkoutButton, action: ShopInterface.buttonAction)
                == "begin_checkout")
        #expect(try eventName(of: ShopInterface.cartButton, action: ShopInterface.buttonAction) == nil)
        #expect(try eventName(of: ShopInterface.categoryTile(2), action: ShopInterface.tileAction) == nil)
        #expect(try eventName(of: ShopInterface.placeOrderButton, action: ShopInterface.buttonAction) == nil)
        let matcher = try #require(Self.matcher)
        #expect(
            matcher.event(target: "CheckoutViewController", method: "placeOrder")?.name == "order_completed")
    }

    @Test func everyScreenIsANamedPage() throws {
        let plan = try ShopPlan.plan()
        for screen in ShopScreen.allCases {
            #expect(plan.pages[screen.controllerType]?.name == screen.pageName)
        }
    }
}
