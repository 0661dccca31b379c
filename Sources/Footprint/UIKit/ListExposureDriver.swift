#if canImport(UIKit) && !os(watchOS)
    import Foundation
    import UIKit

    /// Feeds one table or collection view to list exposure: reads its layout (item frames from
    /// `rectForRow(at:)` or `layoutAttributesForItem(at:)`, the viewport from `bounds` and
    /// `adjustedContentInset`), forwards its scroll callbacks, and runs a timer for the
    /// recorder's next deadline (dwell and settling fire while nothing moves).
    ///
    /// The decisions are the core's (``ListExposureRecorder``; which lists are measured and
    /// which page they are on, ``AutoCapture/measuresExposure(ofList:isMarked:)`` and
    /// ``AutoCapture/pageName(ofChain:)``, the same rule as for taps); this only observes.
    /// Created when a measured list enters a window, held by the list.
    @MainActor
    final class ListExposureDriver {
        private weak var list: UIScrollView?
        private weak var owner: UIKitCapture?
        private var recorder: ListExposureRecorder
        private var isOnScreen = false
        private var needsAppearance = false
        private var needsReload = false
        private var lastViewport: ListViewport?
        private var lastContentSize = CGSize.zero
        private let tickTimer = ExposureTickTimer()
        /// The content size changed while the list moved; frames are read at the next rest point.
        private var layoutIsStale = false

        private init(list: UIScrollView, owner: UIKitCapture) {
            self.list = list
            self.owner = owner
            recorder = Self.makeRecorder(for: list, owner: owner)
        }

        /// The driver of `list`, when it has one.
        static func existing(for list: UIScrollView) -> ListExposureDriver? {
            AssociationKey.value(of: list, ListExposureDriver.self, as: ListExposureDriver.self)
        }

        /// `list` entered or left a window.
        static func listMovedToWindow(_ list: UIScrollView) {
            if list.window == nil {
                existing(for: list)?.leftScreen()
                return
            }
            guard let adapter = UIKitCapture.installed, adapter.configuration.feedsListExposure,
                isAppList(list, adapter: adapter),
                adapter.capture.measuresExposure(
                    ofList: ResponderChainDescriber.chain(from: list), isMarked: isMarked(list))
            else {
                return
            }
            let driver = existing(for: list) ?? ListExposureDriver(list: list, owner: adapter)
            AssociationKey.set(driver, on: list, ListExposureDriver.self)
            adapter.exposureDrivers.add(driver)
            driver.needsAppearance = true
            list.setNeedsLayout()
        }

        /// The list's data was reloaded; its new layout is read at the next layout pass.
        func dataReloaded() {
            needsReload = true
        }

        /// The list laid itself out: report its appearance, new data, a new layout or viewport.
        func layoutPassed() {
            guard let list, list.window != nil else { return }
            let viewport = Self.viewport(of: list)
            if needsAppearance {
                needsAppearance = false
                appear(list, viewport: viewport)
                return
            }
            guard isOnScreen else { return }
            if needsReload {
                needsReload = false
                layoutIsStale = false
                lastContentSize = list.contentSize
                handle(.dataReloaded(items: items(of: list)))
            } else if list.contentSize != lastContentSize {
                // Self-sizing cells change the content size at every frame of a scroll: the
                // frames are read again once, at the next rest point, not at each change.
                lastContentSize = list.contentSize
                if list.isDragging || list.isDecelerating {
                    layoutIsStale = true
                } else {
                    layoutIsStale = false
                    handle(.layoutChanged(items: items(of: list)))
                }
            }
            if viewport != lastViewport {
                lastViewport = viewport
                handle(.viewportChanged(viewport))
            }
        }

        /// Applies one callback, when the list is on screen and exposure is allowed.
        func handle(_ callback: ListCallback) {
            guard isOnScreen, let owner, owner === UIKitCapture.installed, owner.capture.allows(\.exposures)
            else {
                return
            }
            if layoutIsStale, Self.isRestPoint(callback), let list {
                layoutIsStale = false
                recorder.handle(.layoutChanged(items: items(of: list)))
            }
            recorder.handle(callback)
            tickTimer.schedule(at: recorder.nextDeadline, now: owner.clock.now()) { [weak self] in
                self?.handle(.tick)
            }
        }

        private func appear(_ list: UIScrollView, viewport: ListViewport) {
            let chain = ResponderChainDescriber.chain(from: list)
            guard let adapter = UIKitCapture.installed,
                adapter.capture.measuresExposure(ofList: chain, isMarked: Self.isMarked(list))
            else {
                return
            }
            if owner !== adapter {
                owner = adapter
                recorder = Self.makeRecorder(for: list, owner: adapter)
            }
            recorder.pageName = adapter.capture.pageName(ofChain: chain)
            recorder.listId = list.footprint.listID
            isOnScreen = true
            needsReload = false
            lastViewport = viewport
            lastContentSize = list.contentSize
            handle(.appeared(viewport: viewport, offset: list.contentOffset))
            handle(.dataReloaded(items: items(of: list)))
        }

        private func leftScreen() {
            guard isOnScreen else { return }
            handle(.disappeared)
            isOnScreen = false
            tickTimer.cancel()
        }

        /// Whether `callback` ends a movement (the tracker then judges what is on screen).
        private static func isRestPoint(_ callback: ListCallback) -> Bool {
            switch callback {
            case .didEndDragging(willDecelerate: false), .didEndDecelerating, .didEndScrollingAnimation,
                .didScrollToTop, .tick:
                return true
            default:
                return false
            }
        }

        // MARK: Reading the list

        private static func makeRecorder(for list: UIScrollView, owner: UIKitCapture) -> ListExposureRecorder
        {
            let recorder = ListExposureRecorder(
                pageName: nil, axis: axis(of: list), configuration: owner.configuration.exposure,
                clock: owner.clock,
                sink: owner.capture.sampledSink)
            // Ids are read when a decision looks at an item (the recorder runs on the main thread,
            // where the list is), so data a diffable data source or batch updates changed without
            // `reloadData` is reported under the ids it shows.
            recorder.identify = { [weak list] indexPath in
                MainActor.assumeIsolated {
                    list?.footprint.listItems?(IndexPath(item: indexPath.row, section: indexPath.section))
                }
            }
            return recorder
        }

        private static func axis(of list: UIScrollView) -> ListAxis {
            guard let collection = list as? UICollectionView else { return .vertical }
            let layout = collection.collectionViewLayout
            if let flow = layout as? UICollectionViewFlowLayout {
                return flow.scrollDirection == .horizontal ? .horizontal : .vertical
            }
            if let compositional = layout as? UICollectionViewCompositionalLayout {
                return compositional.configuration.scrollDirection == .horizontal ? .horizontal : .vertical
            }
            return .vertical
        }

        private static func viewport(of list: UIScrollView) -> ListViewport {
            let insets = list.adjustedContentInset
            return ListViewport(
                size: list.bounds.size,
                insets: ListInsets(
                    top: insets.top, left: insets.left, bottom: insets.bottom, right: insets.right))
        }

        /// Every item's frame in content coordinates, up to the configured maximum. No ids: the
        /// recorder reads those for the items a decision looks at.
        private func items(of list: UIScrollView) -> [ListItem] {
            let limit = owner?.configuration.maximumListItems ?? 0
            var items: [ListItem] = []
            func append(_ indexPath: IndexPath, _ frame: CGRect) {
                items.append(
                    ListItem(
                        indexPath: ListIndexPath(section: indexPath.section, row: indexPath.item),
                        frame: frame))
            }
            if let table = list as? UITableView {
                for section in 0..<table.numberOfSections {
                    for row in 0..<table.numberOfRows(inSection: section) {
                        guard items.count < limit else { return items }
                        let indexPath = IndexPath(row: row, section: section)
                        append(indexPath, table.rectForRow(at: indexPath))
                    }
                }
            } else if let collection = list as? UICollectionView {
                for section in 0..<collection.numberOfSections {
                    for item in 0..<collection.numberOfItems(inSection: section) {
                        guard items.count < limit else { return items }
                        let indexPath = IndexPath(item: item, section: section)
                        guard let frame = collection.layoutAttributesForItem(at: indexPath)?.frame else {
                            continue
                        }
                        append(indexPath, frame)
                    }
                }
            }
            return items
        }

        /// Whether the app marked `list` for exposure (a list id or item identities).
        private static func isMarked(_ list: UIScrollView) -> Bool {
            list.footprint.listID != nil || list.footprint.listItems != nil
        }

        /// Whether `list` is the app's: it has Footprint's delegate proxy (the app's delegate of
        /// an app's list), or no delegate and an app's list class.
        private static func isAppList(_ list: UIScrollView, adapter: UIKitCapture) -> Bool {
            if ListDelegateProxy.proxy(of: list) != nil { return true }
            return list.delegate == nil
                && ListRule.isAppList(ResponderChainDescriber.origin(of: list), appCode: adapter.appCode)
        }
    }
#endif
