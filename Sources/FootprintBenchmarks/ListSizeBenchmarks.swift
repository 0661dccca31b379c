import Footprint
import FootprintSimulation
import Foundation

/// What list exposure costs the main thread as a list grows, at 100, 1,000 and 10,000 rows
/// (`make bench BENCH=list-size`). Budget: under 50 µs per scroll frame and per appeared row at
/// 10,000 rows.
///
/// UIKit path: one `didScroll` through the recorder with the app's `listItems` (ids read for the
/// items a decision looks at), while dragging, with a dwell threshold (every frame decides) and
/// without (only rest points decide); and one fling's end. SwiftUI path: one row the lazy
/// container shows for the first time, through `DeclarativeListFeed` and the recorder, the row
/// inserted into the known layout (new) and, side by side, the whole known layout sent and
/// sorted again per row (as before).
let listSizeSuite = BenchmarkSuite(name: "list-size") {
    let viewport = ListViewport(
        size: CGSize(width: 390, height: 844), insets: ListInsets(top: 91, bottom: 83))
    let start = Timestamp(millisecondsSince1970: 1_795_981_800_000)
    let rowLength: CGFloat = 120
    let dwell = ExposureConfiguration(minVisibleRatio: 0.5, minDwellMilliseconds: 1000)
    var rows: [BenchmarkRow] = []

    /// A UIKit table of `count` rows, its ids read through `listItems` at decision time.
    func tableRecorder(_ count: Int, _ configuration: ExposureConfiguration, clock: SimulatedClock)
        -> ListExposureRecorder
    {
        let recorder = ListExposureRecorder(
            pageName: "Catalogue", configuration: configuration, clock: clock, sink: CountingSink())
        recorder.identify = { ListItemIdentity(id: "sku-\($0.row)", properties: ["price": .double(9.99)]) }
        let items = SimulatedLayout.table(rowsPerSection: [count], rowLength: rowLength, crossLength: 390)
        recorder.handle(.dataReloaded(items: items))
        recorder.handle(.appeared(viewport: viewport, offset: CGPoint(x: 0, y: -91)))
        return recorder
    }

    /// One `didScroll` while a finger drags back and forth over the whole list.
    func scrollFrames(_ count: Int, _ configuration: ExposureConfiguration) -> [Double] {
        let clock = SimulatedClock(start: start)
        let recorder = tableRecorder(count, configuration, clock: clock)
        recorder.handle(.willBeginDragging)
        let span = Int64(CGFloat(count) * rowLength / 9)
        var frame: Int64 = 0
        return Measure.samples(iterations: 20_000, warmup: 1000) {
            frame += 1
            let position = frame % (2 * span)
            let y = CGFloat(position < span ? position : 2 * span - position) * 9 - 91
            clock.advance(milliseconds: 8)
            recorder.handle(.didScroll(offset: CGPoint(x: 0, y: y)))
        }
    }

    /// One fling's end, 4,600 points away: skips for the rows swept, exposures for the new screen.
    func flingEnds(_ count: Int) -> [Double] {
        let clock = SimulatedClock(start: start)
        let recorder = tableRecorder(count, ExposureConfiguration(repeatPolicy: .everyReentry), clock: clock)
        let middle = CGFloat(count / 2) * rowLength
        var forward = true
        return Measure.samples(iterations: 2000, warmup: 50) {
            let far: CGFloat = max(-91, forward ? middle + 2300 : middle - 2300)
            forward.toggle()
            clock.advance(milliseconds: 500)
            recorder.handle(.willBeginDragging)
            recorder.handle(.didEndDragging(willDecelerate: true))
            recorder.handle(.didScroll(offset: CGPoint(x: 0, y: far)))
            recorder.handle(.didEndDecelerating)
        }
    }

    /// Each of `samples` rows appearing for the first time after `count` rows are known, in a
    /// SwiftUI list with scroll geometry, while a finger drags; `wholeLayout` sends the whole
    /// known layout per new row, as the feed did before. Without `maximumItems`, nothing is
    /// evicted.
    func appearedRows(_ count: Int, samples: Int, rounds: Int, wholeLayout: Bool) -> [Double] {
        (0..<rounds).flatMap { _ in appearedRows(count, samples: samples, wholeLayout: wholeLayout) }.sorted()
    }
    func appearedRows(_ count: Int, samples: Int, wholeLayout: Bool, maximumItems: Int? = nil) -> [Double] {
        var feed = DeclarativeListFeed(maximumItems: maximumItems ?? count + samples + 1)
        let recorder = ListExposureRecorder(
            pageName: "Feed", clock: SimulatedClock(start: start), sink: CountingSink())
        func report(_ row: Int, offset: CGFloat) -> DeclarativeListFeed.ItemFrame {
            DeclarativeListFeed.ItemFrame(
                id: "sku-\(row)", position: ListIndexPath(section: 0, row: row),
                frame: CGRect(x: 0, y: CGFloat(row) * rowLength - offset, width: 390, height: rowLength))
        }
        func forward(_ callbacks: [ListCallback]) {
            for callback in callbacks { recorder.handle(callback) }
        }
        forward(feed.appeared())
        forward(feed.geometryChanged(viewport: viewport, offset: .zero))
        forward(feed.activityChanged(to: .interacting))
        var offset: CGFloat = 0
        // The lazy container drops the rows 10 rows back (their frames stay in the layout).
        for row in 0..<count {
            offset = CGFloat(row) * rowLength
            forward(feed.geometryChanged(viewport: viewport, offset: CGPoint(x: 0, y: offset)))
            forward(feed.itemReported(report(row, offset: offset)))
            if row >= 10 { forward(feed.itemDisappeared(id: "sku-\(row - 10)")) }
        }
        var row = count
        return Measure.samples(iterations: samples, warmup: 0) {
            offset = CGFloat(row) * rowLength
            let callbacks = feed.itemReported(report(row, offset: offset))
            forward(feed.itemDisappeared(id: "sku-\(row - 10)"))
            row += 1
            if wholeLayout, case .itemAppeared? = callbacks.first {
                recorder.handle(.layoutChanged(items: feed.layoutItems))
            } else {
                forward(callbacks)
            }
        }
    }

    /// A row with the median and p99 of `samples`.
    func row(_ metric: String, _ samples: [Double], _ note: String) -> BenchmarkRow {
        BenchmarkRow(
            metric: "\(metric) (median / p99)",
            value: "\(Measure.duration(Measure.quantile(samples, 0.5))) / "
                + Measure.duration(Measure.quantile(samples, 0.99)), note: note)
    }

    for count in [100, 1_000, 10_000] {
        let note = "\(count.grouped) rows"
        // Rows measured in rounds, each from `count` known rows, so that the list grows by at most
        // a tenth while measured.
        let (samples, rounds) = count >= 10_000 ? (200, 2) : (count / 10, 3000 / count)
        rows += [
            row("UIKit didScroll, rest-point exposure", scrollFrames(count, ExposureConfiguration()), note),
            row("UIKit didScroll, 50 % for 1 s, ids read", scrollFrames(count, dwell), note),
            row("UIKit fling end, ids read", flingEnds(count), note),
            row(
                "SwiftUI appeared row, inserted",
                appearedRows(count, samples: samples, rounds: rounds, wholeLayout: false), note),
            row(
                "SwiftUI appeared row, whole layout sorted, before",
                appearedRows(count, samples: samples, rounds: rounds, wholeLayout: true), note),
        ]
    }
    // Past the default maximum (10,000) a tenth of it is evicted at once: one sort and one whole
    // layout per 1,000 new rows, spread over them.
    let pastMaximum = appearedRows(10_000, samples: 3000, wholeLayout: false, maximumItems: 10_000)
    rows.append(
        BenchmarkRow(
            metric: "SwiftUI appeared row past the 10,000 maximum (mean / max)",
            value: "\(Measure.duration(pastMaximum.reduce(0, +) / Double(pastMaximum.count))) / "
                + Measure.duration(pastMaximum.last ?? 0),
            note: "evicts 1,000 rows every 1,000"))
    return rows
}
