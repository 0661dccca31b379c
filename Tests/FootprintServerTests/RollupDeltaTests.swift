import FootprintSynthetic
import FootprintWire
import Testing

@testable import FootprintServer

/// A batch's rollups are counted before the writer takes it (``RollupDelta/merge(_:)``): the
/// deltas of consecutive batches merged must be the delta of their events added one by one.
@Suite struct RollupDeltaTests {
    /// Every field of a delta, as sorted lines (the times and a session's events in their order).
    static func lines(_ delta: RollupDelta) -> [String] {
        var lines: [String] = []
        lines += delta.stored.map { "stored \($0)=\($1)" }
        lines += delta.counts.map { "count \($0)=\($1.count) \($1.detail ?? "nil")" }
        lines += delta.personDays.map { "days \($0)=\($1)" }
        lines += delta.personTimes.map { "times \($0)=\($1)" }
        lines += delta.sessions.map { "session \($0)=\($1.appVersion) \($1.os) \($1.events)" }
        lines += delta.sessionPages.map { "page \($0)=\($1)" }
        lines += delta.dwell.map { "dwell \($0)=\($1)" }
        lines += delta.moves.map { "move \($0)=\($1)" }
        return lines.sorted()
    }

    /// The lines of one delta and not the other (the first few), empty when they are equal.
    static func difference(_ one: RollupDelta, _ other: RollupDelta) -> [String] {
        let (left, right) = (lines(one), lines(other))
        guard left != right else { return [] }
        let (onlyLeft, onlyRight) = (Set(left).subtracting(right), Set(right).subtracting(left))
        return Array(onlyLeft.sorted().prefix(3)) + ["---"] + Array(onlyRight.sorted().prefix(3))
    }

    /// Generated sessions, shuffled so that sessions and pages span batches, with some clicks'
    /// texts dropped or changed and some versions changed mid-session.
    static func events(seed: UInt64) -> [EventRecord] {
        var configuration = SyntheticTraffic.Configuration()
        configuration.people = 12
        configuration.days = 4
        configuration.seed = seed
        var traffic = SyntheticTraffic(configuration: configuration)
        var events: [EventRecord] = []
        while events.count < 600 { events += traffic.session().events }
        var random = SeededRandom(seed: seed)
        for index in events.indices.reversed() where index > 0 {
            events.swapAt(index, Int(random.next() % UInt64(index + 1)))
        }
        for index in events.indices {
            switch random.next() % 8 {
            case 0: events[index].elementText = nil
            case 1: events[index].elementText = "text \(random.next() % 3)"
            case 2: events[index].appVersion = "9.\(random.next() % 2)"
            default: break
            }
        }
        return events
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func mergedBatchesEqualTheirEventsAddedOneByOne(seed: UInt64) {
        let events = Self.events(seed: seed)
        var whole = RollupDelta()
        for event in events { whole.add(event, project: 7) }
        var random = SeededRandom(seed: seed &+ 100)
        var merged = RollupDelta()
        var start = 0
        var batches = 0
        while start < events.count {
            let end = min(events.count, start + 1 + Int(random.next() % 90))
            var batch = RollupDelta()
            for event in events[start..<end] { batch.add(event, project: 7) }
            merged.merge(batch)
            start = end
            batches += 1
        }
        #expect(batches > 5)
        #expect(Self.difference(merged, whole) == [])
        // Merging nothing changes nothing; merging into nothing is the delta itself.
        var again = merged
        again.merge(RollupDelta())
        #expect(Self.difference(again, whole) == [])
        var fromEmpty = RollupDelta()
        fromEmpty.merge(whole)
        #expect(Self.difference(fromEmpty, whole) == [])
    }

    /// Sessions' dwell and moves (added when the writer replaces a stored session) are summed too.
    @Test func mergedDwellAndMovesAreSummed() {
        var first = RollupDelta()
        var second = RollupDelta()
        var both = RollupDelta()
        let key = RollupDelta.SessionKey(project: 1, key: "s")
        var earlier = SessionTimeline()
        earlier.add(time: 1_000, mark: .view(page: "Home"), isPageView: true)
        earlier.add(time: 9_000, mark: .view(page: "Cart"), isPageView: true)
        var later = earlier
        later.add(time: 20_000, mark: .view(page: "Home"), isPageView: true)
        first.replace(session: key, before: nil, after: earlier, appVersion: "1", os: "iOS")
        second.replace(session: key, before: earlier, after: later, appVersion: "1", os: "iOS")
        both.replace(session: key, before: nil, after: earlier, appVersion: "1", os: "iOS")
        both.replace(session: key, before: earlier, after: later, appVersion: "1", os: "iOS")
        first.merge(second)
        #expect(!first.moves.isEmpty)
        #expect(Self.difference(first, both) == [])
    }
}
