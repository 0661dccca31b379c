#if canImport(UIKit) && !os(watchOS)
    import Foundation

    /// Feeds one SwiftUI scroll view to list exposure, as ``ListExposureDriver`` does for UIKit
    /// lists: what the modifiers observe goes through a ``DeclarativeListFeed`` (which decides the
    /// callbacks) to a ``ListExposureRecorder`` (which decides exposures and skips); this runs the
    /// recorder's timer and hears the app's lifecycle and new sessions through ``UIKitCapture``.
    @MainActor
    final class SwiftUIListExposureDriver {
        private var feed: DeclarativeListFeed
        private var recorder: ListExposureRecorder?
        private weak var owner: UIKitCapture?
        private var tickTimer: ExposureTickTimer?

        /// Creates the driver of a list that scrolls along `axis`. Nonisolated: SwiftUI creates
        /// it as a view's state, before any main-actor code runs.
        nonisolated init(axis: ListAxis) {
            feed = DeclarativeListFeed(axis: axis)
        }

        /// The coordinate space, set on the scroll view, that its items measure their frames in.
        nonisolated var coordinateSpaceName: String {
            "footprint.exposure.\(UInt(bitPattern: ObjectIdentifier(self).hashValue))"
        }

        /// The list came on screen.
        func appeared(listID: String?, pageName: String?) {
            guard let adapter = UIKitCapture.installed, adapter.configuration.feedsListExposure else {
                return
            }
            if owner !== adapter || recorder == nil {
                owner = adapter
                adapter.swiftUIExposureDrivers.add(self)
                recorder = ListExposureRecorder(
                    pageName: nil, axis: feed.axis, configuration: adapter.configuration.exposure,
                    clock: adapter.clock, sink: adapter.sink)
                feed.maximumItems = adapter.configuration.maximumListItems
            }
            recorder?.pageName = pageName ?? adapter.capture.currentPageName
            recorder?.listId = listID
            forward(feed.appeared())
        }

        /// The list left the screen.
        func disappeared() {
            forward(feed.disappeared())
            tickTimer?.cancel()
        }

        /// Scroll geometry (iOS 18).
        func geometryChanged(viewport: ListViewport, offset: CGPoint) {
            forward(feed.geometryChanged(viewport: viewport, offset: offset))
        }

        /// The scroll view's size, without scroll geometry (iOS 15–17).
        func sizeChanged(_ size: CGSize) {
            forward(feed.sizeChanged(size))
        }

        /// The scroll phase changed (iOS 18).
        func activityChanged(to activity: DeclarativeListFeed.Activity) {
            forward(feed.activityChanged(to: activity))
        }

        /// An item appeared or moved.
        func itemReported(_ item: DeclarativeListFeed.ItemFrame) {
            forward(feed.itemReported(item))
        }

        /// An item disappeared.
        func itemDisappeared(id: String) {
            forward(feed.itemDisappeared(id: id))
        }

        /// Applies one callback (also the app's background, foreground and new sessions, which
        /// ``UIKitCapture`` broadcasts to every list), when exposure is allowed.
        func handle(_ callback: ListCallback) {
            guard let recorder, let owner, owner === UIKitCapture.installed, owner.capture.allows(\.exposures)
            else {
                return
            }
            if callback == .tick {
                for pending in feed.pendingLayout() { recorder.handle(pending) }
            }
            recorder.handle(callback)
            let timer = tickTimer ?? ExposureTickTimer()
            tickTimer = timer
            timer.schedule(at: recorder.nextDeadline, now: owner.clock.now()) { [weak self] in
                self?.handle(.tick)
            }
        }

        private func forward(_ callbacks: [ListCallback]) {
            for callback in callbacks { handle(callback) }
        }
    }
#endif
