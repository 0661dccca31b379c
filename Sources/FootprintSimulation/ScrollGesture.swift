import Footprint
import FootprintWire
import Foundation

/// What a simulated user does to a list. Distances and velocities are along the scroll axis, in
/// points and points per second; positive moves towards the end of the list (the offset grows).
public enum ScrollGesture: Sendable, Hashable {
    /// The finger drags `distance` over `milliseconds` and lifts without speed: no fling.
    case slowDrag(distance: CGFloat, milliseconds: Int64)
    /// A quick flick released at `velocity`: a short drag (at most 160 points), then the list
    /// decelerates as `UIScrollView` does (and bounces at the ends).
    case fling(velocity: CGFloat)
    /// The finger drags `forward`, then `back` (signed), and releases at `releaseVelocity`.
    case backAndForth(forward: CGFloat, back: CGFloat, releaseVelocity: CGFloat)
    /// One page-flip of a paging list: a short quick drag, then the list settles one visible
    /// length further in the direction of `pages`' sign, `abs(pages)` pages.
    case pageFlip(pages: Int)
    /// A programmatic animated scroll (`setContentOffset(_:animated: true)`) to `offset`.
    case animatedScroll(to: CGFloat)
    /// Nothing happens for `milliseconds`: the user reads.
    case pause(milliseconds: Int64)
}
