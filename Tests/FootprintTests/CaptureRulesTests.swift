import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// The decisions the UIKit adapter passes to the core: which control actions and gestures count,
/// which page a tap or a list belongs to, which lists are the app's, which purpose methods may
/// be hooked.
struct CaptureRulesTests {
    let sink = CollectingCaptureSink()
    let clock = SimulatedClock(start: Timestamp(millisecondsSince1970: 1_795_981_800_000))

    func capture(_ plan: TrackingPlan = TrackingPlan()) -> AutoCapture {
        AutoCapture(plans: PlanStore(bundled: plan), deviceID: "device-1", sink: sink, clock: clock)
    }

    static func element(_ kind: ElementKind, type: String, continuous: Bool = false, touchDown: Bool = false)
        -> ElementDescription
    {
        ElementDescription(
            chain: [.view(type, 0), .view("UIView", 0), .controller("FormViewController")]
                + Chains.applicationTail,
            kind: kind, isContinuous: continuous, isTouchDown: touchDown)
    }

    static func action(_ events: ControlEvents?, sender: String, target: String? = "FormViewController")
        -> ActionDescription
    {
        ActionDescription(selector: "changed:", senderType: sender, targetType: target, controlEvents: events)
    }

    // MARK: Control events

    static let controlCases: [(ElementKind, String, ControlEvents?, Bool)] = [
        (.button, "UIButton", .touchUpInside, true),
        (.button, "UIButton", .touchDown, false),
        (.button, "UIButton", [.touchDown, .touchUpInside], true),
        (.button, "UIButton", .touchDragExit, false),
        (.button, "UIButton", .primaryActionTriggered, true),
        (.button, "UIButton", nil, true),
        (.toggle, "UISwitch", .valueChanged, true),
        (.toggle, "UISwitch", .touchUpInside, false),
        (.segmentedControl, "UISegmentedControl", .valueChanged, true),
        (.stepper, "UIStepper", .touchDown, false),
        (.datePicker, "UIDatePicker", .valueChanged, true),
        (.datePicker, "UIDatePicker", .editingDidBegin, false),
        (.pageControl, "UIPageControl", .valueChanged, true),
        (.pageControl, "UIPageControl", .touchUpInside, false),
        (.textInput, "UITextField", .editingChanged, false),
        (.textInput, "UITextField", .editingDidBegin, false),
        (.textInput, "UITextField", .editingDidEndOnExit, true),
        (.textInput, "UITextField", .primaryActionTriggered, true),
        (.other, "RatingControl", .touchUpInside, true),
        (.other, "RatingControl", .valueChanged, false),
    ]

    @Test(arguments: 0..<controlCases.count)
    func aControlActionCountsOnlyForTheEventsOfItsKind(index: Int) {
        let (kind, type, events, counts) = Self.controlCases[index]
        capture().controlActed(Self.element(kind, type: type), action: Self.action(events, sender: type))
        #expect(sink.events.count == (counts ? 1 : 0), "\(type) registered for \(String(describing: events))")
    }

    @Test func aContinuousSliderReportsItsValueOnlyWhenTheFingerLifts() {
        let capture = capture()
        let drag = Self.element(.slider, type: "UISlider", continuous: true, touchDown: true)
        for _ in 0..<5 { capture.controlActed(drag, action: Self.action(.valueChanged, sender: "UISlider")) }
        #expect(sink.events.isEmpty)
        let lift = Self.element(.slider, type: "UISlider", continuous: true, touchDown: false)
        capture.controlActed(lift, action: Self.action(.valueChanged, sender: "UISlider"))
        let stepped = Self.element(.slider, type: "UISlider", continuous: false, touchDown: true)
        capture.controlActed(stepped, action: Self.action(.valueChanged, sender: "UISlider"))
        #expect(sink.events.count == 2)
    }

