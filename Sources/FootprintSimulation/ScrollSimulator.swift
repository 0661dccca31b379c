import Footprint
import FootprintWire
import Foundation

/// A deterministic `UIScrollView`: turns gestures into the callback sequence and offsets a real
/// scroll view reports, frame by frame at 120 Hz, so that the exposure model, its tests and the
/// demo run on the same input an app produces.
///
/// Physics follows UIKit: while the finger is down the offset follows it (rubber-banded by half
/// beyond the ends); after release the velocity decays by ``decelerationRate`` per millisecond
/// (`UIScrollView.DecelerationRate.normal` is 0.998); past an end a critically damped spring
/// brings it back (the bounce); paging settles exponentially on the next page.
public struct ScrollSimulator: Sendable {
    /// The scroll axis.
    public var axis: ListAxis
    /// The scroll view's size and insets.
    public var viewport: ListViewport
    /// The content length along the axis (`contentSize.height` for a vertical list).
    public var contentLength: CGFloat
    /// Velocity kept per millisecond after release. Default 0.998.
    public var decelerationRate: Double = 0.998
    /// Frame interval in milliseconds. Default 1000 / 120.
    public var frameMilliseconds: Double = 1000.0 / 120.0
    /// Below this release speed (points per second) a drag ends without deceleration. Default 250.
    public var flingThreshold: CGFloat = 250

    /// Where the simulated list is.
    public private(set) var offset: CGPoint
    /// The simulated time.
    public private(set) var time: Timestamp
    /// The fraction of a millisecond not yet added to ``time``.
    private var elapsed: Double = 0

    /// Creates a simulator.
    /// - Parameters:
    ///   - axis: the scroll axis.
    ///   - viewport: the scroll view's size and insets.
    ///   - contentLength: the content length along the axis.
    ///   - offset: the starting offset; default the top (`-insets.top`) or left end.
    ///   - time: the starting time.
    public init(
        axis: ListAxis, viewport: ListViewport, contentLength: CGFloat, offset: CGPoint? = nil,
        time: Timestamp
    ) {
        self.axis = axis
        self.viewport = viewport
        self.contentLength = contentLength
        self.time = time
        self.offset = .zero
        self.offset = offset ?? axis.point(minimumOffset, across: 0)
    }

    /// Creates a simulator for the content of `items` (its length is the furthest item end plus
    /// `trailing`).
    public init(
        axis: ListAxis, viewport: ListViewport, items: [ListItem], trailing: CGFloat = 0, time: Timestamp
    ) {
        let length = items.reduce(CGFloat(0)) { max($0, axis.end(of: $1.frame)) } + trailing
        self.init(axis: axis, viewport: viewport, contentLength: length, time: time)
    }

    /// The smallest resting offset along the axis: the leading inset, negated.
    public var minimumOffset: CGFloat {
        axis == .vertical ? -viewport.insets.top : -viewport.insets.left
    }

    /// The largest resting offset along the axis: content end plus trailing inset minus the size.
    public var maximumOffset: CGFloat {
        let trailingInset = axis == .vertical ? viewport.insets.bottom : viewport.insets.right
        return max(minimumOffset, contentLength + trailingInset - axis.length(of: viewport.size))
    }

    /// The visible length along the axis (one "page").
    public var pageLength: CGFloat {
        axis.length(of: viewport.visibleRect(at: .zero).size)
    }

    /// Performs `gesture` and returns the callbacks it produces, from the current offset and
    /// time; ``offset`` and ``time`` move on.
    public mutating func perform(_ gesture: ScrollGesture) -> [TimedListCallback] {
        var output: [TimedListCallback] = []
        switch gesture {
        case .slowDrag(let distance, let milliseconds):
            emit(.willBeginDragging, into: &output)
            drag(by: distance, milliseconds: milliseconds, into: &output)
            release(velocity: 0, into: &output)
        case .fling(let velocity):
            // A flick: the finger travels a little (at most 160 points in 60 ms) and lifts at
            // `velocity`, which UIKit measures over the last samples.
            emit(.willBeginDragging, into: &output)
            drag(
                by: velocity < 0 ? max(velocity * 0.06, -160) : min(velocity * 0.06, 160), milliseconds: 60,
                into: &output)
            release(velocity: velocity, into: &output)
        case .backAndForth(let forward, let back, let releaseVelocity):
            emit(.willBeginDragging, into: &output)
            drag(by: forward, milliseconds: max(50, Int64(abs(forward))), into: &output)
            drag(by: back, milliseconds: max(50, Int64(abs(back))), into: &output)
            release(velocity: releaseVelocity, into: &output)
        case .pageFlip(let pages):
            emit(.willBeginDragging, into: &output)
            let start = position
            let direction: CGFloat = pages < 0 ? -1 : 1
            drag(by: direction * pageLength / 4, milliseconds: 80, into: &output)
            emit(.didEndDragging(willDecelerate: true), into: &output)
            emit(.willBeginDecelerating, into: &output)
            let target = clamp(start + CGFloat(pages) * pageLength)
            settle(on: target, timeConstant: 80, into: &output)
            emit(.didEndDecelerating, into: &output)
        case .animatedScroll(let target):
            let start = position
            let end = clamp(target)
            let frames = max(1, Int((300 / frameMilliseconds).rounded()))
            for frame in 1...frames {
                let progress = Double(frame) / Double(frames)
                let eased = 1 - (1 - progress) * (1 - progress)
                advance(by: frameMilliseconds)
                move(to: start + (end - start) * CGFloat(eased), into: &output)
            }
            emit(.didEndScrollingAnimation, into: &output)
        case .pause(let milliseconds):
            advance(by: Double(milliseconds))
        }
        return output
    }

