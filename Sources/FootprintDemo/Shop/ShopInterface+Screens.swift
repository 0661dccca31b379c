import Footprint
import Foundation

extension ShopInterface {
    /// The iPhone 15 screen the demo lays its pages out on: 393 × 852 points at 3×.
    public static let screenSize = ScreenSnapshot.Screen(width: 393, height: 852, scale: 3)

    /// What a snapshot of `screen` sees, as the UIKit adapter would describe it: every element a
    /// user can tap there, with the action the tap sends, its route and its frame in window
    /// coordinates. The same element descriptions as the virtual users' taps, so snapshot paths
    /// and tap paths agree. The product list shows the rows fully visible at the top of the feed.
    /// - Parameters:
    ///   - screen: the page.
    ///   - appVersion: the app version (the Add to Cart button moved between versions).
    public static func screenDescription(of screen: ShopScreen, appVersion: String) -> ScreenDescription {
        let page = PageDescription(
            controllerType: screen.controllerType,
            instanceID: UInt64(ShopScreen.allCases.firstIndex(of: screen)!),
            title: screen.pageName)
        var elements: [ScreenElement] = []
        func add(
            _ element: ElementDescription, _ action: ActionDescription, _ route: ScreenElement.Route,
            x: Double, y: Double, width: Double, height: Double
        ) {
            var placed = element
            placed.frame = ScreenSnapshot.Frame(x: x, y: y, width: width, height: height)
            elements.append(ScreenElement(element: placed, action: action, route: route))
        }
        switch screen {
        case .home:
            add(dealsBanner, buttonAction, .control, x: 16, y: 111, width: 361, height: 140)
            for tile in ShopCatalog.categories.indices {
                add(
                    categoryTile(tile), tileAction, .cell, x: 16 + Double(tile % 2) * 184,
                    y: 267 + Double(tile / 2) * 184, width: 177, height: 177)
            }
        case .productList:
            let visible = feedViewport.visibleRect(at: CGPoint(x: 0, y: -feedViewport.insets.top))
            for item in feedItems where item.visibleRatio(in: visible) >= 1 {
                add(
                    productCell(item.indexPath.row), cellAction, .cell, x: Double(item.frame.minX),
                    y: Double(item.frame.minY) + Double(feedViewport.insets.top),
                    width: Double(item.frame.width),
                    height: Double(item.frame.height))
            }
        case .productDetail:
            add(cartButton, buttonAction, .control, x: 329, y: 55, width: 48, height: 44)
            add(
                addToCartButton(appVersion: appVersion), buttonAction, .control, x: 16, y: 758, width: 361,
                height: 50)
        case .cart:
            add(checkoutButton, buttonAction, .control, x: 16, y: 758, width: 361, height: 50)
        case .checkout:
            add(placeOrderButton, buttonAction, .control, x: 16, y: 758, width: 361, height: 50)
        }
        return ScreenDescription(page: page, screen: screenSize, elements: elements)
    }
}
