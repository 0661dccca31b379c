import Footprint
import Testing

struct TypeNameTests {
    @Test(arguments: [
        ("HomeViewController", "HomeViewController"),
        ("MyApp.HomeViewController", "HomeViewController"),
        ("NSKVONotifying_UIButton", "UIButton"),
        ("NSKVONotifying_MyApp.ProductCell", "ProductCell"),
        (
            "UIHostingController<ModifiedContent<HomeView, _EnvironmentKeyWritingModifier<Int>>>",
            "UIHostingController"
        ),
        ("MyApp.Outer.Inner", "Inner"),
        ("_UIButtonBarButton", "_UIButtonBarButton"),
    ])
    func readableNames(runtime: String, readable: String) {
        #expect(TypeName.readable(runtime) == readable)
    }

    @Test func aNameThatWouldBecomeEmptyIsKept() {
        #expect(TypeName.readable("NSKVONotifying_") == "NSKVONotifying_")
        #expect(TypeName.readable("<>") == "<>")
    }

    @Test func planNamesAreLookedUpAsWrittenThenInEachModule() {
        #expect(
            TypeName.runtimeCandidates(
                for: "HomeViewController", modules: ["Shop App", "ShopKit", "Shop App"])
                == ["HomeViewController", "Shop_App.HomeViewController", "ShopKit.HomeViewController"])
        #expect(TypeName.runtimeCandidates(for: "ShopKit.Cart", modules: ["Shop"]) == ["ShopKit.Cart"])
    }

    @Test(arguments: [("Shop App", "Shop_App"), ("3D-Viewer", "_3D_Viewer"), ("Plain", "Plain")])
    func moduleNamesFromProductNames(product: String, module: String) {
        #expect(TypeName.moduleName(fromProductName: product) == module)
    }
}
