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
            #expect(proxy.responds(to: #selector(UITableViewDelegate.tableView(_:heightForRowAt:))))
            #expect(
                !controller.delegateWithoutSelection.responds(
                    to: #selector(UITableViewDelegate.tableView(_:didSelectRowAt:))))

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
                for: #selector(UITableViewDelegate.tableView(_:heightForRowAt:)))
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
            let proxy = try #require(ListDelegateProxy.proxy(of: table))

            proxy.scrollViewWillBeginDragging(table)
            table.contentOffset = CGPoint(x: 0, y: 44 * 20)
            proxy.scrollViewDidScroll(table)
            table.layoutIfNeeded()
            proxy.scrollViewDidEndDragging(table, willDecelerate: false)

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
                try await Task.sleep(for: .milliseconds(100))
            }

            #expect(exposed("sku-35"))
            #expect(
                controller.delegateWithoutSelection.scrollCallbacks > 0, "the app's delegate still hears them"
            )
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
    final class ListViewController: UIViewController, UITableViewDataSource {
        let tableView = UITableView(frame: .zero, style: .plain)
        let delegateWithoutSelection = RowHeightDelegate()
        private let rows: Int

        init(rows: Int) {
            self.rows = rows
            super.init(nibName: nil, bundle: nil)
        }

        required init?(coder: NSCoder) { nil }

        override func loadView() {
            tableView.register(UITableViewCell.self, forCellReuseIdentifier: "row")
            tableView.dataSource = self
            tableView.delegate = delegateWithoutSelection
            tableView.contentInsetAdjustmentBehavior = .never
            tableView.footprint.listID = "catalogue"
            tableView.footprint.listItems = { indexPath in ListItemIdentity(id: "sku-\(indexPath.row)") }
            view = tableView
        }

        func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int { rows }

        func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
            let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            var content = cell.defaultContentConfiguration()
            content.text = "Product \(indexPath.row)"
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
#endif
