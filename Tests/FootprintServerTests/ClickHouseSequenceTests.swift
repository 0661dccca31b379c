import Testing

@testable import FootprintServer

/// The ClickHouse store's event sequences: they grow on one collector whatever its clock does,
/// and two collectors with different tags never give out the same one, even at the same instant.
@Suite struct ClickHouseSequenceTests {
    /// Every sequence of a collector with `tag` over the clock readings `clock` (seconds).
    static func sequences(tag: UInt64, clock: [Double]) -> [UInt64] {
        var last = tag
        return clock.map { now in
            last = ClickHouseEventStore.sequence(after: last, now: now, tag: tag)
            return last
        }
    }

    @Test func aCollectorsSequencesGrowWhenItsClockStandsStillOrGoesBack() {
        let now = 1_796_083_200.25
        let clock = [now, now, now, now - 5, now + 0.000_001, now + 1]
        let sequences = Self.sequences(tag: 9, clock: clock)
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 }, "\(sequences)")
        #expect(sequences.allSatisfy { $0 % ClickHouseEventStore.sequenceTags == 9 })
        // Near the wall clock in microseconds, and back on it once the clock has moved past.
        #expect(sequences[0] / 16 == 1_796_083_200_250_000 / 16)
        #expect(sequences[5] / 16 == 1_796_083_201_250_000 / 16)
        // Exact in a JavaScript number (the dashboard's live cursor) for centuries.
        #expect(ClickHouseEventStore.sequence(after: 0, now: 7_258_118_400, tag: 15) < 1 << 53)
    }

    @Test func twoCollectorsAtTheSameInstantsNeverGiveOutTheSameSequence() {
        let start = 1_796_083_200.0
        // Bursts faster than the clock (many events per microsecond) and the same readings on both.
        let clock = (0..<2_000).map { start + Double($0 / 50) * 0.000_001 }
        let first = Self.sequences(tag: 3, clock: clock)
        let second = Self.sequences(tag: 4, clock: clock)
        #expect(Set(first).isDisjoint(with: second))
        #expect(Set(first).count == clock.count)
        #expect(Set(second).count == clock.count)
    }

    @Test func aTagIsKeptBelowTheNumberOfTags() {
        let sequence = ClickHouseEventStore.sequence(after: 0, now: 1_796_083_200, tag: 16 + 5)
        #expect(sequence % ClickHouseEventStore.sequenceTags == 5)
    }
}
