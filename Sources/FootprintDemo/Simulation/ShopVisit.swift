import Footprint
import FootprintSimulation
import Foundation

/// One virtual user's day in the sample shop: launches on Home, browses categories, scrolls the
/// product feed in their reading style, opens products, adds to the cart, checks out, and goes
/// to the background. Drives ``AutoCapture`` and a ``ListExposureRecorder`` through the seam the
/// UIKit adapter uses, on the shared simulated clock, and tallies what it asked for.
final class ShopVisit {
    /// The order the checkout page's `placeOrder` reads (`target.order.total`).
    struct Order {
        var total: Double
        var itemCount: Int
    }

    /// What the checkout controller holds, as the plan's key paths see it.
    struct CheckoutController {
        var order: Order
    }

    private let userIndex: Int
    private let appVersion: String
    private let capture: AutoCapture
    private let clock: SimulatedClock
    private let sink: any CaptureSink
    private var generator: SeededRandom
    private(set) var tally = DemoTally()
    /// Whether the user signed in during this visit.
    private(set) var signedIn: Bool
    private let signsIn: Bool
    private let signIn: (String) -> Void
    private let userId: String
    private let readingStyle: ReadingStyle

    private var stack: [(screen: ShopScreen, instanceID: UInt64)] = []
    private var nextInstanceID: UInt64 = 1
    private var feed: ListExposureRecorder?
    private var feedOffset: CGPoint
    private var cart: [Product] = []

    /// Prepares a visit.
    /// - Parameters:
    ///   - user: who visits.
    ///   - day: the day number (decides the app version).
    ///   - capture: the automatic-capture core of the user's tracker.
    ///   - sink: where list exposure records (the tracker, through the counting sink).
    ///   - clock: the shared simulated clock.
    ///   - generator: the user's random source for this day.
    ///   - signIn: identifies the user with the tracker.
    init(
        user: VirtualUser, day: Int, capture: AutoCapture, sink: any CaptureSink, clock: SimulatedClock,
        generator: SeededRandom, signIn: @escaping (String) -> Void
    ) {
        userIndex = user.index
        appVersion = user.appVersion(onDay: day)
        userId = user.userId
        signedIn = user.isSignedIn
        signsIn = user.signsInAtCheckout
        readingStyle = user.readingStyle
        self.capture = capture
        self.sink = sink
        self.clock = clock
        self.generator = generator
        self.signIn = signIn
        feedOffset = CGPoint(x: 0, y: -ShopInterface.feedViewport.insets.top)
    }

