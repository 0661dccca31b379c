import Footprint

/// The platform-independent work the UIKit adapter does on the main thread: readable type names
/// for every responder of a tapped element's chain (at each tap), and reading a purpose method's
/// type encoding (once per plan entry).
let adapterSuite = BenchmarkSuite(name: "adapter") {
    let chain = [
        "NSKVONotifying_UIButton", "UIStackView", "MyShop.ProductCardView", "UITableViewCellContentView",
        "MyShop.ProductCell", "UITableView", "UIView", "MyShop.CatalogueViewController",
        "UIViewControllerWrapperView", "UINavigationTransitionView", "UILayoutContainerView",
        "UINavigationController", "UITransitionView", "UIWindow", "UIWindowScene", "UIApplication",
        "MyShop.AppDelegate",
        "UIHostingController<ModifiedContent<PromotionsView, _EnvironmentKeyWritingModifier<Int>>>",
    ]
    var names: [String] = []
    let readable = Measure.samples(iterations: 20_000) { names = chain.map(TypeName.readable) }
    precondition(names.count == chain.count)

    var signature: ObjCMethodSignature?
    let encoding = "v32@0:8@\"NSString\"16@?24"
    let parse = Measure.samples(iterations: 20_000) {
        signature = ObjCMethodSignature(typeEncoding: encoding)
    }
    precondition(signature?.hookableObjectArgumentCount == 2)

    return [
        BenchmarkRow(
            metric: "readable names, \(chain.count)-responder chain (median)",
            value: Measure.duration(Measure.quantile(readable, 0.5)), note: "per tap"),
        BenchmarkRow(
            metric: "readable names, \(chain.count)-responder chain (p99)",
            value: Measure.duration(Measure.quantile(readable, 0.99))),
        BenchmarkRow(
            metric: "purpose-method type encoding (median)",
            value: Measure.duration(Measure.quantile(parse, 0.5)),
            note: "per plan entry"),
    ]
}
