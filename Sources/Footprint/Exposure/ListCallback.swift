import Foundation

/// What the adapter tells the exposure model: the `UIScrollViewDelegate` callbacks, data and
/// layout changes, and the list's and app's lifecycle. Handed to
/// ``ListExposureTracker/handle(_:now:)`` with the time it happened.
///
/// Equatable, not Hashable: CoreGraphics geometry is Hashable on Apple systems only from iOS 18.
public enum ListCallback: Sendable, Equatable {
    /// The list came on screen (`viewDidAppear`): a new page view, and a rest point.
    case appeared(viewport: ListViewport, offset: CGPoint)
    /// The list left the screen (`viewDidDisappear`): watching stops, a fling in progress ends.
    case disappeared
    /// New data was loaded (`reloadData`, first load): the items now laid out, all of them when
    /// the layout can tell (a table's `rectForRow`), at least the visible ones.
    case dataReloaded(items: [ListItem])
    /// Same data, new frames (rows appended by paging, self-sizing cells, rotation).
    case layoutChanged(items: [ListItem])
    /// Same data, one more item laid out (a row a declarative list shows for the first time):
    /// it joins the known layout where it belongs, instead of the whole layout being sent again.
    case itemAppeared(ListItem)
    /// The scroll view's size or insets changed (rotation, keyboard, bars).
    case viewportChanged(ListViewport)
    /// `scrollViewWillBeginDragging`: the finger starts moving the list.
    case willBeginDragging
    /// `scrollViewDidScroll` with the new `contentOffset`.
    case didScroll(offset: CGPoint)
    /// `scrollViewDidEndDragging(_:willDecelerate:)`: the finger lifted.
    case didEndDragging(willDecelerate: Bool)
    /// `scrollViewWillBeginDecelerating`: the list flies on by inertia.
    case willBeginDecelerating
    /// `scrollViewDidEndDecelerating`: the fling stopped.
    case didEndDecelerating
    /// `scrollViewDidEndScrollingAnimation`: an animated `setContentOffset` or `scrollToRow` ended.
    case didEndScrollingAnimation
    /// `scrollViewDidScrollToTop`: the status-bar tap scrolled to the top.
    case didScrollToTop
    /// The app went to the background: dwell timers pause.
    case appDidEnterBackground
    /// The app came back to the foreground: dwell timers resume.
    case appWillEnterForeground
    /// A new session started: ``ExposureRepeatPolicy/oncePerSession`` counts afresh.
    case sessionStarted
    /// Nothing happened but time passed: the driver calls this at
    /// ``ListExposureTracker/nextDeadline`` so that dwell timers and settling fire.
    case tick
}
