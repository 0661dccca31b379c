import Foundation
import Testing

/// Measures how long a change made at one moment takes to be seen elsewhere, without racing the
/// wall clock: it asks again and again, records when each question started, and checks the
/// promise "every question that starts `bound` after the change sees it" against those times,
/// so a slow machine makes the test wait longer, never fail.
struct StalenessProbe {
    /// How long after the change every question must see it.
    var bound: TimeInterval
    /// How long to keep asking before giving up.
    var deadline: TimeInterval = 60
    /// The pause between questions.
    var pause: TimeInterval = 0.05

    /// Asks `sees` until it answers `true`, from `changedAt` (a time taken after the change
    /// committed) on.
    /// - Returns: how long after `changedAt` the first question that saw the change started.
    @discardableResult
    func measure(
        since changedAt: Date, sourceLocation: SourceLocation = #_sourceLocation, _ sees: () throws -> Bool
    ) throws -> TimeInterval {
        while true {
            let asked = Date()
            if try sees() { return asked.timeIntervalSince(changedAt) }
            let after = asked.timeIntervalSince(changedAt)
            if after >= bound {
                Issue.record(
                    "a question started \(after) s after the change did not see it (bound \(bound) s)",
                    sourceLocation: sourceLocation)
                return after
            }
            if after > deadline {
                Issue.record("not seen after \(deadline) s", sourceLocation: sourceLocation)
                return after
            }
            Thread.sleep(forTimeInterval: pause)
        }
    }
}
