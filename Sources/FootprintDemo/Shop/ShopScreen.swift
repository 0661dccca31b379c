/// The sample shop's pages: one view controller type each, named by the bundled plan.
public enum ShopScreen: String, Sendable, Hashable, CaseIterable {
    /// The start page: a deals banner and the category grid.
    case home
    /// The product feed, scrolled by the readers of the list-exposure article.
    case productList
    /// One product, with its Add to Cart button.
    case productDetail
    /// The cart.
    case cart
    /// The order form.
    case checkout

    /// The view controller type the app uses for it.
    public var controllerType: String {
        switch self {
        case .home: "HomeViewController"
        case .productList: "ProductListViewController"
        case .productDetail: "ProductDetailViewController"
        case .cart: "CartViewController"
        case .checkout: "CheckoutViewController"
        }
    }

    /// The page name the bundled plan gives it (what the report shows).
    public var pageName: String {
        switch self {
        case .home: "Home"
        case .productList: "Product List"
        case .productDetail: "Product Detail"
        case .cart: "Cart"
        case .checkout: "Checkout"
        }
    }
}
