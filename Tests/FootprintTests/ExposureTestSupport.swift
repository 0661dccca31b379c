import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// A list model with a test clock: sends callbacks at given milliseconds and keeps what came out.
struct ExposureHarness {
    var tracker: ListExposureTracker
    var now: Timestamp
    var decisions: [ListExposureEvent] = []

    static let start = Timestamp(millisecondsSince1970: 1_795_981_800_000)

    init(axis: ListAxis = .vertical, configuration: ExposureConfiguration = ExposureConfiguration()) {
        tracker = ListExposureTracker(axis: axis, configuration: configuration)
        now = Self.start
    }

    /// Sends `callback` `after` milliseconds from the previous one; returns its decisions.
    @discardableResult
    mutating func send(_ callback: ListCallback, after milliseconds: Int64 = 0) -> [ListExposureEvent] {
        now = now.adding(milliseconds: milliseconds)
        let result = tracker.handle(callback, now: now)
        decisions += result
        return result
    }

    /// Sends every timed callback in order.
    mutating func play(_ callbacks: [TimedListCallback]) {
        for timed in callbacks {
            now = timed.time
            decisions += tracker.handle(timed.callback, now: timed.time)
        }
    }

    /// Loads `items` and shows the list at `offset`.
    mutating func show(_ items: [ListItem], viewport: ListViewport, offset: CGPoint = .zero) {
        send(.dataReloaded(items: items))
        send(.appeared(viewport: viewport, offset: offset))
    }

    /// Drags with a few frames to `offsets`, then releases; `fling` frames follow when decelerating.
    mutating func drag(through offsets: [CGFloat], fling: [CGFloat] = [], frame: Int64 = 8) {
        send(.willBeginDragging)
        for y in offsets { send(.didScroll(offset: CGPoint(x: 0, y: y)), after: frame) }
        if fling.isEmpty {
            send(.didEndDragging(willDecelerate: false))
            return
        }
        send(.didEndDragging(willDecelerate: true))
        send(.willBeginDecelerating)
        for y in fling { send(.didScroll(offset: CGPoint(x: 0, y: y)), after: frame) }
        send(.didEndDecelerating, after: frame)
    }

    /// Exposed items' `$item_id`s, in order of exposure.
    var exposedIds: [String] {
        decisions.compactMap {
            if case .exposure(let exposure) = $0 { exposure.item.wireItemId } else { nil }
        }
    }

    /// Exposed items' rows (section 0 assumed), in order.
    var exposedRows: [Int] {
        decisions.compactMap {
            if case .exposure(let exposure) = $0 { exposure.item.indexPath.row } else { nil }
        }
    }

    /// Every fling's skips.
    var skips: [FlingSkip] {
        decisions.compactMap { if case .skip(let skip) = $0 { skip } else { nil } }
    }

    /// Rows skipped over all flings, in order.
    var skippedRows: [Int] { skips.flatMap { $0.items.map(\.indexPath.row) } }

    mutating func clear() { decisions.removeAll() }
}

/// Fixtures shared by the exposure and skip suites.
enum ExposureFixture {
    /// 375 × 1000 points, no insets: ten 100-point rows fully visible.
    static let phone = ListViewport(size: CGSize(width: 375, height: 1000))

    /// One section of `rows` rows, 100 points tall, business ids `sku-<row>` when `ids`.
    static func table(rows: Int = 100, ids: Bool = false, sections: [Int]? = nil) -> [ListItem] {
        SimulatedLayout.table(
            rowsPerSection: sections ?? [rows], rowLength: 100, crossLength: 375,
            itemId: { ids ? "sku-\($0.section)-\($0.row)" : nil })
    }

    static func point(_ y: CGFloat) -> CGPoint { CGPoint(x: 0, y: y) }
}