    /// UIKit sends a bar button tap twice: from its private button view to a private target,
    /// then from the `UIBarButtonItem` to the app's target. One is reported.
    @Test func aBarButtonTapIsReportedOnce() throws {
        let capture = capture()
        let privateButton = ElementDescription(
            chain: [
                .view("_UIButtonBarButton", 0), .view("_UIButtonBarStackView", 0),
                .view("UINavigationBar", 0),
            ]
                + Chains.applicationTail,
            kind: .other)
        capture.controlActed(
            privateButton,
            action: ActionDescription(
                selector: "_invoke:forEvent:", senderType: "_UIButtonBarButton",
                targetType: "_UIButtonBarTargetAction", controlEvents: .touchUpInside))
        let item = ElementDescription(
            chain: [.other("UIBarButtonItem"), .controller("CartViewController")] + Chains.applicationTail,
            kind: .button, attributes: ElementAttributes(title: "Checkout"))
        capture.controlActed(
            item,
            action: ActionDescription(
                selector: "checkout:", senderType: "UIBarButtonItem", targetType: "CartViewController"))
        let click = try #require(sink.events.first)
        #expect(sink.events.count == 1)
        #expect(
            click.properties["$element_path"]?.stringValue?.hasPrefix("#checkout:#UIBarButtonItem#") == true)
    }

    @Test func uiKitAndSwiftUIPlumbingIsNeverReported() {
        let capture = capture()
        let button = Self.element(.button, type: "UIButton")
        capture.controlActed(button, action: ActionDescription(selector: "_tapped:", senderType: "UIButton"))
        capture.controlActed(
            button,
            action: ActionDescription(
                selector: "handle:", senderType: "UIButton", targetType: "SwiftUI.PlatformGestureRecognizer"))
        #expect(sink.events.isEmpty)
        capture.controlActed(button, action: ActionDescription(selector: "UIAction", senderType: "UIButton"))
        // A private control's UIAction may be a bar button's only trace: it counts.
        capture.controlActed(
            Self.element(.other, type: "_UIButtonBarButton"),
            action: ActionDescription(
                selector: "UIAction", senderType: "_UIButtonBarButton", controlEvents: .touchUpInside))
        #expect(sink.events.count == 2)
    }

    // MARK: Gestures

    static let gestureCases: [(String, GestureKind, Bool)] = [
        ("UITapGestureRecognizer", .tap, true),
        ("UILongPressGestureRecognizer", .longPress, true),
        ("DoubleTapRecognizer", .tap, true),
        ("_UISystemTapRecognizer", .tap, false),
        ("UITextTapRecognizer", .tap, false),
        ("UIPanGestureRecognizer", .other, false),
        ("SwipeRecognizer", .other, false),
    ]

    @Test(arguments: 0..<gestureCases.count)
    func onlyTheAppsTapsAndLongPressesAreWatched(index: Int) {
        let (type, kind, watched) = Self.gestureCases[index]
        #expect(GestureRule.isWatched(typeName: type, kind: kind) == watched, "\(type)")
    }

    @Test func aTapReportsWhenRecognizedALongPressWhenItBegins() {
        let capture = capture()
        let banner = Self.element(.other, type: "BannerView")
        capture.gestureRecognized(
            on: banner, recognizerType: "UITapGestureRecognizer", kind: .tap, phase: .began)
        capture.gestureRecognized(
            on: banner, recognizerType: "UITapGestureRecognizer", kind: .tap, phase: .ended)
        capture.gestureRecognized(
            on: banner, recognizerType: "UILongPressGestureRecognizer", kind: .longPress, phase: .began)
        capture.gestureRecognized(
            on: banner, recognizerType: "UILongPressGestureRecognizer", kind: .longPress, phase: .ended)
        capture.gestureRecognized(
            on: banner, recognizerType: "_UISystemTapRecognizer", kind: .tap, phase: .ended)
        let paths = sink.events.compactMap { $0.properties["$element_path"]?.stringValue }
        #expect(paths.count == 2)
        #expect(paths.first?.hasPrefix("#tap#UITapGestureRecognizer#BannerView[0]#") == true)
        #expect(paths.last?.hasPrefix("#longPress#UILongPressGestureRecognizer#BannerView[0]#") == true)
    }

    // MARK: Pages of taps and lists

    /// A banner controller embedded in the home page, inside a navigation controller.
    static let childChain: [ResponderDescription] =
        [
            .view("UIButton", 0), .view("UIView", 0),
            .controller("BannerChildController", parent: "HomeViewController"),
            .view("UIView", 0), .controller("HomeViewController", parent: "UINavigationController"),
            .controller("UINavigationController"),
        ] + Chains.applicationTail

    static let pageModes: [TrackingPlan.PageMode] = [.all, .configured]

    @Test(arguments: pageModes)
    func aTapInAChildControllerBelongsToThePageAroundIt(mode: TrackingPlan.PageMode) throws {
        let plan = TrackingPlan(pageMode: mode, pages: ["HomeViewController": PageRule(name: "Home")])
        let capture = capture(plan)
        capture.pageAppeared(
            PageDescription(
                controllerType: "BannerChildController", instanceID: 2, parentType: "HomeViewController"))
        #expect(sink.events.isEmpty, "the child is no page")
        capture.controlActed(ElementDescription(chain: Self.childChain, kind: .button), action: Chains.tap())
        let click = try #require(sink.events.first)
        #expect(click.properties["$page_name"] == "Home")
        #expect(capture.pageName(ofChain: Self.childChain) == "Home", "a list there names the same page")
    }

    @Test func aChildThePlanNamesIsItsOwnPage() {
        let plan = TrackingPlan(
            pageMode: .all,
            pages: [
                "BannerChildController": PageRule(name: "Banner"),
                "HomeViewController": PageRule(name: "Home"),
            ])
        #expect(PagePolicy(plan: plan).pageName(ofChain: Self.childChain) == "Banner")
        let unnamed = PagePolicy(plan: TrackingPlan(pageMode: .all))
        #expect(unnamed.pageName(ofChain: Self.childChain) == "HomeViewController")
        #expect(unnamed.pageName(ofControllerType: "SheetController", parentType: nil) == "SheetController")
        #expect(
            unnamed.pageName(ofControllerType: "SheetController", parentType: "UINavigationController")
                == "SheetController")
        #expect(
            unnamed.pageName(ofControllerType: "BannerChildController", parentType: "HomeViewController")
                == nil)
    }

    @Test func withoutAPageOnTheChainTheCurrentPageIsUsed() {
        let capture = capture(
            TrackingPlan(pageMode: .configured, pages: ["CartViewController": PageRule(name: "Cart")]))
        capture.pageAppeared(PageDescription(controllerType: "CartViewController", instanceID: 1))
        #expect(capture.pageName(ofChain: Self.childChain) == "Cart")
    }

    // MARK: Lists

    static let appCode = AppCode(
        bundlePath: "/var/containers/Bundle/Application/1/Shop.app", modules: ["Shop", "ShopKit"])
    static let uiKit = "/System/Library/PrivateFrameworks/UIKitCore.framework/UIKitCore"

    static func origin(_ name: String, in image: String?) -> ClassOrigin {
        ClassOrigin(runtimeName: name, imagePath: image)
    }

    static let listCases: [(ClassOrigin, ClassOrigin, Bool)] = [
        (
            origin("UITableView", in: uiKit),
            origin("Shop.CatalogueViewController", in: appCode.bundlePath + "/Shop"), true
        ),
        (
            origin("Shop.FeedView", in: appCode.bundlePath + "/Shop"),
            origin("_TtC4Shop12FeedDelegate", in: appCode.bundlePath + "/Shop"), true
        ),
        (
            origin("UICollectionView", in: uiKit),
            origin(
                "RxCollectionViewDelegateProxy",
                in: appCode.bundlePath + "/Frameworks/RxCocoa.framework/RxCocoa"),
            true
        ),
        (origin("UITableView", in: uiKit), origin("UITableViewController", in: uiKit), true),
        (
            origin("UITableView", in: "/tmp/ShopKitTests.xctest/X"),
            origin("ShopKit.ListDelegate", in: "/tmp/x"), true
        ),
        (origin("UIPickerTableView", in: uiKit), origin("UIPickerView", in: uiKit), false),
        (origin("UICollectionView", in: uiKit), origin("_UIContextMenuListView", in: uiKit), false),
        (
            origin("UICollectionView", in: uiKit),
            origin("TUIEmojiSearchView", in: "/System/Library/TextInputUI"), false
        ),
        (
            origin(
                "SwiftUI.UpdateCoordinatorCollectionView",
                in: "/System/Library/Frameworks/SwiftUI.framework/SwiftUI"),
            origin("SwiftUI.ListCoordinator", in: "/System/Library/Frameworks/SwiftUI.framework/SwiftUI"),
            false
        ),
        (origin("UIKeyboardCandidateGridCollectionView", in: uiKit), origin("Shop.Anything", in: nil), false),
    ]

    @Test(arguments: 0..<listCases.count)
    func onlyTheAppsListsGetTheDelegateProxy(index: Int) {
        let (list, delegate, wrapped) = Self.listCases[index]
        #expect(
            ListRule.wrapsDelegate(list: list, delegate: delegate, appCode: Self.appCode) == wrapped,
            "\(list.runtimeName) with \(delegate.runtimeName)")
    }

    @Test func exposureIsMeasuredForMarkedListsOutsideSystemUI() {
        let chain: [ResponderDescription] =
            [.view("UITableView", 0), .view("UIView", 0), .controller("HomeViewController")]
            + Chains.applicationTail
        let keyboard: [ResponderDescription] = [
            .view("UICollectionView", 0), .view("UIInputSetHostView", 0), .other("UIRemoteKeyboardWindow"),
        ]
        var plan = TrackingPlan()
        let capture = capture(plan)
        #expect(capture.measuresExposure(ofList: chain, isMarked: true))
        #expect(!capture.measuresExposure(ofList: chain, isMarked: false))
        #expect(!capture.measuresExposure(ofList: keyboard, isMarked: true))
        var ignored = chain
        ignored[1].ignoresTracking = true
        #expect(!capture.measuresExposure(ofList: ignored, isMarked: true))
        plan.exposureLists = .all
        capture.plans.replaceBundled(plan)
        #expect(capture.measuresExposure(ofList: chain, isMarked: false))
        #expect(!capture.measuresExposure(ofList: keyboard, isMarked: false))
    }

    @Test func thePlanChoosesWhichListsAreMeasured() throws {
        let plan = try TrackingPlan(jsonBytes: Array(#"{"version": 1, "exposureLists": "all"}"#.utf8))
        #expect(plan.exposureLists == .all)
        #expect(try TrackingPlan(json: plan.jsonValue) == plan)
        #expect(TrackingPlan().exposureLists == .marked)
        #expect(TrackingPlan().jsonValue == .object(["version": .int(1)]))
        #expect(throws: PlanError.self) {
            try TrackingPlan(jsonBytes: Array(#"{"version": 1, "exposureLists": "some"}"#.utf8))
        }
    }

    // MARK: Purpose methods

    static let refusalCases: [(String, ClassOrigin, PurposeMethodRule.Refusal?)] = [
        ("goShare", origin("Shop.ArticleViewController", in: appCode.bundlePath + "/Shop"), nil),
        ("share:", origin("_TtC7ShopKit9ShareCard", in: "/private/var/x/ShopKit"), nil),
        ("dealloc", origin("Shop.ArticleViewController", in: appCode.bundlePath + "/Shop"), .runtimeMethod),
        (
            ".cxx_destruct", origin("Shop.ArticleViewController", in: appCode.bundlePath + "/Shop"),
            .runtimeMethod
        ),
        ("release", origin("Shop.ArticleViewController", in: appCode.bundlePath + "/Shop"), .runtimeMethod),
        ("retain", origin("Shop.ArticleViewController", in: appCode.bundlePath + "/Shop"), .runtimeMethod),
        (
            "autorelease", origin("Shop.ArticleViewController", in: appCode.bundlePath + "/Shop"),
            .runtimeMethod
        ),
        (
            "_updateLayout", origin("Shop.ArticleViewController", in: appCode.bundlePath + "/Shop"),
            .privateMethod
        ),
        ("viewDidLoad", origin("UIViewController", in: uiKit), .outsideApp),
        (
            "goShare", origin("Sharing.Sheet", in: "/System/Library/Frameworks/Sharing.framework/Sharing"),
            .outsideApp
        ),
        ("layoutSubviews", origin("UIView", in: uiKit), .hotPathMethod),
        ("setNeedsFocusUpdate", origin("UIView", in: uiKit), .outsideApp),
        ("layoutSubviews", origin("Shop.ProductCell", in: appCode.bundlePath + "/Shop"), .hotPathMethod),
        (
            "viewDidLayoutSubviews", origin("Shop.ArticleViewController", in: appCode.bundlePath + "/Shop"),
            .hotPathMethod
        ),
        ("prepareForReuse", origin("Shop.ProductCell", in: appCode.bundlePath + "/Shop"), .hotPathMethod),
        (
            "scrollViewDidScroll:", origin("Shop.FeedController", in: appCode.bundlePath + "/Shop"),
            .hotPathMethod
        ),
        ("drawRect:", origin("Shop.ChartView", in: appCode.bundlePath + "/Shop"), .hotPathMethod),
    ]

    @Test(arguments: 0..<refusalCases.count)
    func purposeMethodsThatCouldCrashEveryUserAreRefused(index: Int) {
        let (method, target, refusal) = Self.refusalCases[index]
        #expect(
            PurposeMethodRule.refusal(
                method: method, typeName: TypeName.readable(target.runtimeName), target: target,
                appCode: Self.appCode, allowedTypes: []) == refusal,
            "\(target.runtimeName).\(method)")
    }

    @Test func aClassOutsideTheAppIsHookedOnlyWhenTheAppListsIt() {
        let view = Self.origin("UIView", in: Self.uiKit)
        #expect(
            PurposeMethodRule.refusal(
                method: "accessibilityActivate", typeName: "UIView", target: view, appCode: Self.appCode,
                allowedTypes: ["UIView"]) == nil)
        #expect(
            PurposeMethodRule.refusal(
                method: "dealloc", typeName: "UIView", target: view, appCode: Self.appCode,
                allowedTypes: ["UIView"])
                == .runtimeMethod)
    }

    @Test func swiftModulesAreReadFromRuntimeNames() {
        #expect(ClassOrigin(runtimeName: "Shop.HomeViewController", imagePath: nil).swiftModule == "Shop")
        #expect(ClassOrigin(runtimeName: "_TtC4Shop12FeedDelegate", imagePath: nil).swiftModule == "Shop")
        #expect(
            ClassOrigin(runtimeName: "_TtCC7ShopKit5Outer5Inner", imagePath: nil).swiftModule == "ShopKit")
        #expect(ClassOrigin(runtimeName: "UITableView", imagePath: nil).swiftModule == nil)
        #expect(ClassOrigin(runtimeName: "_TtC999", imagePath: nil).swiftModule == nil)
        #expect(ClassOrigin(runtimeName: ".Hidden", imagePath: nil).swiftModule == nil)
    }
}