    /// Performs each gesture in turn.
    public mutating func perform(_ gestures: [ScrollGesture]) -> [TimedListCallback] {
        gestures.flatMap { perform($0) }
    }

    // MARK: Physics

    private var position: CGFloat { axis.coordinate(of: offset) }

    private var crossPosition: CGFloat { axis == .vertical ? offset.x : offset.y }

    private func clamp(_ value: CGFloat) -> CGFloat { min(maximumOffset, max(minimumOffset, value)) }

    private mutating func advance(by milliseconds: Double) {
        elapsed += milliseconds
        let whole = Int64(elapsed.rounded(.down))
        time = time.adding(milliseconds: whole)
        elapsed -= Double(whole)
    }

    private mutating func emit(_ callback: ListCallback, into output: inout [TimedListCallback]) {
        output.append(TimedListCallback(time: time, callback: callback))
    }

    private mutating func move(to value: CGFloat, into output: inout [TimedListCallback]) {
        offset = axis.point(value, across: crossPosition)
        emit(.didScroll(offset: offset), into: &output)
    }

    /// The finger moves the content by `distance` over `milliseconds`, frame by frame; beyond the
    /// ends the content follows at half the finger's speed.
    private mutating func drag(
        by distance: CGFloat, milliseconds: Int64, into output: inout [TimedListCallback]
    ) {
        let frames = max(1, Int((Double(milliseconds) / frameMilliseconds).rounded()))
        let step = distance / CGFloat(frames)
        for _ in 0..<frames {
            advance(by: frameMilliseconds)
            let outside = position < minimumOffset || position > maximumOffset
            move(to: position + (outside ? step / 2 : step), into: &output)
        }
    }

    /// The finger lifts at `velocity`: decelerates (bouncing at the ends) or stops.
    private mutating func release(velocity: CGFloat, into output: inout [TimedListCallback]) {
        let outside = position < minimumOffset || position > maximumOffset
        guard abs(velocity) >= flingThreshold || outside else {
            emit(.didEndDragging(willDecelerate: false), into: &output)
            return
        }
        emit(.didEndDragging(willDecelerate: true), into: &output)
        emit(.willBeginDecelerating, into: &output)
        decelerate(from: outside && abs(velocity) < flingThreshold ? 0 : velocity, into: &output)
        emit(.didEndDecelerating, into: &output)
    }

    /// Inertia inside the bounds, a critically damped spring outside them.
    private mutating func decelerate(from initialVelocity: CGFloat, into output: inout [TimedListCallback]) {
        var velocity = Double(initialVelocity)
        let dt = frameMilliseconds / 1000
        let decay = pow(decelerationRate, frameMilliseconds)
        let omega = 2 * Double.pi / 0.5
        for _ in 0..<2000 {
            advance(by: frameMilliseconds)
            var value = Double(position)
            let bound = Double(clamp(position))
            if value != bound {
                let excess = value - bound
                velocity += (-omega * omega * excess - 2 * omega * velocity) * dt
                value += velocity * dt
                if abs(value - bound) < 0.5, abs(velocity) < 20 || (value - bound) * excess <= 0 {
                    move(to: CGFloat(bound), into: &output)
                    return
                }
            } else {
                velocity *= decay
                value += velocity * dt
                if abs(velocity) < 10 {
                    move(to: clamp(CGFloat(value)), into: &output)
                    return
                }
            }
            move(to: CGFloat(value), into: &output)
        }
    }

    /// Paging: the offset approaches `target` exponentially with `timeConstant` milliseconds.
    private mutating func settle(
        on target: CGFloat, timeConstant: Double, into output: inout [TimedListCallback]
    ) {
        let keep = CGFloat(exp(-frameMilliseconds / timeConstant))
        while abs(position - target) >= 0.5 {
            advance(by: frameMilliseconds)
            move(to: target + (position - target) * keep, into: &output)
        }
        advance(by: frameMilliseconds)
        move(to: target, into: &output)
    }
}
