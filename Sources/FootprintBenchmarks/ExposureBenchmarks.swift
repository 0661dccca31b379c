import Footprint
import FootprintSimulation
import Foundation

/// The cost of list exposure on the main thread: one `didScroll` (120 per second while a list
/// moves) and one rest point, with 50 items laid out.
let exposureSuite = BenchmarkSuite(name: "exposure") {
    let viewport = ListViewport(
        size: CGSize(width: 390, height: 844), insets: ListInsets(top: 91, bottom: 83))
    let start = Timestamp(millisecondsSince1970: 1_795_981_800_000)
    let table = SimulatedLayout.table(
        rowsPerSection: [50], rowLength: 120, crossLength: 390, itemId: { "sku-\($0.row)" },
        properties: { ["price": .double(Double($0.row) + 0.99)] })
    let grid = SimulatedLayout.grid(
        itemsPerSection: [20, 30], columns: 2, itemSize: CGSize(width: 190, height: 240), spacing: 10,
        headerLength: 40, itemId: { "sku-\($0.section)-\($0.row)" })

    /// Median and p99 of one `didScroll` while dragging back and forth over the list.
    func didScroll(_ items: [ListItem], _ configuration: ExposureConfiguration) -> [Double] {
        var tracker = ListExposureTracker(configuration: configuration)
        _ = tracker.handle(.dataReloaded(items: items), now: start)
        _ = tracker.handle(.appeared(viewport: viewport, offset: CGPoint(x: 0, y: -91)), now: start)
        _ = tracker.handle(.willBeginDragging, now: start)
        var frame: Int64 = 0
        return Measure.samples(iterations: 50_000, warmup: 2000) {
            frame += 1
            let position = frame % 800
            let y = CGFloat(position < 400 ? position : 800 - position) * 9 - 91
            _ = tracker.handle(
                .didScroll(offset: CGPoint(x: 0, y: y)), now: start.adding(milliseconds: frame * 8))
        }
    }

    /// One long fling's end: skips for the swept items, exposures for the new screen.
    func restAfterFling(_ items: [ListItem]) -> (samples: [Double], skipped: Int, exposed: Int) {
        var tracker = ListExposureTracker(configuration: ExposureConfiguration(repeatPolicy: .everyReentry))
        _ = tracker.handle(.dataReloaded(items: items), now: start)
        _ = tracker.handle(.appeared(viewport: viewport, offset: CGPoint(x: 0, y: -91)), now: start)
        var forward = true
        var decisions: [ListExposureEvent] = []
        let samples = Measure.samples(iterations: 5000) {
            let far: CGFloat = forward ? 4500 : -91
            forward.toggle()
            _ = tracker.handle(.willBeginDragging, now: start)
            _ = tracker.handle(.didEndDragging(willDecelerate: true), now: start)
            _ = tracker.handle(.didScroll(offset: CGPoint(x: 0, y: far)), now: start)
            decisions = tracker.handle(.didEndDecelerating, now: start)
        }
        let skipped = decisions.reduce(0) {
            if case .skip(let skip) = $1 { $0 + skip.skippedCount } else { $0 }
        }
        return (samples, skipped, decisions.count - 1)
    }

    var rows: [BenchmarkRow] = []
    let cases: [(String, [ListItem], ExposureConfiguration)] = [
        ("didScroll, table, rest-point exposure", table, ExposureConfiguration()),
        (
            "didScroll, table, 50 % for 1 s", table,
            ExposureConfiguration(minVisibleRatio: 0.5, minDwellMilliseconds: 1000)
        ),
        (
            "didScroll, grid, 50 % for 1 s", grid,
            ExposureConfiguration(minVisibleRatio: 0.5, minDwellMilliseconds: 1000)
        ),
    ]
    for (name, items, configuration) in cases {
        let samples = didScroll(items, configuration)
        rows.append(
            BenchmarkRow(
                metric: "\(name) (median)", value: Measure.duration(Measure.quantile(samples, 0.5)),
                note: "50 items"))
        rows.append(
            BenchmarkRow(
                metric: "\(name) (p99)", value: Measure.duration(Measure.quantile(samples, 0.99)),
                note: "budget 10 µs"))
    }
    let rest = restAfterFling(table)
    rows.append(
        BenchmarkRow(
            metric: "fling end: skips + exposures (median)",
            value: Measure.duration(Measure.quantile(rest.samples, 0.5)),
            note: "\(rest.skipped) skipped, \(rest.exposed) exposed"))
    let catalogue = SimulatedLayout.grid(
        itemsPerSection: [10_000], columns: 2, itemSize: CGSize(width: 190, height: 240), spacing: 10,
        itemId: { "sku-\($0.row)" })
    var reloading = ListExposureTracker()
    _ = reloading.handle(.appeared(viewport: viewport, offset: CGPoint(x: 0, y: -91)), now: start)
    let reload = Measure.samples(iterations: 50, warmup: 5) {
        _ = reloading.handle(.dataReloaded(items: catalogue), now: start)
    }
    rows.append(
        BenchmarkRow(
            metric: "reloadData with 10,000 items (median)",
            value: Measure.duration(Measure.quantile(reload, 0.5)),
            note: "sort + index + rest point"))
    return rows
}
