import Footprint
import FootprintWire
import Foundation

/// The three kinds of reader the list-exposure article describes, as gesture scripts for the
/// ``ScrollSimulator``: the demo's virtual users and the tests scroll like them.
public enum ReadingStyle: String, Sendable, Hashable, CaseIterable {
    /// A: reads item by item, dragging a third of a screen at a time and pausing to read.
    case slowReader
    /// B: flings fast and lets the list fly, pausing briefly between flings.
    case fastFlinger
    /// C: flips page after page.
    case pageFlipper

    /// `steps` gestures of this style, each followed by a pause; `generator` varies distances,
    /// speeds and pauses (a seeded generator makes the script reproducible).
    /// - Parameters:
    ///   - steps: how many gestures (pauses not counted).
    ///   - pageLength: the visible length of the list, for the slow reader's drags.
    ///   - generator: the source of variation.
    public func gestures(steps: Int, pageLength: CGFloat, using generator: inout some RandomNumberGenerator)
        -> [ScrollGesture]
    {
        var script: [ScrollGesture] = []
        for _ in 0..<max(0, steps) {
            switch self {
            case .slowReader:
                let distance = pageLength * CGFloat.random(in: 0.25...0.4, using: &generator)
                script.append(
                    .slowDrag(
                        distance: distance, milliseconds: Int64.random(in: 500...900, using: &generator)))
                script.append(.pause(milliseconds: Int64.random(in: 1200...3000, using: &generator)))
            case .fastFlinger:
                script.append(.fling(velocity: CGFloat.random(in: 4000...9000, using: &generator)))
                script.append(.pause(milliseconds: Int64.random(in: 200...600, using: &generator)))
            case .pageFlipper:
                script.append(.pageFlip(pages: 1))
                script.append(.pause(milliseconds: Int64.random(in: 150...400, using: &generator)))
            }
        }
        return script
    }
}
