#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// Stands between a table or collection view and the delegate the app set, to see cell
    /// selection (also when the app's delegate does not implement `didSelect`) and the scroll
    /// callbacks list exposure needs.
    ///
    /// **Why a proxy.** Selection reaches only the delegate, through private UIKit paths, and the
    /// app's delegate class may not implement `didSelect` at all. Hooking the delegate's class
    /// would change app classes (and every other object of them); a proxy changes nothing but
    /// this list's `delegate` slot, with public API only: ``ListViewHooks`` hooks the `delegate`
    /// setter of `UITableView` and `UICollectionView` and passes this proxy instead, with the
    /// app's object as ``forwardTo``; the `delegate` getter returns the app's object again, so
    /// `tableView.delegate === self` still holds.
    ///
    /// **How it forwards.** The proxy implements only what it observes (selection and the
    /// scroll callbacks) and calls the app's delegate from there; every other method goes
    /// straight to the app's delegate through `forwardingTarget(for:)` (no `NSInvocation`), and
    /// `responds(to:)` answers for both, before UIKit caches its answers at assignment.
    ///
    /// **Cost.** One small object per list, held by the list; one extra message per scroll
    /// callback and per forwarded delegate method.
    ///
    /// **Other proxies (RxCocoa, other SDKs).** Whatever the app assigns, another library's proxy
    /// included, is wrapped and forwarded to, never unwrapped or replaced; a second assignment
    /// reuses this list's proxy instead of wrapping it again. Because the getter answers with the
    /// object that was assigned, a library that checks `delegate === itsProxy` after assigning
    /// sees its own proxy and does not re-install itself over and over.
    @MainActor
    final class ListDelegateProxy: NSObject, UITableViewDelegate, UICollectionViewDelegate {
        /// The delegate the app (or another library) assigned.
        nonisolated(unsafe) weak var forwardTo: (any NSObjectProtocol)?

        /// The proxy of `list`, when it has one.
        static func proxy(of list: UIScrollView) -> ListDelegateProxy? {
            AssociationKey.value(of: list, ListDelegateProxy.self, as: ListDelegateProxy.self)
        }

        /// What to pass to the original `delegate` setter of `list` when the app assigns
        /// `delegate`: this list's proxy forwarding to it, or `delegate` itself (`nil`, a proxy
        /// of ours, or nothing to observe).
        static func replacement(for delegate: AnyObject?, of list: UIScrollView) -> AnyObject? {
            guard let delegate = delegate as? (any NSObjectProtocol) else {
                proxy(of: list)?.forwardTo = nil
                return delegate
            }
            if delegate is ListDelegateProxy { return delegate }
            guard let adapter = UIKitCapture.installed,
                adapter.configuration.hooksCells || adapter.configuration.feedsListExposure
            else { return delegate }
            let proxy = self.proxy(of: list) ?? ListDelegateProxy()
            AssociationKey.set(proxy, on: list, ListDelegateProxy.self)
            proxy.forwardTo = delegate
            return proxy
        }

        nonisolated override func responds(to aSelector: Selector!) -> Bool {
            super.responds(to: aSelector) || forwardTo?.responds(to: aSelector) == true
        }

        nonisolated override func forwardingTarget(for aSelector: Selector!) -> Any? {
            if let forwardTo, forwardTo.responds(to: aSelector) { return forwardTo }
            return super.forwardingTarget(for: aSelector)
        }

        // MARK: Selection

        func tableView(_ tableView: UITableView, didSelectRowAt indexPath: IndexPath) {
            ListSelection.report(indexPath, in: tableView, selector: "tableView:didSelectRowAtIndexPath:")
            (forwardTo as? any UITableViewDelegate)?.tableView?(tableView, didSelectRowAt: indexPath)
        }

        func collectionView(_ collectionView: UICollectionView, didSelectItemAt indexPath: IndexPath) {
            ListSelection.report(
                indexPath, in: collectionView, selector: "collectionView:didSelectItemAtIndexPath:")
            (forwardTo as? any UICollectionViewDelegate)?.collectionView?(
                collectionView, didSelectItemAt: indexPath)
        }

        // MARK: Scrolling

        func scrollViewDidScroll(_ scrollView: UIScrollView) {
            ListExposureDriver.existing(for: scrollView)?.handle(.didScroll(offset: scrollView.contentOffset))
            scrollDelegate?.scrollViewDidScroll?(scrollView)
        }

        func scrollViewWillBeginDragging(_ scrollView: UIScrollView) {
            ListExposureDriver.existing(for: scrollView)?.handle(.willBeginDragging)
            scrollDelegate?.scrollViewWillBeginDragging?(scrollView)
        }

        func scrollViewDidEndDragging(_ scrollView: UIScrollView, willDecelerate decelerate: Bool) {
            ListExposureDriver.existing(for: scrollView)?.handle(.didEndDragging(willDecelerate: decelerate))
            scrollDelegate?.scrollViewDidEndDragging?(scrollView, willDecelerate: decelerate)
        }

        func scrollViewWillBeginDecelerating(_ scrollView: UIScrollView) {
            ListExposureDriver.existing(for: scrollView)?.handle(.willBeginDecelerating)
            scrollDelegate?.scrollViewWillBeginDecelerating?(scrollView)
        }

        func scrollViewDidEndDecelerating(_ scrollView: UIScrollView) {
            ListExposureDriver.existing(for: scrollView)?.handle(.didEndDecelerating)
            scrollDelegate?.scrollViewDidEndDecelerating?(scrollView)
        }

        func scrollViewDidEndScrollingAnimation(_ scrollView: UIScrollView) {
            ListExposureDriver.existing(for: scrollView)?.handle(.didEndScrollingAnimation)
            scrollDelegate?.scrollViewDidEndScrollingAnimation?(scrollView)
        }

        func scrollViewDidScrollToTop(_ scrollView: UIScrollView) {
            ListExposureDriver.existing(for: scrollView)?.handle(.didScrollToTop)
            scrollDelegate?.scrollViewDidScrollToTop?(scrollView)
        }

        private var scrollDelegate: (any UIScrollViewDelegate)? { forwardTo as? any UIScrollViewDelegate }
    }

    /// Reports a cell selection the proxy saw.
    @MainActor
    enum ListSelection {
        static func report(_ indexPath: IndexPath, in list: UIScrollView, selector: String) {
            guard let adapter = UIKitCapture.installed, adapter.configuration.hooksCells else { return }
            let listType = ResponderChainDescriber.typeName(of: list)
            let cell: UIView?
            if let table = list as? UITableView {
                cell = table.cellForRow(at: indexPath)
            } else {
                cell = (list as? UICollectionView)?.cellForItem(at: indexPath)
            }
            var element: ElementDescription
            if let cell {
                element = ResponderChainDescriber.element(for: cell)
            } else {
                let placeholder = ResponderDescription(
                    list is UITableView ? "UITableViewCell" : "UICollectionViewCell",
                    cellIndexPath: CellIndexPath(section: indexPath.section, row: indexPath.item),
                    itemID: list.footprint.listItems?(indexPath)?.id)
                element = ElementDescription(
                    chain: [placeholder] + ResponderChainDescriber.chain(from: list), kind: .cell)
            }
            element.kind = .cell
            adapter.capture.cellSelected(
                element, action: ActionDescription(selector: selector, senderType: listType))
        }
    }
#endif
