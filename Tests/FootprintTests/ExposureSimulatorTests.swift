import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// The scroll simulator reports what a `UIScrollView` would.
struct ExposureSimulatorTests {
    static let viewport = ListViewport(
        size: CGSize(width: 375, height: 800), insets: ListInsets(top: 90, bottom: 50))

    func simulator() -> ScrollSimulator {
        ScrollSimulator(
            axis: .vertical, viewport: Self.viewport, contentLength: 10_000, time: ExposureHarness.start)
    }

    @Test func startsAtTheTopBelowTheInset() {
        #expect(simulator().offset == CGPoint(x: 0, y: -90))
        #expect(simulator().maximumOffset == CGFloat(9250))
        #expect(simulator().pageLength == 660)
    }

    @Test(arguments: [
        ScrollGesture.slowDrag(distance: 500, milliseconds: 800), .fling(velocity: 4000),
        .fling(velocity: -4000),
        .backAndForth(forward: 600, back: -300, releaseVelocity: 3000), .pageFlip(pages: 1),
        .animatedScroll(to: 3000), .fling(velocity: 40_000),
    ])
    func gesturesFollowTheDelegateGrammar(gesture: ScrollGesture) throws {
        var simulator = simulator()
        _ = simulator.perform(.animatedScroll(to: 2000))
        let callbacks = simulator.perform(gesture)
        let first = try #require(callbacks.first)
        let last = try #require(callbacks.last)
        #expect(zip(callbacks, callbacks.dropFirst()).allSatisfy { $0.time <= $1.time })
        let names = callbacks.map { Self.name($0.callback) }.filter { $0 != "scroll" }
        switch gesture {
        case .animatedScroll:
            #expect(names == ["animationEnd"])
        case .slowDrag:
            #expect(names == ["drag", "release(false)"])
        default:
            #expect(names == ["drag", "release(true)", "decelerate", "decelerationEnd"])
        }
        #expect(first.time > ExposureHarness.start)
        #expect(last.time > first.time)
        // Every gesture comes to rest inside the bounds.
        #expect(
            simulator.offset.y >= simulator.minimumOffset && simulator.offset.y <= simulator.maximumOffset)
    }

    @Test func flingDecelerationMatchesUIKitDistance() {
        var simulator = simulator()
        _ = simulator.perform(.animatedScroll(to: 1000))
        _ = simulator.perform(.fling(velocity: 2000))
        // UIKit: v / 1000 · r / (1 − r) ≈ 998 points after release, plus the 120-point flick.
        #expect(abs(simulator.offset.y - (1000 + 120 + 998)) < 30)
    }

    @Test func bounceOvershootsThenReturns() {
        var simulator = simulator()
        let callbacks = simulator.perform(.fling(velocity: -3000))
        let offsets = callbacks.compactMap { if case .didScroll(let o) = $0.callback { o.y } else { nil } }
        #expect(offsets.min()! < -90)
        #expect(offsets.min()! > -300)
        #expect(simulator.offset.y == -90)
    }

    @Test func isDeterministic() {
        var a = simulator()
        var b = simulator()
        let gestures: [ScrollGesture] = [
            .fling(velocity: 5000), .pause(milliseconds: 300), .pageFlip(pages: -1),
        ]
        #expect(a.perform(gestures) == b.perform(gestures))
    }

    static func name(_ callback: ListCallback) -> String {
        switch callback {
        case .didScroll: "scroll"
        case .willBeginDragging: "drag"
        case .didEndDragging(let decelerate): "release(\(decelerate))"
        case .willBeginDecelerating: "decelerate"
        case .didEndDecelerating: "decelerationEnd"
        case .didEndScrollingAnimation: "animationEnd"
        default: "other"
        }
    }
}
