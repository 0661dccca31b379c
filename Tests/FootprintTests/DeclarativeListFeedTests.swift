import Foundation
import Testing

@testable import Footprint

/// A SwiftUI lazy list as the feed sees it: rows exist only while they overlap the visible area
/// and report their frames in the scroll view's coordinates; the feed's callbacks go to a real
/// ``ListExposureTracker``.
struct LazyListModel {
    var feed: DeclarativeListFeed
    var list: ExposureHarness
    let viewport: ListViewport
    /// Every row's frame in content coordinates (the content the container lays out lazily).
    let rows: [CGRect]
    /// Whether the scroll view reports its geometry and phases (iOS 18).
    let reportsGeometry: Bool
    private(set) var offset = CGPoint.zero
    private(set) var present: Set<Int> = []
    /// Rows the app removed from the content.
    private(set) var removed: Set<Int> = []

    init(axis: ListAxis = .vertical, rows count: Int = 100, viewport: ListViewport, reportsGeometry: Bool) {
        feed = DeclarativeListFeed(axis: axis)
        list = ExposureHarness(axis: axis)
        self.viewport = viewport
        self.reportsGeometry = reportsGeometry
        rows = (0..<count).map {
            axis == .vertical
                ? CGRect(x: 0, y: CGFloat($0) * 100, width: viewport.size.width, height: 100)
                : CGRect(x: CGFloat($0) * 150, y: 0, width: 150, height: viewport.size.height)
        }
    }

    /// The items the feed's callbacks carried (a whole layout counts each of its items).
    private(set) var itemsSent = 0

    mutating func forward(_ callbacks: [ListCallback]) {
        for callback in callbacks {
            switch callback {
            case .dataReloaded(let items), .layoutChanged(let items): itemsSent += items.count
            case .itemAppeared: itemsSent += 1
            default: break
            }
            list.send(callback)
        }
    }

    /// The list appears at the top.
    mutating func appear() {
        forward(feed.appeared())
        if reportsGeometry {
            forward(feed.geometryChanged(viewport: viewport, offset: offset))
        } else {
            forward(feed.sizeChanged(viewport.size))
        }
        layOut()
    }

    /// Moves the content to `newOffset` one display frame later.
    mutating func scroll(to newOffset: CGFloat, axis: ListAxis = .vertical, frame: Int64 = 16) {
        list.now = list.now.adding(milliseconds: frame)
        offset = axis == .vertical ? CGPoint(x: 0, y: newOffset) : CGPoint(x: newOffset, y: 0)
        if reportsGeometry { forward(feed.geometryChanged(viewport: viewport, offset: offset)) }
        layOut()
    }

    mutating func phase(_ activity: DeclarativeListFeed.Activity, after milliseconds: Int64 = 0) {
        list.now = list.now.adding(milliseconds: milliseconds)
        forward(feed.activityChanged(to: activity))
    }

    /// What the driver does when the recorder's deadline comes.
    mutating func tick(after milliseconds: Int64) {
        list.now = list.now.adding(milliseconds: milliseconds)
        forward(feed.pendingLayout())
        list.send(.tick)
    }

    /// The lazy container: creates the rows that overlap the visible area (they report their
    /// frames), moves the others, and drops those that left it.
    mutating func layOut() {
        let visible = CGRect(origin: offset, size: viewport.size)
        for (row, frame) in rows.enumerated() where !removed.contains(row) {
            if frame.maxX > visible.minX, frame.minX < visible.maxX, frame.maxY > visible.minY,
                frame.minY < visible.maxY
            {
                present.insert(row)
                forward(feed.itemReported(report(row)))
            } else if present.remove(row) != nil {
                forward(feed.itemDisappeared(id: "sku-\(row)"))
            }
        }
    }

    /// The app removes `row` from the content.
    mutating func remove(_ row: Int) {
        removed.insert(row)
        if present.remove(row) != nil { forward(feed.itemDisappeared(id: "sku-\(row)")) }
    }

    func report(_ row: Int) -> DeclarativeListFeed.ItemFrame {
        DeclarativeListFeed.ItemFrame(
            id: "sku-\(row)", position: ListIndexPath(section: 0, row: row),
            frame: rows[row].offsetBy(dx: -offset.x, dy: -offset.y))
    }

    var exposedRows: [Int] { list.exposedRows }
}

struct DeclarativeListFeedTests {
    static let phone = ExposureFixture.phone

