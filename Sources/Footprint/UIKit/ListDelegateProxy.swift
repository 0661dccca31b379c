#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// Stands between one of the app's table or collection views and the delegate the app set, to
    /// see cell selection (also when the app's delegate does not implement `didSelect`) and the
    /// scroll callbacks list exposure needs.
    ///
    /// **Why a proxy.** Selection reaches only the delegate, through private UIKit paths, and the
    /// app's delegate class may not implement `didSelect` at all. Hooking the delegate's class
    /// would change app classes (and every other object of them); a proxy changes nothing but
    /// this list's `delegate` slot, with public API only: ``ListViewHooks`` hooks the `delegate`
    /// setter of `UITableView` and `UICollectionView` and passes this proxy instead, with the
    /// app's object as ``forwardTo``; the `delegate` getter returns the app's object again, so
    /// `tableView.delegate === self` still holds.
    ///
    /// **Which lists.** Only the app's (``ListRule/wrapsDelegate(list:delegate:appCode:)``):
    /// picker wheels, keyboard and menu lists, SwiftUI's lists and any list whose delegate is a
    /// system object keep their delegate untouched. A list whose delegate was set before
    /// Footprint was installed gets the proxy when it next enters a window (or at install, when
    /// it is on screen then).
    ///
    /// **How it forwards.** The proxy implements only what it observes (selection and the
    /// scroll callbacks) and calls the app's delegate from there when it `responds(to:)` the
    /// selector (so delegates that implement a method without declaring the protocol get it
    /// too); every other method goes straight to the app's delegate through
    /// `forwardingTarget(for:)` (no `NSInvocation`), and `responds(to:)` answers for both.
    ///
    /// **UIKit caches `respondsToSelector:`** when a delegate is set, and only then. So whenever
    /// the object the proxy forwards to changes, the real setter is given `nil` first and then
    /// the proxy, and UIKit asks again. When the app's delegate is deallocated (UIKit would
    /// have seen its weak `delegate` become `nil`), the list's delegate is set to `nil`; a call
    /// that still arrives for a method UIKit cached is swallowed (``DelegateCallSink``) instead
    /// of crashing on an unrecognized selector.
    ///
    /// **Other proxies (RxCocoa, other SDKs).** Whatever the app assigns, another library's proxy
    /// included, is wrapped and forwarded to, never unwrapped or replaced; a second assignment
    /// reuses this list's proxy instead of wrapping it again. Because the getter answers with the
    /// object that was assigned, a library that checks `delegate === itsProxy` after assigning
    /// sees its own proxy and does not re-install itself over and over.
    @MainActor
    final class ListDelegateProxy: NSObject, UITableViewDelegate, UICollectionViewDelegate {
        /// The delegate the app (or another library) assigned, held weakly as UIKit holds it.
        nonisolated(unsafe) private(set) weak var forwardTo: (any NSObjectProtocol)?

        /// The proxy of `list`, when it has one.
        static func proxy(of list: UIScrollView) -> ListDelegateProxy? {
            AssociationKey.value(of: list, ListDelegateProxy.self, as: ListDelegateProxy.self)
        }

        /// What the hooked `delegate` setter of `list` does with `delegate`: passes this list's
        /// proxy forwarding to it (setting `nil` first when the proxy forwarded to another
        /// object, so that UIKit asks `respondsToSelector:` again), or `delegate` itself (`nil`,
        /// a proxy of ours, a system list or delegate, or nothing to observe).
        /// - Parameter setter: the original setter.
        ///
        /// A delegate passed through unwrapped detaches the list's proxy: the proxy no longer sits
        /// in the list's slot, so nothing it watched may touch the list's delegate again.
        static func assign(_ delegate: AnyObject?, to list: UIScrollView, setter: (AnyObject?) -> Void) {
            guard let delegate = wrappable(delegate, of: list) else {
                if !(delegate is ListDelegateProxy), let proxy = proxy(of: list) {
                    AssociationKey.set(nil, on: list, ListDelegateProxy.self)
                    proxy.stopForwarding()
                }
                setter(delegate)
                return
            }
            let proxy = self.proxy(of: list) ?? ListDelegateProxy()
            AssociationKey.set(proxy, on: list, ListDelegateProxy.self)
            if proxy.forwardTo !== delegate {
                proxy.stopForwarding()
                proxy.forwardTo = delegate
                DelegateDeallocationWatcher.watch(delegate, of: list, proxy: proxy)
                setter(nil)
            }
            setter(proxy)
        }

        /// Forgets the delegate forwarded to, and takes this proxy's list off its watcher (a
        /// delegate many lists share carries one watcher, holding the lists that still forward
        /// to it).
        private func stopForwarding() {
            if let previous = forwardTo { DelegateDeallocationWatcher.stopWatching(previous, proxy: self) }
            forwardTo = nil
        }

        deinit {
            if let previous = forwardTo { DelegateDeallocationWatcher.stopWatching(previous, proxy: self) }
        }

        /// Gives a list whose delegate was set before Footprint was installed (or while it was
        /// switched off) its proxy, by assigning the same delegate again through the hooked
        /// setter. Does nothing for lists that have a proxy or no delegate.
        static func adoptDelegate(of list: UIScrollView) {
            guard proxy(of: list)?.forwardTo == nil, let delegate = list.delegate,
                wrappable(delegate, of: list) != nil
            else { return }
            list.delegate = delegate
        }

        /// `delegate` when the proxy goes between it and `list`: an app's delegate of an app's
        /// list (``ListRule``), with an installation that observes lists.
        private static func wrappable(_ delegate: AnyObject?, of list: UIScrollView) -> (
            any NSObjectProtocol
        )? {
            guard let delegate = delegate as? (any NSObjectProtocol), !(delegate is ListDelegateProxy),
                let adapter = UIKitCapture.installed,
                adapter.configuration.hooksCells || adapter.configuration.feedsListExposure,
                ListRule.wrapsDelegate(
                    list: ResponderChainDescriber.origin(of: list),
                    delegate: ResponderChainDescriber.origin(of: delegate), appCode: adapter.appCode)
            else { return nil }
            return delegate
        }

        nonisolated override func responds(to aSelector: Selector!) -> Bool {
            super.responds(to: aSelector) || forwardTo?.responds(to: aSelector) == true
        }

        nonisolated override func forwardingTarget(for aSelector: Selector!) -> Any? {
            if let forwardTo, forwardTo.responds(to: aSelector) { return forwardTo }
            // UIKit cached that the delegate implements this, and the delegate is gone (or no
            // longer implements it): swallow the call.
            return DelegateCallSink.shared
        }

        // MARK: Selection

        func tableView(_ tableView: UITableView, didSelectRowAt indexPath: IndexPath) {
            ListSelection.report(indexPath, in: tableView, selector: "tableView:didSelectRowAtIndexPath:")
            forward(
                #selector(Self.tableView(_:didSelectRowAt:)), tableView,
                indexPath as NSIndexPath)
        }

        func collectionView(_ collectionView: UICollectionView, didSelectItemAt indexPath: IndexPath) {
            ListSelection.report(
                indexPath, in: collectionView, selector: "collectionView:didSelectItemAtIndexPath:")
            forward(
                #selector(Self.collectionView(_:didSelectItemAt:)), collectionView,
                indexPath as NSIndexPath)
        }

        // MARK: Scrolling

        func scrollViewDidScroll(_ scrollView: UIScrollView) {
            ListExposureDriver.existing(for: scrollView)?.handle(.didScroll(offset: scrollView.contentOffset))
            forward(#selector(Self.scrollViewDidScroll(_:)), scrollView)
        }

        func scrollViewWillBeginDragging(_ scrollView: UIScrollView) {
            ListExposureDriver.existing(for: scrollView)?.handle(.willBeginDragging)
            forward(#selector(Self.scrollViewWillBeginDragging(_:)), scrollView)
        }

        func scrollViewDidEndDragging(_ scrollView: UIScrollView, willDecelerate decelerate: Bool) {
            ListExposureDriver.existing(for: scrollView)?.handle(.didEndDragging(willDecelerate: decelerate))
            let selector = #selector(Self.scrollViewDidEndDragging(_:willDecelerate:))
            guard let target = respondingTarget(selector), let cls = object_getClass(target) else { return }
            typealias Method = @convention(c) (AnyObject, Selector, UIScrollView, ObjCBool) -> Void
            unsafeBitCast(class_getMethodImplementation(cls, selector), to: Method.self)(
                target, selector, scrollView, ObjCBool(decelerate))
        }

        func scrollViewWillBeginDecelerating(_ scrollView: UIScrollView) {
            ListExposureDriver.existing(for: scrollView)?.handle(.willBeginDecelerating)
            forward(#selector(Self.scrollViewWillBeginDecelerating(_:)), scrollView)
        }

        func scrollViewDidEndDecelerating(_ scrollView: UIScrollView) {
            ListExposureDriver.existing(for: scrollView)?.handle(.didEndDecelerating)
            forward(#selector(Self.scrollViewDidEndDecelerating(_:)), scrollView)
        }

        func scrollViewDidEndScrollingAnimation(_ scrollView: UIScrollView) {
            ListExposureDriver.existing(for: scrollView)?.handle(.didEndScrollingAnimation)
            forward(#selector(Self.scrollViewDidEndScrollingAnimation(_:)), scrollView)
        }

        func scrollViewDidScrollToTop(_ scrollView: UIScrollView) {
            ListExposureDriver.existing(for: scrollView)?.handle(.didScrollToTop)
            forward(#selector(Self.scrollViewDidScrollToTop(_:)), scrollView)
        }

        // MARK: Forwarding

        /// The app's delegate when it is alive and responds to `selector`.
        private func respondingTarget(_ selector: Selector) -> (any NSObjectProtocol)? {
            guard let forwardTo, forwardTo.responds(to: selector) else { return nil }
            return forwardTo
        }

        /// Calls `selector` with object arguments on the app's delegate, when it responds.
        private func forward(_ selector: Selector, _ first: AnyObject, _ second: AnyObject? = nil) {
            guard let target = respondingTarget(selector) else { return }
            if let second {
                _ = target.perform(selector, with: first, with: second)
            } else {
                _ = target.perform(selector, with: first)
            }
        }
    }

    /// Watches an app delegate for the lists whose proxies forward to it: when it is
    /// deallocated, each list's delegate is set to `nil`, as UIKit's weak `delegate` would have
    /// become, so that UIKit stops calling the methods it cached. One watcher per delegate object,
    /// however many lists share it, held by the delegate (an associated object), so its `deinit`
    /// runs when the delegate goes; it keeps one weak reference per list that still forwards to
    /// the delegate, and forgets those whose list or proxy is gone whenever a list is added.
    final class DelegateDeallocationWatcher: @unchecked Sendable {
        /// The lists forwarding to the delegate; read and written under `lock` (a proxy may stop
        /// watching from its `deinit`, on any thread).
        private var references: [ListReference] = []
        private let lock = NSLock()

        private init() {}

        /// Adds `list` (forwarding through `proxy`) to `delegate`'s watcher, attaching one when
        /// the delegate has none.
        @MainActor
        static func watch(_ delegate: AnyObject, of list: UIScrollView, proxy: ListDelegateProxy) {
            let watcher = existing(on: delegate) ?? DelegateDeallocationWatcher()
            AssociationKey.set(watcher, on: delegate, DelegateDeallocationWatcher.self)
            watcher.update { references in
                references.removeAll { $0.proxy == nil || $0.list == nil || $0.proxy === proxy }
                references.append(ListReference(list: list, proxy: proxy))
            }
        }

        /// Takes `proxy`'s list off `delegate`'s watcher, and the watcher off the delegate when no
        /// list is left.
        static func stopWatching(_ delegate: AnyObject, proxy: ListDelegateProxy) {
            guard let watcher = existing(on: delegate) else { return }
            let empty = watcher.update { references in
                references.removeAll { $0.proxy == nil || $0.proxy === proxy }
                return references.isEmpty
            }
            if empty { AssociationKey.set(nil, on: delegate, DelegateDeallocationWatcher.self) }
        }

        /// The watcher on `delegate`, if any.
        static func existing(on delegate: AnyObject) -> DelegateDeallocationWatcher? {
            AssociationKey.value(
                of: delegate, DelegateDeallocationWatcher.self, as: DelegateDeallocationWatcher.self)
        }

        /// How many lists the watcher holds (some may be gone since the last change).
        var listCount: Int { update { $0.count } }

        private func update<T>(_ body: (inout [ListReference]) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&references)
        }

        deinit {
            // The lists are touched on the main thread only; a delegate deallocated elsewhere is
            // handled there soon after, and calls in between are swallowed.
            let lists = MainThreadValue(references)
            if Thread.isMainThread {
                MainActor.assumeIsolated { for list in lists.value { list.listLostItsDelegate() } }
            } else {
                DispatchQueue.main.async {
                    MainActor.assumeIsolated { for list in lists.value { list.listLostItsDelegate() } }
                }
            }
        }
    }

    /// A list and its proxy, weakly.
    private final class ListReference {
        weak var list: UIScrollView?
        weak var proxy: ListDelegateProxy?

        init(list: UIScrollView, proxy: ListDelegateProxy) {
            self.list = list
            self.proxy = proxy
        }

        /// Sets the list's delegate to `nil` when its proxy still sits there with nothing to
        /// forward to: the proxy is still the list's, and the list's delegate reads as `nil`
        /// (another object in the slot, the app's new delegate, is never cleared).
        @MainActor
        func listLostItsDelegate() {
            guard let list, let proxy, proxy.forwardTo == nil, ListDelegateProxy.proxy(of: list) === proxy,
                list.delegate == nil
            else {
                return
            }
            list.delegate = nil
        }
    }

    /// Swallows delegate calls that UIKit still sends to a list's proxy after the app's delegate
    /// was deallocated (UIKit cached that it implemented them): each selector is given, on first
    /// use, an implementation that does nothing and returns zero of the method's return type
    /// (read from the delegate protocols' type encodings). A selector of no delegate protocol is
    /// not resolved (and fails as it would have without Footprint).
    final class DelegateCallSink: NSObject, @unchecked Sendable {
        static let shared = DelegateCallSink()

        private static var protocols: [Protocol] {
            [
                "UITableViewDelegate", "UICollectionViewDelegate", "UICollectionViewDelegateFlowLayout",
                "UIScrollViewDelegate",
            ].compactMap { NSProtocolFromString($0) }
        }

        override class func resolveInstanceMethod(_ selector: Selector!) -> Bool {
            guard let selector, let types = typeEncoding(of: selector),
                let block = zeroReturningBlock(for: String(cString: types))
            else {
                return super.resolveInstanceMethod(selector)
            }
            return class_addMethod(self, selector, imp_implementationWithBlock(block), types)
        }

        private static func typeEncoding(of selector: Selector) -> UnsafePointer<CChar>? {
            for proto in protocols {
                for isRequired in [false, true] {
                    let description = protocol_getMethodDescription(proto, selector, isRequired, true)
                    if let types = description.types { return UnsafePointer(types) }
                }
            }
            return nil
        }

        /// A block taking the receiver (the other arguments are ignored) and returning zero of
        /// the return type `types` starts with.
        private static func zeroReturningBlock(for types: String) -> Any? {
            guard let first = types.unicodeScalars.first else { return nil }
            switch first {
            case "v":
                return { (_: AnyObject) in } as @convention(block) (AnyObject) -> Void
            case "@", "#", ":", "*", "^":
                return { (_: AnyObject) -> OpaquePointer? in nil }
                    as @convention(block) (AnyObject) -> OpaquePointer?
            case "c", "C", "B", "s", "S", "i", "I", "l", "L", "q", "Q":
                return { (_: AnyObject) -> Int in 0 } as @convention(block) (AnyObject) -> Int
            case "d":
                return { (_: AnyObject) -> Double in 0 } as @convention(block) (AnyObject) -> Double
            case "f":
                return { (_: AnyObject) -> Float in 0 } as @convention(block) (AnyObject) -> Float
            case "{":
                if types.hasPrefix("{CGSize") {
                    return { (_: AnyObject) -> CGSize in .zero } as @convention(block) (AnyObject) -> CGSize
                }
                if types.hasPrefix("{CGPoint") {
                    return { (_: AnyObject) -> CGPoint in .zero } as @convention(block) (AnyObject) -> CGPoint
                }
                if types.hasPrefix("{CGRect") {
                    return { (_: AnyObject) -> CGRect in .zero } as @convention(block) (AnyObject) -> CGRect
                }
                if types.hasPrefix("{UIEdgeInsets") {
                    return { (_: AnyObject) -> UIEdgeInsets in .zero }
                        as @convention(block) (AnyObject) -> UIEdgeInsets
                }
                return nil
            default:
                return nil
            }
        }
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
