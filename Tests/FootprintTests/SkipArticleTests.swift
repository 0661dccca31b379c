import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// The cases of the list-exposure article, hand-written and then played by the scroll simulator.
struct SkipArticleTests {
    typealias F = ExposureFixture

    @Test func firstLoadExposesEveryFullyVisibleItem() {
        var list = ExposureHarness()
        list.show(F.table(), viewport: F.phone, offset: F.point(50))
        // 50...1050 shows rows 0 (cut) to 10 (cut): rows 1...9 are fully visible.
        #expect(list.exposedRows == Array(1...9))
        #expect(list.skips.isEmpty)
        #expect(
            list.decisions.allSatisfy { if case .exposure(let e) = $0 { e.trigger == .load } else { false } })
    }

    @Test func slowDragAndReleaseSkipsNothing() {
        var list = ExposureHarness()
        list.show(F.table(), viewport: F.phone)
        list.clear()
        list.drag(through: [400, 1200, 2500])
        #expect(list.skips.isEmpty)
        // At rest on 2500...3500: rows 25...34; the rows passed under the finger are neither.
        #expect(list.exposedRows == Array(25...34))
    }

    @Test func shortFlingStoppingWithinAScreenSkipsNothing() {
        var list = ExposureHarness()
        list.show(F.table(), viewport: F.phone)
        list.clear()
        list.drag(through: [20, 60], fling: [200, 400, 550, 600])
        #expect(list.skips.isEmpty)
        #expect(list.exposedRows == Array(10...15))
    }

    @Test func longFlingSkipsTheItemsStrictlyBetweenTheTwoRestViews() throws {
        var list = ExposureHarness()
        list.show(F.table(), viewport: F.phone)
        list.clear()
        let dragBegan = list.now
        list.drag(through: [30, 80], fling: [900, 1800, 2800, 3400, 3550])
        let skip = try #require(list.skips.first)
        #expect(list.skips.count == 1)
        // Before: rows 0...9. After, on 3550...4550: rows 35 (cut) ... 45 (cut).
        #expect(skip.items.map(\.indexPath.row) == Array(10...34))
        #expect(skip.skippedCount == 25)
        #expect(skip.direction == .forward)
        #expect(skip.start == dragBegan)
        #expect(skip.end == list.now)
        #expect(list.exposedRows == Array(36...44))
    }

    /// The article stamps the start of a fling in `scrollViewWillBeginDragging`, not at release.
    @Test func flingStartsWhenTheDragBegins() throws {
        var list = ExposureHarness()
        list.show(F.table(), viewport: F.phone)
        list.clear()
        let dragBegan = list.now.adding(milliseconds: 40)
        list.send(.willBeginDragging, after: 40)
        list.send(.didScroll(offset: F.point(100)), after: 120)
        list.send(.didScroll(offset: F.point(300)), after: 120)
        let released = list.now.adding(milliseconds: 30)
        list.send(.didEndDragging(willDecelerate: true), after: 30)
        list.send(.willBeginDecelerating)
        list.send(.didScroll(offset: F.point(4000)), after: 400)
        list.send(.didEndDecelerating, after: 400)
        let skip = try #require(list.skips.first)
        #expect(skip.start == dragBegan)
        #expect(skip.start < released)
        #expect(skip.end == list.now)
    }

    /// A row wholly on screen when the finger lifts was seen there, even though the fling then
    /// carries it away before any rest point; a row only partly on screen then was not.
    @Test func itemsWhollyVisibleAtReleaseAreNotSkipped() throws {
        var list = ExposureHarness()
        list.show(F.table(), viewport: F.phone)
        list.clear()
        // Dragged by hand to 1550 (rows 16...24 whole, 15 and 25 cut), flung on to 4000.
        list.drag(through: [500, 1000, 1550], fling: [2500, 3500, 4000])
        let skip = try #require(list.skips.first)
        #expect(list.skips.count == 1)
        // Swept 1550...5000 (rows 15...49); on screen at rest: 40...49.
        #expect(skip.items.map(\.indexPath.row) == [15] + Array(25...39))
        #expect(skip.skippedCount == 16)
        #expect(list.exposedRows == Array(40...49))
    }

    @Test func backAndForthDragTakesTheDirectionFromTheNetChange() throws {
        var list = ExposureHarness()
        list.show(F.table(), viewport: F.phone)
        list.clear()
        // Out to 3000 under the finger, back to 2700, released backwards, stops at 1500: every
        // late sample moves backwards, yet the list ended 1500 points further than it started.
        list.drag(through: [1000, 3000, 2800, 2700], fling: [2400, 2000, 1700, 1500])
        let skip = try #require(list.skips.first)
        #expect(skip.direction == .forward)
        // Swept while flying: 1500...3700 → rows 15...36; rows 15...24 are on screen at rest,
        // rows 27...36 were wholly on screen when the finger lifted at 2700.
        #expect(skip.items.map(\.indexPath.row) == Array(25...26))
    }

    @Test func backAndForthEndingBehindTheStartIsBackward() throws {
        var list = ExposureHarness()
        list.show(F.table(), viewport: F.phone, offset: F.point(5000))
        list.clear()
        list.drag(through: [5400, 5200], fling: [4600, 3900, 3000, 2900])
        let skip = try #require(list.skips.first)
        #expect(skip.direction == .backward)
        // Rest before: 50...59; after: 29...38; swept from release (5200) to 2900: rows 29...61,
        // of which 52...61 were wholly on screen at the release.
        #expect(skip.items.map(\.indexPath.row) == Array(39...49))
    }

    @Test(arguments: ReadingStyle.allCases, 0..<3 as Range<UInt64>)
    func simulatedReadersMatchTheArticle(style: ReadingStyle, seed: UInt64) {
        let items = F.table(rows: 200)
        var list = ExposureHarness()
        list.show(items, viewport: F.phone)
        var simulator = ScrollSimulator(axis: .vertical, viewport: F.phone, items: items, time: list.now)
        var random = SeededRandom(seed: seed)
        list.play(
            simulator.perform(style.gestures(steps: 5, pageLength: simulator.pageLength, using: &random)))
        #expect(Set(list.exposedRows).count == list.exposedRows.count)
        switch style {
        case .slowReader:
            // Reads everything it passes, skips nothing.
            #expect(list.skips.isEmpty)
            #expect(list.exposedRows == Array(0...list.exposedRows.max()!))
        case .fastFlinger:
            #expect(list.skips.count == 5)
            #expect(list.skips.allSatisfy { $0.direction == .forward && $0.skippedCount > 0 })
        case .pageFlipper:
            // Each flip moves exactly one screen: every row is seen at rest, none is skipped.
            #expect(list.skips.isEmpty)
            #expect(list.exposedRows == Array(0..<60))
        }
    }

    @Test(arguments: [3000, 6000, 9000, 20_000] as [CGFloat])
    func longSimulatedFlingSkipsWhatTheArticleArithmeticSkips(velocity: CGFloat) throws {
        let items = F.table(rows: 300)
        var list = ExposureHarness()
        list.show(items, viewport: F.phone)
        var simulator = ScrollSimulator(axis: .vertical, viewport: F.phone, items: items, time: list.now)
        let callbacks = simulator.perform(.fling(velocity: velocity))
        var release: CGFloat = 0
        for timed in callbacks {
            if case .didEndDragging(true) = timed.callback { release = list.tracker.offset.y }
            list.send(
                timed.callback, after: timed.time.millisecondsSince1970 - list.now.millisecondsSince1970)
        }
        let end = simulator.offset.y
        let skip = try #require(list.skips.first)
        // The article: from the row after the bottom one seen when the finger lifted (the first
        // row not wholly inside 0...1000 shifted by the release offset) to the row before the
        // new top.
        let firstUnseen = Int((release + 1000) / 100)
        let newTop = Int(end / 100)
        #expect(skip.items.map(\.indexPath.row) == Array(firstUnseen..<newTop))
    }
}
