#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// The hooks on `UITableView` and `UICollectionView` (never on `UIScrollView` itself):
    /// - the `delegate` setter passes a ``ListDelegateProxy`` (selection, scroll callbacks) for
    ///   the app's lists and the getter returns what the app assigned;
    /// - `didMoveToWindow` gives a list whose delegate was set before install its proxy, and
    ///   with `reloadData` and `layoutSubviews` tells the list's ``ListExposureDriver`` (lists
    ///   whose exposure is measured only) when the list comes and goes, when its data changes
    ///   and when its layout is ready to read. Other lists run the original and a lookup.
    ///
    /// The blocks are not main-actor isolated (see ``MethodHooks/onMainThread(_:_:)``): a call off
    /// the main thread runs the original and nothing else.
    @MainActor
    enum ListViewHooks {
        static func install() {
            for cls in [UITableView.self, UICollectionView.self] as [UIScrollView.Type] {
                hookDelegateAccessors(of: cls)
                hookLayoutEvents(of: cls)
            }
        }

        private static func hookDelegateAccessors(of cls: UIScrollView.Type) {
            _ = MethodHooks.hook(#selector(setter: UIScrollView.delegate), of: cls, makeBlock: setterBlock)
            _ = MethodHooks.hook(#selector(getter: UIScrollView.delegate), of: cls, makeBlock: getterBlock)
        }

        /// The `delegate` setter: the proxy for the app's lists (on the main thread), the object
        /// itself otherwise.
        private nonisolated static func setterBlock(_ original: OriginalImplementation) -> Any {
            typealias Setter = @convention(c) (UIScrollView, Selector, AnyObject?) -> Void
            let block: @convention(block) (UIScrollView, AnyObject?) -> Void = { list, delegate in
                let set = { (replacement: AnyObject?) in
                    unsafeBitCast(original.implementation, to: Setter.self)(
                        list, original.selector, replacement)
                }
                guard Thread.isMainThread else { return set(delegate) }
                MethodHooks.onMainThread((list, delegate)) { list, delegate in
                    ListDelegateProxy.assign(delegate, to: list) { replacement in
                        unsafeBitCast(original.implementation, to: Setter.self)(
                            list, original.selector, replacement)
                    }
                }
            }
            return block
        }

        /// The `delegate` getter: the app's object, never the proxy. Touches no main-actor state.
        private nonisolated static func getterBlock(_ original: OriginalImplementation) -> Any {
            typealias Getter = @convention(c) (UIScrollView, Selector) -> AnyObject?
            let block: @convention(block) (UIScrollView) -> AnyObject? = { list in
                let current = unsafeBitCast(original.implementation, to: Getter.self)(list, original.selector)
                if let proxy = current as? ListDelegateProxy { return proxy.forwardTo }
                return current
            }
            return block
        }

        private static func hookLayoutEvents(of cls: UIScrollView.Type) {
            let events: [(Selector, @MainActor (UIScrollView) -> Void)] = [
                (
                    #selector(UIView.didMoveToWindow),
                    { list in
                        if list.window != nil { ListDelegateProxy.adoptDelegate(of: list) }
                        ListExposureDriver.listMovedToWindow(list)
                    }
                ),
                (
                    NSSelectorFromString("reloadData"),
                    { ListExposureDriver.existing(for: $0)?.dataReloaded() }
                ),
                (#selector(UIView.layoutSubviews), { ListExposureDriver.existing(for: $0)?.layoutPassed() }),
            ]
            for (selector, notify) in events {
                _ = MethodHooks.hook(selector, of: cls) { original in
                    notifyingBlock(original, notify: notify)
                }
            }
        }

        /// A method without arguments: the original, then `notify` (on the main thread only).
        private nonisolated static func notifyingBlock(
            _ original: OriginalImplementation, notify: @escaping @MainActor (UIScrollView) -> Void
        ) -> Any {
            typealias NoArguments = @convention(c) (UIScrollView, Selector) -> Void
            let block: @convention(block) (UIScrollView) -> Void = { list in
                unsafeBitCast(original.implementation, to: NoArguments.self)(list, original.selector)
                MethodHooks.onMainThread(list, notify)
            }
            return block
        }
    }
#endif
