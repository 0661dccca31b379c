import Footprint
import FootprintSimulation
import Foundation

/// The sample shop's view hierarchies, described as the UIKit adapter describes a real app's:
/// each element's responder chain runs from the element through its superviews and view
/// controller, the navigation controller's container views, the window, up to the application
/// delegate. The Add to Cart button moved between app versions, as buttons do.
public enum ShopInterface {
    /// The app versions the virtual users run, oldest first.
    public static let appVersions = ["1.0", "1.1", "2.0"]

    /// The list's scroll view: an iPhone 15 screen under a navigation bar and above the home
    /// indicator.
    public static let feedViewport = ListViewport(
        size: CGSize(width: 393, height: 852), insets: ListInsets(top: 103, bottom: 34))

    /// The product feed's layout: one table section, 120-point rows carrying each product's id,
    /// price and category.
    public static let feedItems: [ListItem] = SimulatedLayout.table(
        rowsPerSection: [ShopCatalog.products.count], rowLength: 120, crossLength: 393,
        itemId: { ShopCatalog.products[$0.row].id },
        properties: { indexPath in
            let product = ShopCatalog.products[indexPath.row]
            return ["price": .double(product.price), "category": .string(product.category)]
        })

    /// From a controller's root view up to the application delegate, inside the navigation
    /// controller.
    static func chain(under screen: ShopScreen) -> [ResponderDescription] {
        [
            .controller(screen.controllerType), .view("UIViewControllerWrapperView", 0),
            .view("UINavigationTransitionView", 0), .view("UILayoutContainerView", 0),
            .controller("UINavigationController"), ResponderDescription("UIWindow", role: .view),
            .other("UIWindowScene"), .other("UIApplication"), .other("AppDelegate"),
        ]
    }

    /// A button titled `title`, enabled and not selected.
    static func button(_ title: String, in views: [ResponderDescription], on screen: ShopScreen)
        -> ElementDescription
    {
        ElementDescription(
            chain: [.view("UIButton", 0)] + views + chain(under: screen), kind: .button,
            attributes: ElementAttributes(title: title, state: 0, isEnabled: true, isSelected: false))
    }

    /// The action a button sends.
    static let buttonAction = ActionDescription(selector: "buttonTapped:", senderType: "UIButton")

    // MARK: Home

    /// The deals banner at the top of the home page.
    static var dealsBanner: ElementDescription {
        button("Today's deals", in: [.view("BannerView", 0), .view("UIView", 0)], on: .home)
    }

    /// A category tile of the home page's grid.
    static func categoryTile(_ index: Int) -> ElementDescription {
        ElementDescription(
            chain: [
                ResponderDescription(
                    "CategoryCell", cellIndexPath: CellIndexPath(section: 0, row: index),
                    itemID: "category-" + ShopCatalog.categories[index].lowercased()),
                .view("UICollectionView", 0), .view("UIView", 0),
            ] + chain(under: .home),
            kind: .cell, attributes: ElementAttributes(title: ShopCatalog.categories[index]))
    }

    /// The action of a category tile.
    static let tileAction = ActionDescription(
        selector: "collectionView:didSelectItemAtIndexPath:", senderType: "UICollectionView")

    // MARK: Product list

    /// The feed's cell at `row`, with the product's id and business properties.
    static func productCell(_ row: Int) -> ElementDescription {
        let product = ShopCatalog.products[row]
        return ElementDescription(
            chain: [
                ResponderDescription(
                    "ProductCell", cellIndexPath: CellIndexPath(section: 0, row: row), itemID: product.id,
                    properties: ["price": .double(product.price), "category": .string(product.category)]),
                .view("UITableView", 0),
            ] + chain(under: .productList),
            kind: .cell, attributes: ElementAttributes(title: product.name))
    }

    /// The action of a feed cell.
    static let cellAction = ActionDescription(
        selector: "tableView:didSelectRowAtIndexPath:", senderType: "UITableView")

    // MARK: Product detail

    /// The Add to Cart button where app version `version` puts it: at the bottom of the root view
    /// (1.0), in a stack view (1.1), in a buy bar (2.0).
    static func addToCartButton(appVersion version: String) -> ElementDescription {
        let views: [ResponderDescription]
        switch version {
        case "1.0": views = [.view("UIView", 0)]
        case "1.1": views = [.view("UIStackView", 0), .view("UIView", 0)]
        default: views = [.view("BuyBarView", 0), .view("UIView", 0)]
        }
        return button("Add to Cart", in: views, on: .productDetail)
    }

    /// The cart button of the product page.
    static var cartButton: ElementDescription {
        button("Cart", in: [.view("CartBadgeView", 0), .view("UIView", 0)], on: .productDetail)
    }

    // MARK: Cart and checkout

    /// The cart's checkout button.
    static var checkoutButton: ElementDescription {
        button("Checkout", in: [.view("UIView", 0)], on: .cart)
    }

    /// The checkout page's order button (its action calls `placeOrder`).
    static var placeOrderButton: ElementDescription {
        button("Place order", in: [.view("UIView", 0)], on: .checkout)
    }
}

extension ShopInterface {
    /// The feed's content height: the end of its last row.
    public static let feedContentLength: CGFloat = feedItems.reduce(0) { max($0, $1.frame.maxY) }
}
