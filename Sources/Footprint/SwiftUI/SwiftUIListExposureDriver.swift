#if canImport(SwiftUI) && canImport(UIKit) && !os(watchOS)
    import SwiftUI

    /// Feeds one SwiftUI scroll view to list exposure, as ``ListExposureDriver`` does for UIKit
    /// lists: scroll phases become the drag and deceleration callbacks, the scroll geometry the
    /// viewport and offset, and the items' frames (converted to content coordinates) the layout.
    ///
    /// Item frames arrive in the scroll view's coordinate space, a frame apart from the offset
    /// while the list moves; so while it scrolls only newly laid-out items are reported, and the
    /// whole layout is compared again when it comes to rest.
    @available(iOS 18.0, *)
    @MainActor
    final class SwiftUIListExposureDriver {
        private var recorder: ListExposureRecorder?
        private var owner: UIKitCapture?
        private var geometry: ScrollGeometry?
        private var frames: [ExposureItemFrame] = []
        private var reported: [String: ListItem] = [:]
        private var isScrolling = false
        /// Until the first items arrive after appearing, their report is a reload (a rest point).
        private var awaitsFirstLayout = true
        private let tickTimer = ExposureTickTimer()

        func appeared(listID: String?, pageName: String?) {
            guard let adapter = UIKitCapture.installed, adapter.configuration.feedsListExposure else {
                return
            }
            if owner !== adapter || recorder == nil {
                owner = adapter
                recorder = ListExposureRecorder(
                    pageName: pageName, listId: listID, configuration: adapter.configuration.exposure,
                    clock: adapter.clock, sink: adapter.sink)
            }
            recorder?.pageName = pageName ?? adapter.capture.currentPageName
            recorder?.listId = listID
            awaitsFirstLayout = true
            guard let geometry else { return }
            handle(.appeared(viewport: Self.viewport(of: geometry), offset: geometry.contentOffset))
            reportLayout()
        }

        func disappeared() {
            handle(.disappeared)
            reported = [:]
            tickTimer.cancel()
        }

        func geometryChanged(_ new: ScrollGeometry) {
            let old = geometry
            geometry = new
            guard let old else {
                if recorder != nil {
                    handle(.appeared(viewport: Self.viewport(of: new), offset: new.contentOffset))
                    reportLayout()
                }
                return
            }
            if Self.viewport(of: old) != Self.viewport(of: new) {
                handle(.viewportChanged(Self.viewport(of: new)))
            }
            if old.contentOffset != new.contentOffset { handle(.didScroll(offset: new.contentOffset)) }
        }

        func phaseChanged(from old: ScrollPhase, to new: ScrollPhase) {
            switch (old, new) {
            case (_, .interacting) where old != .interacting:
                isScrolling = true
                handle(.willBeginDragging)
            case (.interacting, .decelerating):
                handle(.didEndDragging(willDecelerate: true))
                handle(.willBeginDecelerating)
            case (.interacting, .idle):
                isScrolling = false
                handle(.didEndDragging(willDecelerate: false))
                reportLayout()
            case (.decelerating, .idle):
                isScrolling = false
                handle(.didEndDecelerating)
                reportLayout()
            case (.animating, .idle):
                isScrolling = false
                handle(.didEndScrollingAnimation)
                reportLayout()
            case (_, .animating):
                isScrolling = true
            default:
                break
            }
        }

        func framesChanged(_ new: [ExposureItemFrame]) {
            frames = new
            reportLayout()
        }

        /// Reports the items in content coordinates: the first ones after appearing as a reload,
        /// then all of them at rest when any moved, only new ones while scrolling.
        private func reportLayout() {
            guard let geometry, recorder != nil, !frames.isEmpty else { return }
            let offset = geometry.contentOffset
            var items: [ListItem] = []
            var changed = false
            for frame in frames {
                let item = ListItem(
                    indexPath: frame.position, frame: frame.frame.offsetBy(dx: offset.x, dy: offset.y),
                    itemId: frame.id, properties: frame.properties)
                items.append(item)
                if let known = reported[frame.id] {
                    if !isScrolling, Self.moved(known.frame, item.frame) { changed = true }
                } else {
                    changed = true
                }
            }
            for item in items { reported[item.wireItemId] = item }
            if awaitsFirstLayout {
                awaitsFirstLayout = false
                handle(.dataReloaded(items: items))
            } else if changed {
                handle(.layoutChanged(items: items))
            }
        }

        private func handle(_ callback: ListCallback) {
            guard let recorder, let owner, owner === UIKitCapture.installed, owner.capture.allows(\.exposures)
            else {
                return
            }
            recorder.handle(callback)
            tickTimer.schedule(at: recorder.nextDeadline, now: owner.clock.now()) { [weak self] in
                self?.handle(.tick)
            }
        }

        private static func viewport(of geometry: ScrollGeometry) -> ListViewport {
            let insets = geometry.contentInsets
            return ListViewport(
                size: geometry.containerSize,
                insets: ListInsets(
                    top: insets.top, left: insets.leading, bottom: insets.bottom, right: insets.trailing))
        }

        private static func moved(_ old: CGRect, _ new: CGRect) -> Bool {
            abs(old.minX - new.minX) > 1 || abs(old.minY - new.minY) > 1 || abs(old.width - new.width) > 1
                || abs(old.height - new.height) > 1
        }
    }
#endif
