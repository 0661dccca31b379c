import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// Dwell and visible-ratio thresholds, background pauses, repeat policies and item identity.
struct ExposurePolicyTests {
    typealias F = ExposureFixture

    static let viewability = ExposureConfiguration(minVisibleRatio: 0.5, minDwellMilliseconds: 1000)

    @Test func dwellExposesAfterTheItemStaysVisibleLongEnough() {
        var list = ExposureHarness(configuration: Self.viewability)
        list.show(F.table(), viewport: F.phone, offset: F.point(50))
        #expect(list.exposedRows.isEmpty)
        #expect(list.tracker.nextDeadline == list.now.adding(milliseconds: 1000))
        list.send(.tick, after: 999)
        #expect(list.exposedRows.isEmpty)
        list.send(.tick, after: 1)
        // Half of row 0 and of row 10 is visible: 0.5 is enough.
        #expect(list.exposedRows == Array(0...10))
        #expect(
            list.decisions.allSatisfy {
                if case .exposure(let e) = $0 {
                    e.trigger == .dwell && e.dwellMilliseconds == 1000
                } else {
                    false
                }
            })
        #expect(list.tracker.nextDeadline == nil)
    }

    @Test func dwellTimerRestartsWhenTheItemDropsBelowTheRatio() {
        var list = ExposureHarness(configuration: Self.viewability)
        list.show(F.table(), viewport: F.phone)
        list.send(.willBeginDragging, after: 600)
        // Row 0 drops to 40 % visible, then comes back: its timer starts again.
        list.send(.didScroll(offset: F.point(60)), after: 8)
        list.send(.didScroll(offset: F.point(0)), after: 8)
        list.send(.didEndDragging(willDecelerate: false))
        list.send(.tick, after: 400)
        #expect(!list.exposedRows.contains(0))
        #expect(list.exposedRows.contains(1))
        list.send(.tick, after: 600)
        #expect(list.exposedRows.contains(0))
    }

    @Test func itemsFlownPastDuringDwellAreNotExposed() {
        var list = ExposureHarness(configuration: Self.viewability)
        list.show(F.table(rows: 300), viewport: F.phone)
        list.send(.tick, after: 1000)
        list.clear()
        list.drag(through: [40], fling: (1...30).map { CGFloat($0) * 150 })
        list.send(.tick, after: 1000)
        // Only rows on screen at the end (4500...5500: rows 45...54, half of none cut) count.
        #expect(list.exposedRows == Array(45...54))
        #expect(list.skippedRows == Array(10...44))
    }

    @Test func backgroundPausesTheDwellTimer() {
        var list = ExposureHarness(configuration: Self.viewability)
        list.show(F.table(), viewport: F.phone)
        list.send(.appDidEnterBackground, after: 700)
        #expect(list.tracker.nextDeadline == nil)
        list.send(.tick, after: 60_000)
        #expect(list.exposedRows.isEmpty)
        list.send(.appWillEnterForeground, after: 0)
        #expect(list.tracker.nextDeadline == list.now.adding(milliseconds: 300))
        list.send(.tick, after: 299)
        #expect(list.exposedRows.isEmpty)
        list.send(.tick, after: 1)
        #expect(list.exposedRows == Array(0...9))
    }

    @Test func withoutDwellNothingIsExposedWhileInTheBackground() {
        var list = ExposureHarness()
        list.show(F.table(), viewport: F.phone)
        list.clear()
        list.send(.appDidEnterBackground)
        list.send(.dataReloaded(items: F.table(rows: 50, ids: true)))
        #expect(list.exposedRows.isEmpty)
        list.send(.appWillEnterForeground, after: 5000)
        #expect(list.exposedIds == (0...9).map { "sku-0-\($0)" })
        list.send(.appDidEnterBackground, after: 100)
        list.send(.appWillEnterForeground, after: 100)
        #expect(list.exposedIds.count == 10)
    }

    @Test func oncePerPageViewCountsAgainOnlyAfterTheListReappears() {
        var list = ExposureHarness()
        list.show(F.table(), viewport: F.phone)
        list.drag(through: [500])
        list.drag(through: [0])
        #expect(list.exposedRows == Array(0...9) + Array(10...14))
        list.clear()
        list.send(.disappeared)
        list.send(.appeared(viewport: F.phone, offset: .zero))
        #expect(list.exposedRows == Array(0...9))
    }

    @Test func everyReentryCountsEachReturnIntoView() {
        var list = ExposureHarness(configuration: ExposureConfiguration(repeatPolicy: .everyReentry))
        list.show(F.table(), viewport: F.phone)
        list.clear()
        // Staying on screen between rests is not a re-entry...
        list.drag(through: [0, 0])
        #expect(list.exposedRows.isEmpty)
        // ...leaving and coming back, even without resting away, is.
        list.drag(through: [300, 600, 300, 0])
        #expect(list.exposedRows == Array(0...5))
    }

    @Test func oncePerSessionSurvivesPageViewsUntilANewSession() {
        var list = ExposureHarness(configuration: ExposureConfiguration(repeatPolicy: .oncePerSession))
        list.show(F.table(), viewport: F.phone)
        list.send(.disappeared)
        list.send(.appeared(viewport: F.phone, offset: .zero))
        #expect(list.exposedRows == Array(0...9))
        list.send(.sessionStarted)
        list.send(.disappeared)
        list.send(.appeared(viewport: F.phone, offset: .zero))
        #expect(list.exposedRows == Array(0...9) + Array(0...9))
    }

    @Test(arguments: [ExposureRepeatPolicy.oncePerPageView, .everyReentry, .oncePerSession])
    func everyPolicyCountsAnItemOnceWhileItStaysOnScreen(policy: ExposureRepeatPolicy) {
        var list = ExposureHarness(configuration: ExposureConfiguration(repeatPolicy: policy))
        // At 50, rows 1...9 are whole with 50 points to spare at each end.
        list.show(F.table(), viewport: F.phone, offset: F.point(50))
        for _ in 0..<5 { list.drag(through: [90, 10, 50]) }
        list.send(.layoutChanged(items: F.table()))
        #expect(list.exposedRows == Array(1...9))
    }

    @Test func reorderedItemsKeepTheirBusinessIdentity() {
        var list = ExposureHarness()
        let items = F.table(rows: 30, ids: true)
        list.show(items, viewport: F.phone)
        // The feed is refreshed with the same products in reverse order, plus two new ones on top.
        let reversed = Array(items.reversed())
        let refreshed = SimulatedLayout.table(
            rowsPerSection: [32], rowLength: 100, crossLength: 375,
            itemId: { $0.row < 2 ? "new-\($0.row)" : reversed[$0.row - 2].itemId })
        list.clear()
        list.send(.dataReloaded(items: refreshed))
        #expect(list.exposedIds == ["new-0", "new-1"] + (22...29).reversed().map { "sku-0-\($0)" })
        // Scrolling to where the first products now are does not count them twice.
        list.clear()
        list.drag(through: [2200])
        #expect(list.exposedIds.isEmpty)
    }

    @Test func positionIdentityIsUsedWithoutABusinessId() throws {
        var list = ExposureHarness()
        list.show(F.table(rows: 30), viewport: F.phone)
        list.clear()
        list.send(.dataReloaded(items: F.table(rows: 30)))
        #expect(list.exposedIds.isEmpty)
        list.drag(through: [100])
        let exposure = try #require(list.decisions.first)
        guard case .exposure(let e) = exposure else { return #expect(Bool(false)) }
        #expect(e.item.wireItemId == "0:10")
    }

    @Test(arguments: [-1.0, 0.0, .nan, 3.0])
    func nonsenseRatiosFallBackToSaneBounds(ratio: Double) {
        var list = ExposureHarness(configuration: ExposureConfiguration(minVisibleRatio: ratio))
        list.show(F.table(), viewport: F.phone, offset: F.point(50))
        let rows = list.exposedRows
        #expect(rows == (ratio > 1 || ratio.isNaN ? Array(1...9) : Array(0...10)))
    }
}
