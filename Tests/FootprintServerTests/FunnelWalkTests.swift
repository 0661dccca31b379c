import FootprintWire
import Testing

@testable import FootprintServer

/// ``FunnelReport/depth(stepCount:hits:windowMilliseconds:)`` walks a person's hits once; these
/// tests hold it to the definition it replaces: every first-step hit starts an attempt, which
/// takes the earliest later hit of each next step inside its window, and the person's depth is
/// the deepest attempt's.
struct FunnelWalkTests {
    /// The definition, attempt by attempt (quadratic in a person's first steps).
    static func attemptsDepth(stepCount: Int, hits: [FunnelHit], window: Int64) -> Int {
        let timeline = hits.sorted(by: FunnelHit.precedes)
        var deepest = 0
        for (start, entry) in timeline.enumerated() where entry.steps & 1 != 0 {
            let deadline = entry.time.saturatingAdd(window)
            var next = 1
            for later in timeline[(start + 1)...] {
                guard next < stepCount, later.time <= deadline else { break }
                if later.steps & (1 << UInt64(next)) != 0 { next += 1 }
            }
            deepest = max(deepest, min(next, stepCount))
        }
        return deepest
    }

    /// Random hits on a coarse grid (so hits tie, and windows end exactly on some), each
    /// completing one of `sets` (several steps at once, repeated steps).
    static func timeline(using random: inout SeededRandom, sets: [UInt64], length: Int) -> [FunnelHit] {
        (0..<Int.random(in: 0...length, using: &random)).map { _ in
            FunnelHit(
                time: Int64.random(in: 0..<40, using: &random) * 1_000,
                steps: sets.randomElement(using: &random)!)
        }
    }

    @Test func theOnePassWalkEqualsEveryAttemptWalkedInTurn() {
        var random = SeededRandom(seed: 26)
        let sets: [UInt64] = [0b1, 0b10, 0b11, 0b100, 0b101, 0b110, 0b1000, 0b1010, 0b1111, 0]
        var deep = 0
        for _ in 0..<20_000 {
            let stepCount = Int.random(in: 0...5, using: &random)
            let window = [Int64(0), -1, 1_000, 3_000, 7_500, 40_000, .max, .min].randomElement(
                using: &random)!
            let hits = Self.timeline(using: &random, sets: sets, length: 24)
            let expected = Self.attemptsDepth(stepCount: stepCount, hits: hits, window: window)
            let walked = FunnelReport.depth(stepCount: stepCount, hits: hits, windowMilliseconds: window)
            #expect(walked == expected, "\(stepCount) steps, window \(window): \(hits)")
            if walked != expected { return }
            if expected >= 3 { deep += 1 }
        }
        // Not vacuous: many people got past the second step.
        #expect(deep > 2_000)
    }

    /// ``FunnelReport/reached(stepCount:people:windowMilliseconds:)`` walks every person in one
    /// scratch space: long and short people in turn (slices of one array, as SQLite gives them)
    /// count as each walked alone, by the definition.
    @Test func peopleWalkedInOneScratchSpaceCountAsEachAlone() {
        var random = SeededRandom(seed: 2026)
        let sets: [UInt64] = [0b1, 0b10, 0b11, 0b100, 0b110, 0]
        for _ in 0..<300 {
            let stepCount = Int.random(in: 1...4, using: &random)
            let window = [Int64(0), 3_000, 40_000, .max].randomElement(using: &random)!
            let people = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                Self.timeline(using: &random, sets: sets, length: Bool.random(using: &random) ? 30 : 3)
            }
            var expected = Array(repeating: 0, count: stepCount)
            for person in people {
                for step in 0..<Self.attemptsDepth(stepCount: stepCount, hits: person, window: window) {
                    expected[step] += 1
                }
            }
            let hits = people.flatMap { $0 }
            let ends = people.reduce(into: [0]) { $0.append($0.last! + $1.count) }
            let reached = FunnelReport.reached(
                stepCount: stepCount,
                people: people.indices.lazy.map { hits[ends[$0]..<ends[$0 + 1]] }, windowMilliseconds: window)
            #expect(reached == expected, "\(stepCount) steps, window \(window): \(people)")
            if reached != expected { return }
        }
    }

    /// The cases the attempts decide: a later start that still has its window beats an earlier
    /// one that reached further but ran out; one hit completing two steps counts once per
    /// attempt; a first step that is also the second does not finish its own attempt.
    @Test func theWalksNamedCases() {
        func depth(_ steps: Int, _ hits: [(Int64, UInt64)], window: Int64) -> Int {
            FunnelReport.depth(
                stepCount: steps, hits: hits.map { FunnelHit(time: $0.0, steps: $0.1) },
                windowMilliseconds: window)
        }
        // A at 0, B at 5, A at 8, C at 12, window 6: the first attempt (A@0) reaches B and
        // runs out before C; the second (A@8) reaches only its own start, so 2 steps.
        #expect(depth(3, [(0, 0b1), (5, 0b10), (8, 0b1), (12, 0b100)], window: 6) == 2)
        // Add B at 10: the second attempt reaches B at 10 and C at 12, within 8 + 6.
        #expect(depth(3, [(0, 0b1), (5, 0b10), (8, 0b1), (10, 0b10), (12, 0b100)], window: 6) == 3)
        // One hit completing A and B starts an attempt, but does not also finish it.
        #expect(depth(2, [(0, 0b11)], window: 10) == 1)
        #expect(depth(2, [(0, 0b11), (1, 0b11)], window: 10) == 2)
        // A funnel A → B → A: the return to A is the third step.
        #expect(depth(3, [(0, 0b101), (1, 0b10), (2, 0b101)], window: 10) == 3)
        // A step before the first, or past the window, does not count.
        #expect(depth(2, [(0, 0b10), (1, 0b1)], window: 10) == 1)
        #expect(depth(2, [(0, 0b1), (11, 0b10)], window: 10) == 1)
        #expect(depth(2, [(0, 0b1), (10, 0b10)], window: 10) == 2)
        #expect(depth(0, [(0, 0b1)], window: 10) == 0)
    }
}
