#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// The hooks on `UITableView` and `UICollectionView` (never on `UIScrollView` itself):
    /// - the `delegate` setter passes a ``ListDelegateProxy`` (selection, scroll callbacks) for
    ///   the app's lists and the getter returns what the app assigned;
    /// - `didMoveToWindow` gives a list whose delegate was set before install its proxy, and
    ///   with `reloadData` and `layoutSubviews` tells the list's ``ListExposureDriver`` (lists
    ///   whose exposure is measured only) when the list comes and goes, when its data changes
    ///   and when its layout is ready to read. Other lists run the original and a lookup.
    @MainActor
    enum ListViewHooks {
        static func install() {
            for cls in [UITableView.self, UICollectionView.self] as [UIScrollView.Type] {
                hookDelegateAccessors(of: cls)
                hookLayoutEvents(of: cls)
            }
        }

        private static func hookDelegateAccessors(of cls: UIScrollView.Type) {
            typealias Setter = @convention(c) (UIScrollView, Selector, AnyObject?) -> Void
            _ = MethodHooks.hook(#selector(setter: UIScrollView.delegate), of: cls) { original in
                let block: @MainActor @convention(block) (UIScrollView, AnyObject?) -> Void = {
                    list, delegate in
                    ListDelegateProxy.assign(delegate, to: list) { replacement in
                        unsafeBitCast(original.implementation, to: Setter.self)(
                            list, original.selector, replacement)
                    }
                }
                return block
            }
            typealias Getter = @convention(c) (UIScrollView, Selector) -> AnyObject?
            _ = MethodHooks.hook(#selector(getter: UIScrollView.delegate), of: cls) { original in
                let block: @MainActor @convention(block) (UIScrollView) -> AnyObject? = { list in
                    let current = unsafeBitCast(original.implementation, to: Getter.self)(
                        list, original.selector)
                    if let proxy = current as? ListDelegateProxy { return proxy.forwardTo }
                    return current
                }
                return block
            }
        }

        private static func hookLayoutEvents(of cls: UIScrollView.Type) {
            typealias NoArguments = @convention(c) (UIScrollView, Selector) -> Void
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
                    let block: @MainActor @convention(block) (UIScrollView) -> Void = { list in
                        unsafeBitCast(original.implementation, to: NoArguments.self)(list, original.selector)
                        notify(list)
                    }
                    return block
                }
            }
        }
    }
#endif
