import Foundation
import Testing

@testable import Footprint

/// Key-path values read through `Mirror`.
struct KeyPathTests {
    enum Slot { case top, bottom }
    struct Banner {
        var url: URL?
        var title: String
        var slot: Slot
        var position: Int
        var tags: [String]
        var extra: [String: Any]
    }
    class BaseController {
        var screenName = "base"
    }
    final class HomeController: BaseController {
        var banner: Banner? = Banner(
            url: URL(string: "https://shop.example/sale"), title: "Sale", slot: .top, position: 2,
            tags: ["a", "b"],
            extra: ["campaign": "spring", "nested": ["depth": 2]])
        var emptyBanner: Banner?
        lazy var lazyName: String = "lazy"
        var doubleOptional: Int?? = .some(nil)
    }

    let source = MirrorKeyPathSource(roots: ["viewController": HomeController(), "count": 3])

    func value(_ path: String) -> JSONValue? {
        source.value(at: PropertyKeyPath(path)!)
    }

    @Test func readsThroughOptionalsStructsAndClasses() {
        #expect(value("viewController.banner.url") == "https://shop.example/sale")
        #expect(value("viewController.banner.title") == "Sale")
        #expect(value("viewController.banner.position") == 2)
        #expect(value("viewController.banner.slot") == "top")
        #expect(value("viewController.banner.tags") == ["a", "b"])
        #expect(value("count") == 3)
    }

    @Test func readsInheritedLazyAndDictionaryValues() {
        #expect(value("viewController.screenName") == "base")
        #expect(value("viewController.banner.extra.campaign") == "spring")
        #expect(value("viewController.banner.extra.nested.depth") == 2)
        _ = value("viewController.lazyName")  // unread lazy storage is nil: no value, no crash
    }

    @Test(arguments: [
        "viewController.missing", "viewController.emptyBanner.url", "viewController.banner.url.host.x",
        "nobody.banner",
        "viewController.banner", "viewController.doubleOptional", "viewController.banner.extra.absent",
    ])
    func missingKeysAndNilOptionalsGiveNoValue(path: String) {
        #expect(value(path) == nil)
    }

    @Test func keyPathsAreValidated() {
        #expect(PropertyKeyPath("a.b.c")?.components == ["a", "b", "c"])
        #expect(PropertyKeyPath("") == nil)
        #expect(PropertyKeyPath("a..b") == nil)
        #expect(PropertyKeyPath(".a") == nil)
        #expect(PropertyKeyPath("a b") == nil)
        #expect(PropertyKeyPath("viewController.banner.url")?.description == "viewController.banner.url")
    }
}
