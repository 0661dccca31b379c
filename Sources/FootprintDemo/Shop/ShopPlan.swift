import Footprint

/// The tracking plan bundled with the sample shop (the format of `docs/TRACKING-PLAN.md`):
/// pages named by controller type, Add to Cart defined by its path in each app version, a
/// product tap by its cell path with any row, the deals banner by a pattern, and the order by
/// its purpose method, whatever button reached it.
public enum ShopPlan {
    /// What every path ends with: the navigation controller's views up to the app delegate.
    private static let tail =
        "#UIViewControllerWrapperView[0]#UINavigationTransitionView[0]#UILayoutContainerView[0]"
        + "#UINavigationController#UIWindow#UIWindowScene#UIApplication#AppDelegate"
    private static let addToCartAttributes = "#currentTitle=Add to Cart#state=0#enabled=1#selected=0"
    private static let detail = "#ProductDetailViewController\(tail)"

    /// The plan as the app would bundle it.
    public static let document = """
        {
          "version": 1,
          "uploadMode": "all",
          "pageMode": "configured",
          "pages": {
            "HomeViewController": { "name": "Home", "properties": { "tab": "shop" } },
            "ProductListViewController": { "name": "Product List", "properties": { "tab": "shop" } },
            "ProductDetailViewController": { "name": "Product Detail" },
            "CartViewController": { "name": "Cart" },
            "CheckoutViewController": { "name": "Checkout" }
          },
          "events": [
            { "id": "101", "name": "add_to_cart",
              "triggers": [
                { "path": "#buttonTapped:#UIButton#UIButton[0]#UIView[0]\(detail)\(addToCartAttributes)" },
                { "path": "#buttonTapped:#UIButton#UIButton[0]#UIStackView[0]#UIView[0]\(detail)\(addToCartAttributes)" },
                { "path": "#buttonTapped:#UIButton#UIButton[0]#BuyBarView[0]#UIView[0]\(detail)\(addToCartAttributes)" }
              ] },
            { "id": "102", "name": "select_product",
              "triggers": [
                { "path": "#tableView:didSelectRowAtIndexPath:#UITableView#ProductCell[0:*]#UITableView[0]#ProductListViewController\(tail)",
                  "match": "similar" }
              ] },
            { "id": "103", "name": "deals_banner",
              "triggers": [ { "path": "#buttonTapped:#UIButton#**#BannerView[*]#**#HomeViewController#**", "match": "pattern" } ] },
            { "id": "104", "name": "begin_checkout",
              "triggers": [ { "path": "#buttonTapped:#UIButton#UIButton[0]#UIView[0]#CartViewController\(tail)#currentTitle=Checkout#state=0#enabled=1#selected=0" } ] },
            { "id": "105", "name": "order_completed",
              "triggers": [ { "target": "CheckoutViewController", "method": "placeOrder" } ],
              "properties": { "revenue": "target.order.total", "items": "target.order.itemCount" } }
          ]
        }
        """

    /// The plan, parsed.
    public static func plan() throws(PlanError) -> TrackingPlan {
        try TrackingPlan(jsonBytes: Array(document.utf8))
    }
}
