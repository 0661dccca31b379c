import Testing

@testable import Footprint

/// The page-view state machine.
struct PageViewTests {
    var tracker = PageViewTracker()
    let home = PageViewTracker.Page(instanceID: 1, name: "Home", screenClass: "HomeViewController")
    let product = PageViewTracker.Page(instanceID: 2, name: "Product", screenClass: "ProductViewController")
    let sheet = PageViewTracker.Page(instanceID: 3, name: "Share", screenClass: "ShareViewController")

    func at(_ seconds: Int64) -> Timestamp { Timestamp(millisecondsSince1970: 1_000_000 + seconds * 1000) }

    @Test mutating func pushAndPopWithReferrersAndDurations() {
        #expect(tracker.appeared(home, now: at(0)) == [.enter(home, referrer: nil)])
        #expect(tracker.disappeared(instanceID: 1, now: at(5)) == [.leave(home, durationMilliseconds: 5000)])
        #expect(tracker.appeared(product, now: at(5)) == [.enter(product, referrer: "Home")])
        #expect(
            tracker.disappeared(instanceID: 2, now: at(12)) == [.leave(product, durationMilliseconds: 7000)])
        #expect(tracker.appeared(home, now: at(12)) == [.enter(home, referrer: "Product")])
        #expect(tracker.currentPage == home)
    }

    @Test mutating func appearBeforeTheOldPageDisappears() {
        _ = tracker.appeared(home, now: at(0))
        #expect(
            tracker.appeared(product, now: at(3)) == [
                .leave(home, durationMilliseconds: 3000), .enter(product, referrer: "Home"),
            ])
        #expect(tracker.disappeared(instanceID: 1, now: at(3)) == [], "home already left")
        #expect(
            tracker.disappeared(instanceID: 2, now: at(4)) == [.leave(product, durationMilliseconds: 1000)])
        #expect(tracker.settle(now: at(4)) == [], "home disappeared, so nothing returns")
    }

    /// Start a swipe back on Product (Home starts to appear), then let go: Home disappears without
    /// having appeared, Product appears again without having disappeared.
    @Test mutating func aCancelledSwipeBackCountsNothing() {
        _ = tracker.appeared(home, now: at(0))
        _ = tracker.disappeared(instanceID: 1, now: at(1))
        _ = tracker.appeared(product, now: at(1))
        #expect(tracker.disappeared(instanceID: 1, now: at(8)) == [])
        #expect(tracker.appeared(product, now: at(8)) == [])
        #expect(
            tracker.disappeared(instanceID: 2, now: at(10)) == [.leave(product, durationMilliseconds: 9000)])
    }

    @Test mutating func aSheetOverAPageReturnsToItWhenDismissed() {
        _ = tracker.appeared(home, now: at(0))
        #expect(
            tracker.appeared(sheet, now: at(2)) == [
                .leave(home, durationMilliseconds: 2000), .enter(sheet, referrer: "Home"),
            ])
        #expect(tracker.disappeared(instanceID: 3, now: at(5)) == [.leave(sheet, durationMilliseconds: 3000)])
        #expect(tracker.currentPage == home)
        #expect(tracker.settle(now: at(6)) == [.enter(home, referrer: "Share")])
        #expect(
            tracker.disappeared(instanceID: 1, now: at(9)) == [.leave(home, durationMilliseconds: 4000)],
            "timed from the dismissal")
    }

    @Test mutating func aPushInTheSameTransitionWinsOverTheCoveredPage() {
        _ = tracker.appeared(home, now: at(0))
        _ = tracker.appeared(sheet, now: at(1))
        _ = tracker.disappeared(instanceID: 3, now: at(2))
        #expect(tracker.appeared(product, now: at(2)) == [.enter(product, referrer: "Share")])
        #expect(
            tracker.disappeared(instanceID: 2, now: at(4)) == [.leave(product, durationMilliseconds: 2000)])
        #expect(tracker.settle(now: at(4)) == [.enter(home, referrer: "Product")], "home is still under")
    }

    @Test mutating func theCoveredPageAppearingAgainIsOneEnter() {
        _ = tracker.appeared(home, now: at(0))
        _ = tracker.appeared(sheet, now: at(1))
        _ = tracker.disappeared(instanceID: 3, now: at(2))
        #expect(tracker.appeared(home, now: at(2)) == [.enter(home, referrer: "Share")])
        #expect(tracker.appeared(home, now: at(3)) == [])
    }

    @Test mutating func backgroundLeavesAndForegroundRestartsTheTimerWithoutASecondEnter() {
        _ = tracker.appeared(home, now: at(0))
        #expect(tracker.enteredBackground(now: at(10)) == [.leave(home, durationMilliseconds: 10_000)])
        #expect(tracker.enteredBackground(now: at(11)) == [])
        #expect(tracker.enteredForeground(now: at(100)) == [])
        #expect(tracker.enteredForeground(now: at(101)) == [])
        #expect(
            tracker.disappeared(instanceID: 1, now: at(105)) == [.leave(home, durationMilliseconds: 5000)])
    }

    @Test mutating func aPageLeftWhileInTheBackgroundIsNotLeftTwice() {
        _ = tracker.appeared(home, now: at(0))
        _ = tracker.enteredBackground(now: at(3))
        #expect(tracker.disappeared(instanceID: 1, now: at(4)) == [])
        #expect(tracker.appeared(product, now: at(5)) == [.enter(product, referrer: "Home")])
    }

    @Test mutating func backgroundWhileReturningToACoveredPageEntersThenLeavesIt() {
        _ = tracker.appeared(home, now: at(0))
        _ = tracker.appeared(sheet, now: at(1))
        _ = tracker.disappeared(instanceID: 3, now: at(2))
        #expect(
            tracker.enteredBackground(now: at(7)) == [
                .enter(home, referrer: "Share"), .leave(home, durationMilliseconds: 5000),
            ])
    }

    @Test mutating func aClockGoingBackwardsGivesZeroNotNegative() {
        _ = tracker.appeared(home, now: at(10))
        #expect(tracker.disappeared(instanceID: 1, now: at(5)) == [.leave(home, durationMilliseconds: 0)])
    }

    /// Random callback sequences keep the invariants: every leave closes the page that is timed,
    /// no page is entered while another is timed, durations are never negative. A page left by
    /// going to the background is timed again, without an enter, when the app comes back.
    @Test func randomCallbacksKeepEntersAndLeavesPaired() {
        var generator = SystemRandomNumberGenerator()
        let pages = (1...4).map {
            PageViewTracker.Page(instanceID: UInt64($0), name: "P\($0)", screenClass: "C\($0)")
        }
        for _ in 0..<300 {
            var tracker = PageViewTracker()
            var now = at(0)
            var timed: PageViewTracker.Page?
            var suspended: PageViewTracker.Page?
            var log: [String] = []
            for _ in 0..<40 {
                now = now.adding(milliseconds: Int64.random(in: 0...3000, using: &generator))
                let page = pages.randomElement(using: &generator)!
                var actions: [PageViewTracker.Action]
                var resumes = false
                var backgrounded = false
                switch Int.random(in: 0..<6, using: &generator) {
                case 0, 1:
                    actions = tracker.appeared(page, now: now)
                    resumes = actions.isEmpty && suspended?.instanceID == page.instanceID
                case 2, 3:
                    actions = tracker.disappeared(instanceID: page.instanceID, now: now)
                    if actions.isEmpty, suspended?.instanceID == page.instanceID { suspended = nil }
                case 4: actions = tracker.settle(now: now)
                default:
                    if Bool.random(using: &generator) {
                        actions = tracker.enteredBackground(now: now)
                        backgrounded = true
                    } else {
                        actions = tracker.enteredForeground(now: now)
                        resumes = suspended != nil
                    }
                }
                log.append("\(page.name) -> \(actions)")
                if resumes {
                    timed = suspended
                    suspended = nil
                }
                for action in actions {
                    switch action {
                    case .enter(let entered, _):
                        #expect(
                            timed == nil,
                            "entered \(entered.name) while \(timed?.name ?? "") was timed\n\(log.joined(separator: "\n"))"
                        )
                        timed = entered
                        suspended = nil
                    case .leave(let left, let duration):
                        #expect(timed == left)
                        #expect(duration >= 0)
                        timed = nil
                        suspended = backgrounded ? left : nil
                    }
                }
            }
        }
    }
}