    /// Plays the visit, from launch to background.
    func play() {
        tally.usersPerDay[clock.now().dayString, default: []].insert(userIndex)
        push(.home)
        think(2_000...8_000)
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            browseFromHome()
            think(1_000...5_000)
        }
        if stack.last?.screen == .productList { feed?.handle(.appDidEnterBackground) }
        capture.appEnteredBackground()
        tally.usersPerDay[clock.now().dayString, default: []].insert(userIndex)
    }

    // MARK: The user's path

    private func browseFromHome() {
        if generator.chance(0.3) {
            tap(ShopInterface.dealsBanner, action: ShopInterface.buttonAction, named: "deals_banner")
        } else {
            let tile = Int.random(in: 0..<ShopCatalog.categories.count, using: &generator)
            tap(
                ShopInterface.categoryTile(tile), action: ShopInterface.tileAction, named: nil,
                itemId: "category-" + ShopCatalog.categories[tile].lowercased())
        }
        push(.productList)
        scrollFeed(steps: Int.random(in: 0...8, using: &generator))
        for _ in 0..<4 {
            guard generator.chance(0.65) else { break }
            openVisibleProduct()
            if cart.isEmpty || !generator.chance(0.35) {
                pop()
                scrollFeed(steps: Int.random(in: 1...4, using: &generator))
                continue
            }
            tap(ShopInterface.cartButton, action: ShopInterface.buttonAction, named: nil)
            push(.cart)
            think(3_000...15_000)
            if generator.chance(0.6) { checkOut() }
            popToHome()
            return
        }
        popToHome()
    }

    private func openVisibleProduct() {
        let row = visibleRow()
        let product = ShopCatalog.products[row]
        think(300...1_500)
        tap(
            ShopInterface.productCell(row), action: ShopInterface.cellAction, named: "select_product",
            itemId: product.id)
        push(.productDetail)
        think(3_000...20_000)
        if generator.chance(0.5) {
            tap(
                ShopInterface.addToCartButton(appVersion: appVersion), action: ShopInterface.buttonAction,
                named: "add_to_cart")
            cart.append(product)
            think(500...2_000)
        }
    }

    private func checkOut() {
        tap(ShopInterface.checkoutButton, action: ShopInterface.buttonAction, named: "begin_checkout")
        push(.checkout)
        if signsIn, !signedIn {
            think(5_000...20_000)
            signIn(userId)
            tally.signIns += 1
            signedIn = true
        }
        think(5_000...30_000)
        guard generator.chance(0.8) else { return }
        tap(ShopInterface.placeOrderButton, action: ShopInterface.buttonAction, named: nil)
        let order = Order(total: cart.reduce(0) { $0 + $1.price }, itemCount: cart.count)
        capture.methodCalled(
            targetType: ShopScreen.checkout.controllerType, method: "placeOrder",
            values: MirrorKeyPathSource(roots: ["target": CheckoutController(order: order)]))
        tally.purchases += 1
        cart = []
        think(2_000...6_000)
    }

    // MARK: Navigation (what UIKit's navigation controller calls)

    private func push(_ screen: ShopScreen) {
        if let top = stack.last { disappear(top) }
        let entry = (screen: screen, instanceID: nextInstanceID)
        nextInstanceID += 1
        stack.append(entry)
        appear(entry)
    }

    private func pop() {
        guard stack.count > 1, let top = stack.popLast() else { return }
        disappear(top)
        if let revealed = stack.last { appear(revealed) }
    }

    private func popToHome() {
        guard stack.count > 1, let top = stack.last else { return }
        disappear(top)
        stack.removeSubrange(1...)
        feed = nil
        appear(stack[0])
    }

    private func appear(_ entry: (screen: ShopScreen, instanceID: UInt64)) {
        capture.pageAppeared(
            PageDescription(
                controllerType: entry.screen.controllerType, instanceID: entry.instanceID,
                parentType: "UINavigationController"))
        tally.viewed(entry.screen, by: userIndex)
        guard entry.screen == .productList else { return }
        if feed == nil {
            let recorder = ListExposureRecorder(
                pageName: ShopScreen.productList.pageName, listId: "feed", clock: clock, sink: sink)
            feedOffset = CGPoint(x: 0, y: -ShopInterface.feedViewport.insets.top)
            recorder.handle(.dataReloaded(items: ShopInterface.feedItems))
            feed = recorder
        }
        feed?.handle(.appeared(viewport: ShopInterface.feedViewport, offset: feedOffset))
    }

    private func disappear(_ entry: (screen: ShopScreen, instanceID: UInt64)) {
        if entry.screen == .productList { feed?.handle(.disappeared) }
        capture.pageDisappeared(
            PageDescription(
                controllerType: entry.screen.controllerType, instanceID: entry.instanceID,
                parentType: "UINavigationController"))
    }

    // MARK: Actions

    private func tap(
        _ element: ElementDescription, action: ActionDescription, named eventName: String?,
        itemId: String? = nil
    ) {
        if element.kind == .cell {
            capture.cellSelected(element, action: action)
        } else {
            capture.controlActed(element, action: action)
        }
        tally.clicked(named: eventName, itemId: itemId)
    }

    /// Scrolls the feed with `steps` gestures of the user's reading style, delivering every
    /// callback (and the recorder's timer ticks) at its simulated time.
    private func scrollFeed(steps: Int) {
        guard let feed else { return }
        var simulator = ScrollSimulator(
            axis: .vertical, viewport: ShopInterface.feedViewport,
            contentLength: ShopInterface.feedContentLength,
            offset: feedOffset, time: clock.now())
        let gestures = readingStyle.gestures(
            steps: steps, pageLength: simulator.pageLength, using: &generator)
        for timed in simulator.perform(gestures) {
            while let deadline = feed.nextDeadline, deadline <= timed.time {
                clock.advance(to: deadline)
                feed.handle(.tick)
            }
            clock.advance(to: timed.time)
            feed.handle(timed.callback)
        }
        clock.advance(to: simulator.time)
        feedOffset = simulator.offset
    }

    /// A row fully visible at the feed's offset (the user taps what they see), more likely the
    /// more appealing its product is.
    private func visibleRow() -> Int {
        let visible = ShopInterface.feedViewport.visibleRect(at: feedOffset)
        let rows = ShopInterface.feedItems.filter { $0.visibleRatio(in: visible) >= 1 }.map(\.indexPath.row)
        let total = rows.reduce(0) { $0 + ShopCatalog.products[$1].appeal }
        guard total > 0 else { return rows.first ?? 0 }
        var pick = Int.random(in: 0..<total, using: &generator)
        for row in rows {
            pick -= ShopCatalog.products[row].appeal
            if pick < 0 { return row }
        }
        return rows[rows.count - 1]
    }

    /// The user reads or hesitates for a while.
    private func think(_ milliseconds: ClosedRange<Int64>) {
        clock.advance(milliseconds: Int64.random(in: milliseconds, using: &generator))
    }
}