    @Test func firstLayoutExposesTheVisibleRows() {
        var model = LazyListModel(viewport: Self.phone, reportsGeometry: true)
        model.appear()
        #expect(model.exposedRows == Array(0...9))
        #expect(
            model.list.decisions.allSatisfy {
                if case .exposure(let e) = $0 { e.trigger == .load } else { false }
            })
    }

    /// Rows the lazy container created and dropped during a fling stay in the layout: the
    /// fling's skips name them, in content coordinates.
    @Test func flingSkipsTheRowsTheContainerAlreadyDropped() throws {
        var model = LazyListModel(viewport: Self.phone, reportsGeometry: true)
        model.appear()
        model.list.clear()
        let dragBegan = model.list.now
        model.phase(.tracking)
        model.phase(.interacting)
        for y in [40, 120] as [CGFloat] { model.scroll(to: y) }
        model.phase(.decelerating)
        for y in [600, 1000, 1400, 1800, 2200, 2600, 3000, 3400, 3800, 4000] as [CGFloat] {
            model.scroll(to: y)
        }
        model.phase(.idle, after: 16)
        let skip = try #require(model.list.skips.first)
        #expect(model.list.skips.count == 1)
        // Wholly visible at release (120...1120): rows 2...10; at rest (4000...5000): 40...49.
        #expect(skip.items.map(\.indexPath.row) == Array(11...39))
        #expect(skip.items.allSatisfy { $0.frame.minY == CGFloat($0.indexPath.row) * 100 })
        #expect(skip.direction == .forward)
        #expect(skip.start == dragBegan)
        #expect(model.exposedRows == Array(40...49))
        // The container holds only the rows on screen; the layout every row passed.
        #expect(model.present == Set(40...49))
        #expect(model.feed.layoutItems.count == 50)
    }

    @Test func horizontalCarouselFlingsAlongX() throws {
        let viewport = ListViewport(size: CGSize(width: 375, height: 200))
        var model = LazyListModel(axis: .horizontal, rows: 60, viewport: viewport, reportsGeometry: true)
        model.appear()
        // 375 points of 150-point cards: cards 0 and 1 wholly visible.
        #expect(model.exposedRows == [0, 1])
        model.list.clear()
        model.phase(.interacting)
        model.scroll(to: 30, axis: .horizontal)
        model.phase(.decelerating)
        for x in Array(stride(from: 330, to: 3000, by: 300)) + [3000] as [CGFloat] {
            model.scroll(to: x, axis: .horizontal)
        }
        model.phase(.idle)
        let skip = try #require(model.list.skips.first)
        #expect(skip.axis == .horizontal)
        #expect(skip.direction == .forward)
        // On screen before: cards 0...2; wholly at release (30...405): card 1; swept up to 3375;
        // at rest on 3000...3375: 20 and 21 whole, 22 cut.
        #expect(skip.items.map(\.indexPath.row) == Array(3...19))
        #expect(model.exposedRows == [20, 21])
    }

    @Test func slowDragAndReleaseExposesAtRestAndSkipsNothing() {
        var model = LazyListModel(viewport: Self.phone, reportsGeometry: true)
        model.appear()
        model.list.clear()
        model.phase(.interacting)
        for y in stride(from: 100, through: 2500, by: 100) as StrideThrough<CGFloat> { model.scroll(to: y) }
        model.phase(.idle)
        #expect(model.list.skips.isEmpty)
        #expect(model.exposedRows == Array(25...34))
    }

    /// iOS 15–17: no geometry and no phases. The offset is estimated from the rows' frames, and
    /// exposure waits until the list has been still for the settle time.
    @Test func withoutScrollGeometryRowsAreExposedOnceTheListSettles() {
        var model = LazyListModel(viewport: Self.phone, reportsGeometry: false)
        model.appear()
        #expect(model.exposedRows == Array(0...9))
        model.list.clear()
        for y in stride(from: 150, through: 2050, by: 100) as StrideThrough<CGFloat> { model.scroll(to: y) }
        #expect(model.feed.offset == CGPoint(x: 0, y: 2050))
        #expect(model.exposedRows.isEmpty)
        #expect(model.list.tracker.nextDeadline == model.list.now.adding(milliseconds: 150))
        model.tick(after: 150)
        // 2050...3050: rows 21...29 wholly visible.
        #expect(model.exposedRows == Array(21...29))
        #expect(model.list.skips.isEmpty)
        #expect(
            model.list.decisions.allSatisfy {
                if case .exposure(let e) = $0 { e.trigger == .rest } else { false }
            })
    }

    /// A row that disappears while wholly visible was removed from the content: it leaves the
    /// layout and is neither exposed nor skipped afterwards.
    @Test func aRowRemovedWhileVisibleLeavesTheLayout() {
        var model = LazyListModel(viewport: Self.phone, reportsGeometry: true)
        model.appear()
        model.remove(4)
        #expect(!model.feed.layoutItems.contains { $0.itemId == "sku-4" })
        // A fast drag drops row 0 in one frame, though wholly visible at its last report: it
        // scrolled away, and stays.
        model.phase(.interacting)
        model.scroll(to: 150)
        model.phase(.idle)
        #expect(model.feed.layoutItems.contains { $0.itemId == "sku-0" })
        #expect(!model.feed.layoutItems.contains { $0.itemId == "sku-4" })
    }

    /// A jump without scroll phases where the rows' frames arrive before the new offset: the
    /// list is judged once it settles, on the corrected frames, so nothing is exposed by the
    /// half-updated layout.
    @Test func framesBeforeTheOffsetAreJudgedAfterSettling() {
        var model = LazyListModel(viewport: Self.phone, reportsGeometry: true)
        model.appear()
        model.list.clear()
        // The app jumps to 3000: first the rows report their new frames...
        let target = CGPoint(x: 0, y: 3000)
        for row in 0..<10 {
            var report = model.report(row)
            report.frame = model.rows[row].offsetBy(dx: 0, dy: -target.y)
            model.forward(model.feed.itemReported(report))
        }
        #expect(model.exposedRows.isEmpty)
        // ...then the geometry and the rows at 3000 arrive.
        model.scroll(to: 3000, frame: 0)
        #expect(model.exposedRows.isEmpty)
        model.tick(after: 150)
        #expect(model.exposedRows == Array(30...39))
    }

    /// On iOS 18 the size may come before the first geometry report: the list is announced
    /// with it, then moves to the reported coordinates (insets under the bars) and is judged
    /// once it settles there, without exposing anything twice.
    @Test func sizeFirstThenGeometryMovesToTheReportedCoordinates() {
        // 100 points under a bar: the content starts below it, at offset -100.
        let viewport = ListViewport(size: CGSize(width: 375, height: 1000), insets: ListInsets(top: 100))
        var feed = DeclarativeListFeed()
        var list = ExposureHarness()
        func send(_ callbacks: [ListCallback]) { for callback in callbacks { list.send(callback) } }
        send(feed.appeared())
        send(feed.sizeChanged(viewport.size))
        // Rows 0...9 drawn from y = 100 in the scroll view; row 9 ends at 1100, below it.
        for row in 0..<10 {
            send(
                feed.itemReported(
                    DeclarativeListFeed.ItemFrame(
                        id: "sku-\(row)", position: ListIndexPath(section: 0, row: row),
                        frame: CGRect(x: 0, y: 100 + CGFloat(row) * 100, width: 375, height: 100))))
        }
        #expect(list.exposedRows == Array(0...8))
        send(feed.geometryChanged(viewport: viewport, offset: CGPoint(x: 0, y: -100)))
        #expect(feed.layoutItems.first { $0.itemId == "sku-0" }?.frame.minY == 0)
        #expect(list.tracker.offset == CGPoint(x: 0, y: -100))
        list.send(.tick, after: 150)
        // Under the bar, 900 points show rows 0...8 again: counted once.
        #expect(list.exposedRows == Array(0...8))
    }

    @Test func theLayoutKeepsAtMostTheMaximumItemsNearestTheViewport() {
        var model = LazyListModel(viewport: Self.phone, reportsGeometry: true)
        model.feed.maximumItems = 25
        model.appear()
        model.phase(.interacting)
        for y in stride(from: 100, through: 5000, by: 100) as StrideThrough<CGFloat> { model.scroll(to: y) }
        model.phase(.idle)
        let rows = Set(model.feed.layoutItems.map(\.indexPath.row))
        // Past 25, the farthest leave down to 23 (a tenth of the maximum more than needed).
        #expect((23...25).contains(rows.count))
        #expect(rows.isSuperset(of: Set(50...59)))
        #expect(rows.allSatisfy { $0 >= 35 })
    }

    /// A row the container shows for the first time joins the tracker's layout alone: a
    /// 500-row list scrolled through sends each row about once, not the whole known layout per
    /// new row (125,000 items, O(n² log n) sorting).
    @Test(arguments: [true, false])
    func eachNewRowIsSentAloneNotTheWholeLayout(reportsGeometry: Bool) throws {
        var model = LazyListModel(rows: 500, viewport: Self.phone, reportsGeometry: reportsGeometry)
        model.appear()
        if reportsGeometry { model.phase(.interacting) }
        for y in stride(from: 100, through: 49_000, by: 100) as StrideThrough<CGFloat> { model.scroll(to: y) }
        if reportsGeometry { model.phase(.idle) } else { model.tick(after: 200) }
        #expect(model.itemsSent < 3 * 500)
        #expect(model.feed.layoutItems.count == 500)
        // The tracker's layout is the feed's, in order, as one built from scratch.
        let tracker = model.list.tracker
        let rows = tracker.layout.items.map(\.indexPath.row)
        #expect(rows == Array(0..<500))
    }
}
