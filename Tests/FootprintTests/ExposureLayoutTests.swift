import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// Geometry: grids, horizontal lists, insets, sections, and the layout index.
struct ExposureLayoutTests {
    typealias F = ExposureFixture

    @Test func gridExposesWholeLinesAndSkipsWholeLines() throws {
        // Three columns of 115 × 150 with 10 points between: a line every 160 points.
        let items = SimulatedLayout.grid(
            itemsPerSection: [90], columns: 3, itemSize: CGSize(width: 115, height: 150), spacing: 10)
        var list = ExposureHarness()
        list.show(items, viewport: F.phone)
        // 0...1000: lines 0...5 end at 950; line 6 (960...1110) is cut.
        #expect(list.exposedRows == Array(0..<18))
        list.clear()
        list.drag(through: [40], fling: [1500, 2900, 3200])
        let skip = try #require(list.skips.first)
        // Line 6 (960...1110, items 18...20) was on screen, cut, at the first rest; at rest on
        // 3200...4200, lines 20...25 are whole and line 26 is cut.
        #expect(skip.items.map(\.indexPath.row) == Array(21..<60))
        #expect(list.exposedRows == Array(60..<78))
    }

    @Test func horizontalListUsesTheXAxis() throws {
        let items = SimulatedLayout.table(
            axis: .horizontal, rowsPerSection: [40], rowLength: 150, crossLength: 200)
        let viewport = ListViewport(size: CGSize(width: 400, height: 200))
        var list = ExposureHarness(axis: .horizontal)
        list.show(items, viewport: viewport)
        #expect(list.exposedRows == [0, 1])
        list.clear()
        list.send(.willBeginDragging)
        list.send(.didScroll(offset: CGPoint(x: 30, y: 0)), after: 8)
        list.send(.didEndDragging(willDecelerate: true))
        for x in [600, 1800, 3000] as [CGFloat] {
            list.send(.didScroll(offset: CGPoint(x: x, y: 0)), after: 8)
        }
        list.send(.didEndDecelerating, after: 8)
        let skip = try #require(list.skips.first)
        #expect(skip.axis == .horizontal)
        #expect(skip.direction == .forward)
        // Before: 0...400 touches items 0...2; after: 3000...3400 items 20...22.
        #expect(skip.items.map(\.indexPath.row) == Array(3...19))
        #expect(list.exposedRows == [20, 21])
    }

    @Test func insetsHideWhatIsUnderTheBars() {
        // A 100-point navigation bar and an 80-point tab bar: 820 visible points.
        let viewport = ListViewport(
            size: CGSize(width: 375, height: 1000), insets: ListInsets(top: 100, bottom: 80))
        var list = ExposureHarness()
        list.show(F.table(), viewport: viewport, offset: F.point(-100))
        // Content 0...820 is visible: rows 0...7, row 8 is cut by the tab bar.
        #expect(list.exposedRows == Array(0...7))
    }

    @Test func sectionsWithHeadersAreCrossedByOneFling() throws {
        let items = SimulatedLayout.table(
            rowsPerSection: [5, 12, 3, 30], rowLength: 100, crossLength: 375, headerLength: 40)
        var list = ExposureHarness()
        list.show(items, viewport: F.phone)
        list.clear()
        list.drag(through: [20], fling: [1000, 2200, 2600])
        let skip = try #require(list.skips.first)
        let skipped = skip.items.map { "\($0.indexPath)" }
        // Section 0 (40...540), section 1 (580...1780), section 2 (1820...2120), section 3 from
        // 2160; 1:4 (980...1080) was cut at the first rest, 3:4 (2560...2660) is cut at the last.
        #expect(skipped.first == "1:5")
        #expect(skipped.contains("2:0") && skipped.contains("2:2") && skipped.contains("3:0"))
        #expect(skipped.last == "3:3")
    }

    @Test(arguments: 0..<40)
    func layoutIndexFindsExactlyTheOverlappingItems(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let items = (0..<Int.random(in: 0...60, using: &random)).map { index in
            ListItem(
                indexPath: ListIndexPath(section: 0, row: index),
                frame: CGRect(
                    x: CGFloat.random(in: 0...300, using: &random),
                    y: CGFloat.random(in: 0...5000, using: &random),
                    width: CGFloat.random(in: 1...200, using: &random),
                    height: CGFloat.random(in: 1...700, using: &random)))
        }
        let layout = ListLayout(axis: .vertical, items: items)
        let rect = CGRect(x: 0, y: CGFloat.random(in: -500...5000, using: &random), width: 375, height: 800)
        var found: [ListIndexPath] = []
        layout.forEachIndex(overlapping: rect) { found.append(layout.items[$0].indexPath) }
        let expected = items.filter { $0.frame.maxY > rect.minY && $0.frame.minY < rect.maxY }.map(
            \.indexPath)
        #expect(Set(found) == Set(expected))
        #expect(found.count == expected.count)
    }

    @Test func visibleRatioIsTheShareOfTheAreaInside() {
        let item = ListItem(
            indexPath: ListIndexPath(section: 0, row: 0), frame: CGRect(x: 0, y: 0, width: 100, height: 100))
        #expect(item.visibleRatio(in: CGRect(x: 0, y: 50, width: 375, height: 500)) == 0.5)
        #expect(item.visibleRatio(in: CGRect(x: 50, y: 50, width: 375, height: 500)) == 0.25)
        #expect(item.visibleRatio(in: CGRect(x: 0, y: 100, width: 375, height: 500)) == 0)
        let empty = ListItem(indexPath: ListIndexPath(section: 0, row: 1), frame: .zero)
        #expect(empty.visibleRatio(in: CGRect(x: 0, y: 0, width: 10, height: 10)) == 0)
    }

    /// Items inserted one by one, in any order, make the layout a sort of all of them makes:
    /// same order (ties by index path), same items found in any rect.
    @Test(arguments: 0..<25)
    func insertingItemsOneByOneMatchesSortingThemAll(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let axis: ListAxis = Bool.random(using: &random) ? .vertical : .horizontal
        let items = SimulatedLayout.grid(
            axis: axis,
            itemsPerSection: [
                Int.random(in: 0...60, using: &random), Int.random(in: 0...60, using: &random),
            ],
            columns: Int.random(in: 1...3, using: &random),
            itemSize: CGSize(width: CGFloat(Int.random(in: 20...200, using: &random)), height: 90),
            spacing: 4,
            headerLength: 20
        ).shuffled(using: &random)
        var incremental = ListLayout.empty(axis)
        for item in items { incremental.insert(item) }
        let sorted = ListLayout(axis: axis, items: items)
        #expect(incremental == sorted)
        let rect = CGRect(
            x: CGFloat(Int.random(in: 0...2000, using: &random)),
            y: CGFloat(Int.random(in: 0...2000, using: &random)),
            width: 400, height: 400)
        var found: [[Int]] = [[], []]
        incremental.forEachIndex(overlapping: rect) { found[0].append($0) }
        sorted.forEachIndex(overlapping: rect) { found[1].append($0) }
        #expect(found[0] == found[1])
    }
}
