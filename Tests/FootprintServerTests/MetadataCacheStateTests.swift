import FootprintWire
import Testing

@testable import FootprintServer

/// The cache's decisions alone: times are given, nothing is read.
struct MetadataCacheStateTests {
    let start = Timestamp(millisecondsSince1970: 1_800_000_000_000)

    func at(_ milliseconds: Int64) -> Timestamp { start.adding(milliseconds: milliseconds) }

    /// The ticket of a `refresh` decision (records an issue otherwise).
    func ticket(
        _ decision: MetadataCacheState.Decision, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> MetadataCacheState.Ticket {
        guard case .refresh(let ticket) = decision else {
            Issue.record("expected a refresh, got \(decision)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return ticket
    }

    @Test func anEmptyCacheRefreshesThenAnswersForTheInterval() throws {
        var state = MetadataCacheState(intervalMilliseconds: 1_000)
        #expect(state.phase(at: at(0)) == .empty)
        let first = try ticket(state.lookup(at: at(0)))
        #expect(state.phase(at: at(0)) == .refreshing)
        state.refreshed(first, revision: 7, startedAt: at(0))
        #expect(state.revision == 7)
        #expect(state.phase(at: at(1_000)) == .fresh)
        #expect(state.lookup(at: at(1_000)) == .answer)
        #expect(state.phase(at: at(1_001)) == .stale)
        let second = try ticket(state.lookup(at: at(1_001)))
        // One refresh at a time: the others answer from the copy meanwhile.
        #expect(state.lookup(at: at(1_002)) == .answer)
        state.refreshed(second, revision: 8, startedAt: at(1_001))
        #expect(state.lookup(at: at(2_001)) == .answer)
        #expect(state.phase(at: at(2_002)) == .stale)
    }

    @Test func aFirstLookupWaitsForTheFirstCopy() throws {
        var state = MetadataCacheState(intervalMilliseconds: 1_000)
        let first = try ticket(state.lookup(at: at(0)))
        // No copy to answer from: this lookup reads too.
        #expect(try ticket(state.lookup(at: at(1))) == first)
    }

    @Test func confirmationCountsFromTheStartOfTheRefresh() throws {
        var state = MetadataCacheState(intervalMilliseconds: 1_000)
        let first = try ticket(state.lookup(at: at(0)))
        // A slow refresh (3 s): what it read is as of its start.
        state.refreshed(first, revision: 1, startedAt: at(0))
        #expect(state.phase(at: at(3_000)) == .stale)
        _ = try ticket(state.lookup(at: at(3_000)))
    }

    @Test func aWriteOfThisProcessMakesTheCopyStale() throws {
        var state = MetadataCacheState(intervalMilliseconds: 1_000)
        state.refreshed(try ticket(state.lookup(at: at(0))), revision: 1, startedAt: at(0))
        state.invalidate()
        #expect(state.phase(at: at(10)) == .stale)
        let during = try ticket(state.lookup(at: at(10)))
        // A write while that refresh runs: its result proves nothing about the write.
        state.invalidate()
        state.refreshed(during, revision: 2, startedAt: at(10))
        #expect(state.phase(at: at(20)) == .stale)
        let after = try ticket(state.lookup(at: at(20)))
        state.refreshed(after, revision: 3, startedAt: at(20))
        #expect(state.lookup(at: at(30)) == .answer)
    }

    @Test func anUnreachableStoreLeavesTheHeldCopyAnsweringAndIsRetriedEachInterval() throws {
        var state = MetadataCacheState(intervalMilliseconds: 1_000)
        state.refreshed(try ticket(state.lookup(at: at(0))), revision: 1, startedAt: at(0))
        let failing = try ticket(state.lookup(at: at(1_500)))
        state.refreshFailed(failing, startedAt: at(1_500))
        #expect(state.phase(at: at(1_600)) == .unreachable)
        #expect(state.lookup(at: at(1_600)) == .answerHeld)
        #expect(state.lookup(at: at(2_499)) == .answerHeld)
        let retry = try ticket(state.lookup(at: at(2_500)))
        // Others keep answering what the copy holds while the retry runs.
        #expect(state.lookup(at: at(2_501)) == .answerHeld)
        state.refreshFailed(retry, startedAt: at(2_500))
        #expect(state.lookup(at: at(3_000)) == .answerHeld)
        let back = try ticket(state.lookup(at: at(3_500)))
        state.refreshed(back, revision: 5, startedAt: at(3_500))
        #expect(state.phase(at: at(3_600)) == .fresh)
        #expect(state.lookup(at: at(3_600)) == .answer)
        #expect(state.revision == 5)
    }

    @Test func aMissIsCheckedAgainstTheStoreEvenWhileAnotherRefreshRuns() throws {
        var state = MetadataCacheState(intervalMilliseconds: 1_000)
        state.refreshed(try ticket(state.lookup(at: at(0))), revision: 1, startedAt: at(0))
        let check = try ticket(state.missed())
        let another = try ticket(state.missed())
        state.refreshed(check, revision: 2, startedAt: at(100))
        state.refreshed(another, revision: 2, startedAt: at(101))
        #expect(state.lookup(at: at(1_100)) == .answer)
        state.refreshFailed(try ticket(state.lookup(at: at(1_102))), startedAt: at(1_102))
        #expect(state.missed() == .answerHeld)
    }

    @Test func anAbandonedRefreshChangesNothing() throws {
        var state = MetadataCacheState(intervalMilliseconds: 1_000)
        state.refreshed(try ticket(state.lookup(at: at(0))), revision: 1, startedAt: at(0))
        let failing = try ticket(state.lookup(at: at(2_000)))
        state.refreshAbandoned(failing)
        #expect(state.phase(at: at(2_000)) == .stale)
        _ = try ticket(state.lookup(at: at(2_000)))
    }

    @Test(arguments: [0, -5])
    func aZeroIntervalChecksAtEveryLookup(interval: Int64) throws {
        var state = MetadataCacheState(intervalMilliseconds: interval)
        state.refreshed(try ticket(state.lookup(at: at(0))), revision: 1, startedAt: at(0))
        #expect(state.lookup(at: at(0)) == .answer)
        _ = try ticket(state.lookup(at: at(1)))
    }
}
