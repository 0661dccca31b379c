#if canImport(UIKit) && !os(watchOS)
    import Foundation
    import Testing
    import UIKit

    @testable import Footprint

    extension UIKitCaptureTests {
        @Test func tableDelegateWithoutDidSelectStillReportsSelection() throws {
            install()
            let controller = ListViewController(rows: 30)
            let window = showInWindow(controller)
            defer { window.isHidden = true }
            let table = controller.tableView

            // The app's object is what the app sees; the proxy sits in UIKit's slot.
            #expect(table.delegate === controller.delegateWithoutSelection)
            let proxy = try #require(ListDelegateProxy.proxy(of: table))
            #expect(proxy.responds(to: #selector(RowHeightDelegate.tableView(_:heightForRowAt:))))
            #expect(
                !controller.delegateWithoutSelection.responds(
                    to: #selector(ListDelegateProxy.tableView(_:didSelectRowAt:))))

            // What UIKit does when the user taps row 3.
            proxy.tableView(table, didSelectRowAt: IndexPath(row: 3, section: 0))

            let click = try #require(sink.tracks(CapturedEventName.elementClick).first)
            #expect(click.string("$element_position") == "0:3")
            #expect(click.string("$item_id") == "sku-3")
            #expect(
                click.string("$element_path")?.hasPrefix("#tableView:didSelectRowAtIndexPath:#UITableView#")
                    == true)
            #expect(click.string("$element_similar_path")?.contains("[0:*]") == true)
        }

        @Test func proxyForwardsWhatItDoesNotObserve() throws {
            install()
            let controller = ListViewController(rows: 5)
            _ = showInWindow(controller)
            let proxy = try #require(ListDelegateProxy.proxy(of: controller.tableView))
            let target = proxy.forwardingTarget(
                for: #selector(RowHeightDelegate.tableView(_:heightForRowAt:)))
            #expect((target as AnyObject?) === controller.delegateWithoutSelection)
            #expect(controller.tableView.rectForRow(at: IndexPath(row: 1, section: 0)).height == 44)
        }

        @Test func reassigningTheDelegateReusesTheProxy() throws {
            install()
            let controller = ListViewController(rows: 5)
            controller.loadViewIfNeeded()
            let first = try #require(ListDelegateProxy.proxy(of: controller.tableView))
            let other = RowHeightDelegate()
            controller.tableView.delegate = other
            #expect(ListDelegateProxy.proxy(of: controller.tableView) === first)
            #expect(controller.tableView.delegate === other)
            controller.tableView.delegate = nil
            #expect(controller.tableView.delegate == nil)
        }

        /// UIKit reads which methods a delegate implements only when a new delegate is set: a
        /// delegate assigned later must be asked again, not hidden behind the same proxy.
        @Test func aNewDelegateIsAskedWhatItImplements() throws {
            install()
            let controller = ListViewController(rows: 5)
            let window = showInWindow(controller)
            defer { window.isHidden = true }
            let table = controller.tableView
            table.delegate = SelectionOnlyDelegate()
            table.reloadData()
            table.layoutIfNeeded()
            #expect(table.rectForRow(at: IndexPath(row: 1, section: 0)).height != 60)

            let tall = TallRowDelegate()
            table.delegate = tall
            table.reloadData()
            table.layoutIfNeeded()
            #expect(table.delegate === tall)
            #expect(table.rectForRow(at: IndexPath(row: 1, section: 0)).height == 60)
        }

        /// The app's delegate goes away while the list lives on: the list's delegate becomes
        /// `nil` (as UIKit's weak delegate would), and a late call is swallowed, not a crash.
        @Test func aDeallocatedDelegateIsForgottenNotCrashedInto() throws {
            install()
            let controller = ListViewController(rows: 5)
            let window = showInWindow(controller)
            defer { window.isHidden = true }
            let table = controller.tableView
            weak var released: TallRowDelegate?
            autoreleasepool {
                let delegate = TallRowDelegate()
                released = delegate
                table.delegate = delegate
            }
            #expect(released == nil)
            #expect(table.delegate == nil)
            table.reloadData()
            table.layoutIfNeeded()

            // A call UIKit had cached before the delegate went.
            let proxy = try #require(ListDelegateProxy.proxy(of: table))
            let heightSelector = #selector(RowHeightDelegate.tableView(_:heightForRowAt:))
            let target = try #require(proxy.forwardingTarget(for: heightSelector) as AnyObject?)
            #expect(target === DelegateCallSink.shared)
            #expect(target.responds(to: heightSelector))
            proxy.tableView(table, didSelectRowAt: IndexPath(row: 0, section: 0))
        }

        /// A delegate passed through unwrapped (here after `uninstall()`) detaches the proxy: when
        /// the delegate the proxy forwarded to goes away, the app's new delegate stays in place.
        @Test func aDelegatePassedThroughIsNeverClearedLater() throws {
            install()
            let controller = ListViewController(rows: 5)
            let window = showInWindow(controller)
            defer { window.isHidden = true }
            let table = controller.tableView
            let live = TallRowDelegate()
            weak var released: TallRowDelegate?
            autoreleasepool {
                let previous = TallRowDelegate()
                released = previous
                table.delegate = previous
                #expect(ListDelegateProxy.proxy(of: table) != nil)
                UIKitCapture.installed?.uninstall()
                table.delegate = live
            }
            #expect(released == nil)
            #expect(ListDelegateProxy.proxy(of: table) == nil)
            #expect(table.delegate === live)
            table.reloadData()
            table.layoutIfNeeded()
            #expect(table.rectForRow(at: IndexPath(row: 1, section: 0)).height == 60)
        }

        /// The `delegate` getter answers with the app's object while UIKit cached what the proxy
        /// implements (selection, scrolling): UIKit itself scrolls, lays out and selects a row (its
        /// tap path, `_selectRowAtIndexPath:animated:scrollPosition:notifyDelegate:`) for a
        /// delegate that implements only `heightForRowAt`, and nothing is sent to it that it lacks.
        @Test func uiKitNeverSendsTheProxysSelectorsToTheGettersResult() async throws {
            install()
            let controller = ListViewController(rows: 50)
            let window = showInWindow(controller)
            defer { window.isHidden = true }
            let table = controller.tableView
            let heightOnly = HeightOnlyDelegate()
            table.delegate = heightOnly
            table.reloadData()
            table.layoutIfNeeded()
            #expect(table.delegate === heightOnly)

            table.scrollToRow(at: IndexPath(row: 30, section: 0), at: .top, animated: true)
            for _ in 0..<40 where !exposed("sku-30") {
                try await Task.sleep(nanoseconds: 100_000_000)
            }
            #expect(exposed("sku-30"))
            #expect(heightOnly.heightQueries > 0)

            let tap = NSSelectorFromString("_selectRowAtIndexPath:animated:scrollPosition:notifyDelegate:")
            try #require(table.responds(to: tap))
            typealias Select = @convention(c) (UITableView, Selector, NSIndexPath, Bool, Int, Bool) -> Void
            let select = unsafeBitCast(table.method(for: tap), to: Select.self)
            select(table, tap, IndexPath(row: 31, section: 0) as NSIndexPath, false, 0, true)
            let click = try #require(sink.tracks(CapturedEventName.elementClick).first)
            #expect(click.string("$item_id") == "sku-31")
        }

        /// A delegate shared by many lists carries one watcher, holding the lists that forward
        /// to it now, not one watcher per list that ever did.
        @Test func aDelegateSharedByManyListsCarriesOneWatcher() throws {
            install()
            let shared = TallRowDelegate()
            let tables = (0..<50).map { _ in UITableView() }
            for table in tables { table.delegate = shared }
            let watcher = try #require(DelegateDeallocationWatcher.existing(on: shared))
            #expect(watcher.listCount == 50)
            for table in tables.prefix(25) { table.delegate = TallRowDelegate() }
            #expect(DelegateDeallocationWatcher.existing(on: shared) === watcher)
            #expect(watcher.listCount == 25)
            for table in tables.suffix(25) { table.delegate = nil }
            #expect(DelegateDeallocationWatcher.existing(on: shared) == nil)
        }

        /// When a delegate several lists share is deallocated, each of them forgets it.
        @Test func everyListOfADeallocatedSharedDelegateForgetsIt() throws {
            install()
            let tables = (0..<3).map { _ in UITableView() }
            weak var released: TallRowDelegate?
            autoreleasepool {
                let shared = TallRowDelegate()
                released = shared
                for table in tables { table.delegate = shared }
                #expect(DelegateDeallocationWatcher.existing(on: shared)?.listCount == 3)
            }
            #expect(released == nil)
            for table in tables {
                #expect(table.delegate == nil)
                #expect(ListDelegateProxy.proxy(of: table) == nil)
            }
        }

        /// The hooks are not main-actor isolated: an app's off-main `reloadData()`, `delegate`
        /// assignment and `UIAlertAction` run UIKit's original (the app's own bug) and Footprint
        /// does nothing there, instead of trapping inside Footprint.
        @Test func hooksCalledOffTheMainThreadOnlyRunTheOriginal() throws {
            install()
            let table = MainThreadValue(UITableView())
            let delegate = MainThreadValue(TallRowDelegate())
            DispatchQueue.global().sync {
                table.value.perform(NSSelectorFromString("reloadData"))
                table.value.perform(NSSelectorFromString("setDelegate:"), with: delegate.value)
                typealias Factory =
                    @convention(c) (AnyClass, Selector, NSString?, Int, AnyObject?) -> AnyObject
                let selector = NSSelectorFromString("actionWithTitle:style:handler:")
                let factory = unsafeBitCast(
                    method_getImplementation(class_getClassMethod(UIAlertAction.self, selector)!),
                    to: Factory.self)
                _ = factory(UIAlertAction.self, selector, "OK", 0, nil)
            }
            #expect(ListDelegateProxy.proxy(of: table.value) == nil, "no proxy off the main thread")
            #expect(table.value.delegate === delegate.value)
        }

        /// Forwarding asks `responds(to:)`: a delegate that implements `didSelect` without
        /// declaring `UITableViewDelegate` still gets it.
        @Test func aDelegateWithoutTheProtocolStillGetsSelection() throws {
            install()
            let controller = ListViewController(rows: 5)
            let window = showInWindow(controller)
            defer { window.isHidden = true }
            let undeclared = UndeclaredSelectionDelegate()
            // Through the `delegate` setter, as Objective-C code assigns it.
            controller.tableView.setValue(undeclared, forKey: "delegate")
            let proxy = try #require(ListDelegateProxy.proxy(of: controller.tableView))
            proxy.tableView(controller.tableView, didSelectRowAt: IndexPath(row: 2, section: 0))
            #expect(undeclared.selectedRows == [2])
            #expect(sink.tracks(CapturedEventName.elementClick).count == 1)
        }

        @Test func aDelegateSetBeforeInstallGetsTheProxy() throws {
            UIKitCapture.installed?.uninstall()
            let controller = ListViewController(rows: 30)
            controller.loadViewIfNeeded()
            #expect(ListDelegateProxy.proxy(of: controller.tableView) == nil)
            install()
            let window = showInWindow(controller)
            defer { window.isHidden = true }
            controller.tableView.layoutIfNeeded()
            let proxy = try #require(ListDelegateProxy.proxy(of: controller.tableView))
            #expect(proxy.forwardTo === controller.delegateWithoutSelection)
            #expect(controller.tableView.delegate === controller.delegateWithoutSelection)
            #expect(exposed("sku-3"))
        }

        /// System lists (here a table whose delegate is a UIKit object, and the wheels inside a
        /// picker) keep their delegate untouched.
        @Test func systemListsAreNotWrapped() {
            install()
            let table = UITableView()
            let systemDelegate = UIView()
            table.setValue(systemDelegate, forKey: "delegate")
            #expect(ListDelegateProxy.proxy(of: table) == nil)
            #expect(table.delegate === systemDelegate)

            let controller = PlainViewController()
            let picker = UIPickerView()
            controller.view.addSubview(picker)
            let window = showInWindow(controller)
            defer { window.isHidden = true }
            picker.layoutIfNeeded()
            for list in lists(in: picker) {
                #expect(ListDelegateProxy.proxy(of: list) == nil, "\(type(of: list))")
                #expect(ListExposureDriver.existing(for: list) == nil)
            }
        }

        /// Exposure is measured for lists the app marked, unless the plan asks for all.
        @Test func unmarkedListsAreMeasuredOnlyWhenThePlanSaysSo() throws {
            install()
            let unmarked = ListViewController(rows: 50, marked: false)
            var window = showInWindow(unmarked)
            unmarked.tableView.layoutIfNeeded()
            #expect(sink.tracks(ListExposureEvent.exposureEventName).isEmpty)
            #expect(ListExposureDriver.existing(for: unmarked.tableView) == nil)
            let proxy = try #require(ListDelegateProxy.proxy(of: unmarked.tableView))
            proxy.tableView(unmarked.tableView, didSelectRowAt: IndexPath(row: 1, section: 0))
            #expect(sink.tracks(CapturedEventName.elementClick).count == 1, "selection is still reported")
            window.isHidden = true

            var plan = Self.plan
            plan.exposureLists = .all
            install(plan: plan)
            let measured = ListViewController(rows: 50, marked: false)
            window = showInWindow(measured)
            defer { window.isHidden = true }
            measured.tableView.layoutIfNeeded()
            #expect(!sink.tracks(ListExposureEvent.exposureEventName).isEmpty)
        }

        /// A list inside a child controller that is no page belongs to the page around it, for
        /// its exposures as for its taps.
        @Test func aListInAChildControllerNamesThePageAroundIt() throws {
            let plan = TrackingPlan(pageMode: .all, pages: ["ShopPageController": PageRule(name: "Shop")])
            install(plan: plan)
            let page = ShopPageController()
            let window = showInWindow(page)
            defer { window.isHidden = true }
            page.child.tableView.layoutIfNeeded()

            let exposure = try #require(sink.tracks(ListExposureEvent.exposureEventName).first)
            #expect(exposure.string("$page_name") == "Shop")
            let proxy = try #require(ListDelegateProxy.proxy(of: page.child.tableView))
            proxy.tableView(page.child.tableView, didSelectRowAt: IndexPath(row: 0, section: 0))
            let click = try #require(sink.tracks(CapturedEventName.elementClick).first)
            #expect(click.string("$page_name") == "Shop")
        }

        private func lists(in view: UIView) -> [UIScrollView] {
            var found: [UIScrollView] = []
            var pending = [view]
            while let next = pending.popLast() {
                if next is UITableView || next is UICollectionView, let list = next as? UIScrollView {
                    found.append(list)
                }
                pending += next.subviews
            }
            return found
        }

        @Test func visibleRowsAreExposedWhenTheListAppears() throws {
            install()
            let controller = ListViewController(rows: 50)
            let window = showInWindow(controller)
            defer { window.isHidden = true }
            controller.tableView.layoutIfNeeded()

            let exposures = sink.tracks(ListExposureEvent.exposureEventName)
            let ids = Set(exposures.compactMap { $0.string("$item_id") })
            // 480 points of 44-point rows: rows 0 to 9 are wholly visible, row 10 is cut.
            #expect(ids == Set((0...9).map { "sku-\($0)" }))
            #expect(exposures.first?.string("$list_id") == "catalogue")
        }

        @Test func scrollingToRestExposesTheNewRows() throws {
            install()
            let controller = ListViewController(rows: 50)
            let window = showInWindow(controller)
            defer { window.isHidden = true }
            let table = controller.tableView
            table.layoutIfNeeded()
            try drag(table, toRow: 20)

            let ids = Set(
                sink.tracks(ListExposureEvent.exposureEventName).compactMap { $0.string("$item_id") })
            #expect(ids.isSuperset(of: Set((20...29).map { "sku-\($0)" })))
        }

        /// End to end through UIKit: an animated scroll makes UIKit call the proxy's
        /// `scrollViewDidEndScrollingAnimation`, a rest point that exposes the rows scrolled to.
        @Test func uiKitDispatchesScrollCallbacksThroughTheProxy() async throws {
            install()
            let controller = ListViewController(rows: 50)
            let window = showInWindow(controller)
            defer { window.isHidden = true }
            let table = controller.tableView
            table.layoutIfNeeded()

            table.setContentOffset(CGPoint(x: 0, y: 44 * 30), animated: true)
            for _ in 0..<40 where !exposed("sku-35") {
                try await Task.sleep(nanoseconds: 100_000_000)
            }

            #expect(exposed("sku-35"))
            #expect(
                controller.delegateWithoutSelection.scrollCallbacks > 0, "the app's delegate still hears them"
            )
        }

        /// A diffable data source re-sorts with the same count (`apply`, no `reloadData`): the
        /// rows scrolled to are reported under the new order's ids.
        @Test func aDiffableResortIsExposedUnderTheNewIds() throws {
            install()
            let controller = DiffableListController(rows: 50)
            let window = showInWindow(controller)
            defer { window.isHidden = true }
            let table = controller.tableView
            table.layoutIfNeeded()
            #expect(exposed("sku-3"))

            controller.show((0..<50).map { ($0 + 25) % 50 })
            table.layoutIfNeeded()
            try drag(table, toRow: 20)

            #expect(exposed("sku-45"))
            #expect(!exposed("sku-20"), "row 20 now shows sku-45")
        }

        /// What UIKit tells the proxy when a finger drags `table` to `row` (44-point rows) and
        /// lifts without a fling.
        private func drag(_ table: UITableView, toRow row: Int) throws {
            let proxy = try #require(ListDelegateProxy.proxy(of: table))
            proxy.scrollViewWillBeginDragging(table)
            table.contentOffset = CGPoint(x: 0, y: 44 * CGFloat(row))
            proxy.scrollViewDidScroll(table)
            table.layoutIfNeeded()
            proxy.scrollViewDidEndDragging(table, willDecelerate: false)
        }

        private func exposed(_ id: String) -> Bool {
            sink.tracks(ListExposureEvent.exposureEventName).contains { $0.string("$item_id") == id }
        }

        @Test func exposureSwitchedOffWatchesNothing() {
            install(configuration: UIKitCaptureConfiguration(feedsListExposure: false))
            let controller = ListViewController(rows: 50)
            let window = showInWindow(controller)
            defer { window.isHidden = true }
            controller.tableView.layoutIfNeeded()
            #expect(sink.tracks(ListExposureEvent.exposureEventName).isEmpty)
        }
    }

    /// A catalogue table whose delegate only sizes rows (it has no `didSelect`).
    class ListViewController: UIViewController, UITableViewDataSource {
        let tableView = UITableView(frame: .zero, style: .plain)
        let delegateWithoutSelection = RowHeightDelegate()
        let rows: Int
        private let marked: Bool

        /// - Parameter marked: whether the table has a list id and item identities.
        init(rows: Int, marked: Bool = true) {
            self.rows = rows
            self.marked = marked
            super.init(nibName: nil, bundle: nil)
        }

        required init?(coder: NSCoder) { nil }

        override func loadView() {
            tableView.register(UITableViewCell.self, forCellReuseIdentifier: "row")
            tableView.dataSource = self
            tableView.delegate = delegateWithoutSelection
            tableView.contentInsetAdjustmentBehavior = .never
            if marked {
                tableView.footprint.listID = "catalogue"
                tableView.footprint.listItems = { indexPath in ListItemIdentity(id: "sku-\(indexPath.row)") }
            }
            view = tableView
        }

        func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int { rows }

        func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
            Self.cell(in: tableView, at: indexPath, product: indexPath.row)
        }

        /// A row showing `product`.
        static func cell(in tableView: UITableView, at indexPath: IndexPath, product: Int) -> UITableViewCell
        {
            let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            var content = cell.defaultContentConfiguration()
            content.text = "Product \(product)"
            cell.contentConfiguration = content
            return cell
        }
    }

    /// A delegate that sizes rows and counts scrolling, and has no `didSelect`.
    final class RowHeightDelegate: NSObject, UITableViewDelegate {
        private(set) var scrollCallbacks = 0

        func tableView(_ tableView: UITableView, heightForRowAt indexPath: IndexPath) -> CGFloat { 44 }

        func scrollViewDidScroll(_ scrollView: UIScrollView) {
            scrollCallbacks += 1
        }
    }

    /// The catalogue fed by a diffable data source, whose item ids come from it.
    final class DiffableListController: ListViewController {
        private var dataSource: UITableViewDiffableDataSource<Int, Int>?

        override func loadView() {
            super.loadView()
            dataSource = UITableViewDiffableDataSource(tableView: tableView) { table, indexPath, product in
                Self.cell(in: table, at: indexPath, product: product)
            }
            tableView.footprint.listItems = { [weak self] indexPath in
                self?.dataSource?.itemIdentifier(for: indexPath).map { ListItemIdentity(id: "sku-\($0)") }
            }
            show(Array(0..<rows))
        }

        /// Applies `products` in this order, without animation.
        func show(_ products: [Int]) {
            var snapshot = NSDiffableDataSourceSnapshot<Int, Int>()
            snapshot.appendSections([0])
            snapshot.appendItems(products)
            dataSource?.apply(snapshot, animatingDifferences: false)
        }
    }

    /// A delegate that implements nothing but `heightForRowAt`.
    final class HeightOnlyDelegate: NSObject, UITableViewDelegate {
        private(set) var heightQueries = 0

        func tableView(_ tableView: UITableView, heightForRowAt indexPath: IndexPath) -> CGFloat {
            heightQueries += 1
            return 44
        }
    }

    /// A delegate that only handles selection (rows keep the table's height).
    final class SelectionOnlyDelegate: NSObject, UITableViewDelegate {
        func tableView(_ tableView: UITableView, didSelectRowAt indexPath: IndexPath) {}
    }

    /// A delegate with 60-point rows.
    final class TallRowDelegate: NSObject, UITableViewDelegate {
        func tableView(_ tableView: UITableView, heightForRowAt indexPath: IndexPath) -> CGFloat { 60 }
    }

    /// Implements `didSelect` without declaring `UITableViewDelegate`.
    final class UndeclaredSelectionDelegate: NSObject {
        private(set) var selectedRows: [Int] = []

        @objc(tableView:didSelectRowAtIndexPath:)
        func didSelect(_ tableView: UITableView, at indexPath: IndexPath) {
            selectedRows.append(indexPath.row)
        }
    }

    /// A page that shows a catalogue in a child controller the plan does not name.
    final class ShopPageController: UIViewController {
        let child = ListViewController(rows: 20)

        override func viewDidLoad() {
            super.viewDidLoad()
            addChild(child)
            child.view.frame = view.bounds
            view.addSubview(child.view)
            child.didMove(toParent: self)
        }
    }
#endif