/// Which controllers are pages.
struct PagePolicyTests {
    let configured: TrackingPlan

    init() throws {
        configured = try CaptureFixtures.plan()
    }

    func page(_ type: String, parent: String? = nil, plan: TrackingPlan, ignored: Set<String> = [])
        -> PageViewTracker.Page?
    {
        PagePolicy(plan: plan, ignoredTypes: ignored).page(
            for: PageDescription(controllerType: type, instanceID: 1, title: "T", parentType: parent))
    }

    @Test func configuredModeCountsOnlyNamedPagesWithTheirNamesAndProperties() {
        let home = page("HomeViewController", plan: configured)
        #expect(home?.name == "Home")
        #expect(home?.properties == ["tab": "home"])
        #expect(home?.screenClass == "HomeViewController")
        #expect(page("SettingsViewController", plan: configured) == nil)
    }

    @Test func allModeCountsEveryControllerButContainersAndIgnoredOnes() {
        var plan = configured
        plan.pageMode = .all
        #expect(page("SettingsViewController", plan: plan)?.name == "SettingsViewController")
        #expect(page("HomeViewController", plan: plan)?.name == "Home")
        for container in [
            "UINavigationController", "UITabBarController", "UIPageViewController", "UIInputViewController",
            "UIAlertController", "_UIPrivateController", "UISplitViewController",
        ] {
            #expect(page(container, plan: plan) == nil, "\(container)")
        }
        #expect(page("DebugMenuViewController", plan: plan) == nil, "the plan's ignore list")
        #expect(
            page("SettingsViewController", plan: plan, ignored: ["SettingsViewController"]) == nil,
            "the app's ignore list")
    }

    @Test func childControllersCountOnlyWhenNamed() {
        var plan = configured
        plan.pageMode = .all
        #expect(page("SettingsViewController", parent: "UINavigationController", plan: plan) != nil)
        #expect(page("BannerChildController", parent: "HomeViewController", plan: plan) == nil)
        plan.pages["BannerChildController"] = PageRule(name: "Banner")
        #expect(page("BannerChildController", parent: "HomeViewController", plan: plan)?.name == "Banner")
        #expect(
            page("HomeViewController", parent: "ContainerViewController", plan: configured)?.name == "Home")
    }

    @Test func anIgnoredControllerIsNoPage() {
        let description = PageDescription(
            controllerType: "HomeViewController", instanceID: 1, ignoresTracking: true)
        #expect(PagePolicy(plan: configured).page(for: description) == nil)
    }

    @Test func hooksFollowThePageMode() {
        let hooks = CaptureHooks(plan: configured)
        #expect(hooks.pageTypes == ["HomeViewController", "ProductViewController", "CartViewController"])
        #expect(
            hooks.methods == [
                CaptureHooks.Method(target: "ArticleViewController", method: "goShare"),
                CaptureHooks.Method(target: "ProductViewController", method: "goShare"),
            ])
        var all = configured
        all.pageMode = .all
        #expect(CaptureHooks(plan: all).pageTypes == nil)
    }
}
