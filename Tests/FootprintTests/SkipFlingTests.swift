import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// Flings the article's index arithmetic gets wrong: bounces, reversals, reloads, interruptions.
struct SkipFlingTests {
    typealias F = ExposureFixture

    @Test func bounceAtTheEndSkipsOnlyWhatWasPassed() throws {
        let items = F.table(rows: 60)
        var list = ExposureHarness()
        list.show(items, viewport: F.phone)
        var simulator = ScrollSimulator(axis: .vertical, viewport: F.phone, items: items, time: list.now)
        let callbacks = simulator.perform(.fling(velocity: 12_000))
        let offsets = callbacks.compactMap { if case .didScroll(let o) = $0.callback { o.y } else { nil } }
        #expect(offsets.max()! > 5000)  // it overshot the end...
        #expect(simulator.offset.y == 5000)  // ...and came back
        list.play(callbacks)
        let skip = try #require(list.skips.first)
        // Row 10 was wholly on screen when the finger lifted (the flick dragged it up first).
        #expect(skip.items.map(\.indexPath.row) == Array(11..<50))
        #expect(skip.direction == .forward)
        #expect(list.exposedRows.suffix(10) == Array(50..<60))
    }

    @Test func flingCaughtAndFlungBackCountsBothWays() throws {
        var list = ExposureHarness()
        list.show(F.table(rows: 100), viewport: F.phone, offset: F.point(3000))
        list.clear()
        // Forward to 6000, caught, flung back to 1000: one motion from rest to rest.
        list.drag(through: [3050], fling: [])
        list.clear()
        list.send(.willBeginDragging)
        list.send(.didScroll(offset: F.point(3100)), after: 8)
        list.send(.didEndDragging(willDecelerate: true))
        for y in [4000, 5000, 6000] as [CGFloat] { list.send(.didScroll(offset: F.point(y)), after: 8) }
        list.send(.willBeginDragging, after: 8)
        list.send(.didScroll(offset: F.point(5950)), after: 8)
        list.send(.didEndDragging(willDecelerate: true))
        for y in [4000, 2000, 1000] as [CGFloat] { list.send(.didScroll(offset: F.point(y)), after: 8) }
        list.send(.didEndDecelerating, after: 8)
        let skip = try #require(list.skips.first)
        #expect(list.skips.count == 1)
        #expect(skip.direction == .backward)
        // Rest before: 3050 (rows 30...40); after: 1000 (rows 10...19); swept 1000...7000;
        // wholly on screen at the two releases: 31...40 (3100) and 60...68 (5950).
        #expect(skip.items.map(\.indexPath.row) == Array(20...29) + Array(41...59) + [69])
    }

    @Test func reloadInTheMiddleOfAFlingSettlesTheOldDataFirst() throws {
        var list = ExposureHarness()
        list.show(F.table(rows: 100, ids: true), viewport: F.phone)
        list.clear()
        list.send(.willBeginDragging)
        list.send(.didScroll(offset: F.point(40)), after: 8)
        list.send(.didEndDragging(willDecelerate: true))
        list.send(.didScroll(offset: F.point(2000)), after: 8)
        // New data arrives while flying: 2000...3000 shows its rows 20...30.
        let fresh = SimulatedLayout.table(
            rowsPerSection: [100], rowLength: 100, crossLength: 375, itemId: { "fresh-\($0.row)" })
        list.send(.dataReloaded(items: fresh), after: 4)
        #expect(list.exposedIds.isEmpty)
        let first = try #require(list.skips.first)
        // Old rows 10...19 were swept; 20...30 were on screen when the data was replaced.
        #expect(first.items.compactMap(\.itemId) == (10...19).map { "sku-0-\($0)" })
        list.send(.didScroll(offset: F.point(4000)), after: 8)
        list.send(.didScroll(offset: F.point(4500)), after: 8)
        list.send(.didEndDecelerating, after: 8)
        let second = try #require(list.skips.last)
        #expect(list.skips.count == 2)
        // New rows from the reload point on: 20...44, minus 45...54 on screen at rest.
        #expect(second.items.compactMap(\.itemId) == (20...44).map { "fresh-\($0)" })
        #expect(second.start == first.end)
        #expect(list.exposedIds == (45...54).map { "fresh-\($0)" })
    }

    @Test func disappearingMidFlingReportsTheSweptItems() throws {
        var list = ExposureHarness()
        list.show(F.table(), viewport: F.phone)
        list.clear()
        list.send(.willBeginDragging)
        list.send(.didScroll(offset: F.point(30)), after: 8)
        list.send(.didEndDragging(willDecelerate: true))
        list.send(.didScroll(offset: F.point(2500)), after: 8)
        list.send(.disappeared, after: 8)
        let skip = try #require(list.skips.first)
        #expect(skip.items.map(\.indexPath.row) == Array(10...24))
        #expect(list.exposedRows.isEmpty)
        // Nothing more comes from a list that is gone.
        list.send(.didScroll(offset: F.point(3000)), after: 8)
        list.send(.didEndDecelerating)
        #expect(list.skips.count == 1)
    }

    @Test func itemsExposedByDwellWhileFlyingAreNotSkipped() throws {
        var list = ExposureHarness(configuration: ExposureConfiguration(minDwellMilliseconds: 300))
        list.show(F.table(), viewport: F.phone)
        list.send(.tick, after: 300)
        list.clear()
        list.send(.willBeginDragging)
        list.send(.didScroll(offset: F.point(40)), after: 8)
        list.send(.didEndDragging(willDecelerate: true))
        list.send(.didScroll(offset: F.point(2000)), after: 8)
        // The list crawls around 2000 long enough for rows 20...29 to be seen...
        list.send(.didScroll(offset: F.point(2000)), after: 150)
        list.send(.didScroll(offset: F.point(2000)), after: 150)
        #expect(list.exposedRows == Array(20...29))
        // ...then flies on.
        list.send(.didScroll(offset: F.point(4000)), after: 8)
        list.send(.didEndDecelerating, after: 8)
        let skip = try #require(list.skips.first)
        #expect(skip.items.map(\.indexPath.row) == Array(10...19) + Array(30...39))
    }

    @Test func skipsAreCappedButCountedInFull() throws {
        var list = ExposureHarness(configuration: ExposureConfiguration(maximumSkipsPerFling: 5))
        list.show(F.table(rows: 1000), viewport: F.phone)
        list.drag(through: [10], fling: [20_000, 40_000, 50_000])
        let skip = try #require(list.skips.first)
        #expect(skip.items.map(\.indexPath.row) == Array(10..<15))
        #expect(skip.skippedCount == 490)
    }

    @Test func skipsCanBeTurnedOff() {
        var list = ExposureHarness(configuration: ExposureConfiguration(tracksSkips: false))
        list.show(F.table(), viewport: F.phone)
        list.drag(through: [10], fling: [3000, 5000])
        #expect(list.skips.isEmpty)
        #expect(list.exposedRows.suffix(10) == Array(50...59))
    }

    @Test func programmaticMovesRestAfterAnimationOrSettling() {
        var list = ExposureHarness()
        list.show(F.table(), viewport: F.phone)
        list.clear()
        // setContentOffset(animated: true): frames, then didEndScrollingAnimation.
        var simulator = ScrollSimulator(axis: .vertical, viewport: F.phone, items: F.table(), time: list.now)
        list.play(simulator.perform(.animatedScroll(to: 1000)))
        #expect(list.exposedRows == Array(10...19))
        // setContentOffset(animated: false): one frame, no end callback; rest after settling.
        list.clear()
        list.send(.didScroll(offset: F.point(2000)), after: 500)
        #expect(list.tracker.nextDeadline == list.now.adding(milliseconds: 150))
        list.send(.tick, after: 149)
        #expect(list.exposedRows.isEmpty)
        list.send(.tick, after: 1)
        #expect(list.exposedRows == Array(20...29))
        #expect(list.skips.isEmpty)
        #expect(list.tracker.phase == .idle)
    }

    @Test func scrollToTopIsARestPoint() {
        var list = ExposureHarness()
        list.show(F.table(), viewport: F.phone, offset: F.point(4000))
        list.clear()
        for y in [3000, 1500, 0] as [CGFloat] { list.send(.didScroll(offset: F.point(y)), after: 8) }
        list.send(.didScrollToTop, after: 8)
        #expect(list.exposedRows == Array(0...9))
        #expect(list.skips.isEmpty)
    }
}
