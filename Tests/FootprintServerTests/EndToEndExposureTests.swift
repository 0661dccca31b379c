import Footprint
import FootprintDemo
import FootprintServer
import FootprintSimulation
import FootprintWire
import Foundation
import Testing

/// List exposure from the scroll simulator, through the tracker, into the report's items.
struct EndToEndExposureTests {
    @Test(arguments: ReadingStyle.allCases)
    func exposuresAndSkipsArriveAndAreCountedPerItem(style: ReadingStyle) async throws {
        let harness = try EndToEndHarness()
        defer { harness.shutDown() }
        let clock = SimulatedClock(start: Timestamp(millisecondsSince1970: 1_795_000_000_000))
        var configuration = harness.configuration(device: "phone", transport: RecordingTransport())
        configuration.clock = clock
        let tracker = Tracker(configuration: configuration)
        let counter = CountingSink(passingTo: tracker)
        let viewport = ListViewport(
            size: CGSize(width: 393, height: 852), insets: ListInsets(top: 103, bottom: 34))
        let items = SimulatedLayout.table(
            rowsPerSection: [80], rowLength: 100, crossLength: 393, itemId: { "sku-\($0.row)" },
            properties: { ["price": .double(Double($0.row) + 0.5)] })
        let recorder = ListExposureRecorder(pageName: "Feed", listId: "feed", clock: clock, sink: counter)
        recorder.handle(.dataReloaded(items: items))
        recorder.handle(.appeared(viewport: viewport, offset: CGPoint(x: 0, y: -103)))
        var simulator = ScrollSimulator(axis: .vertical, viewport: viewport, items: items, time: clock.now())
        var generator = SeededRandom(seed: 3)
        for timed in simulator.perform(
            style.gestures(steps: 6, pageLength: simulator.pageLength, using: &generator))
        {
            while let deadline = recorder.nextDeadline, deadline <= timed.time {
                clock.advance(to: deadline)
                recorder.handle(.tick)
            }
            clock.advance(to: timed.time)
            recorder.handle(timed.callback)
        }
        recorder.handle(.disappeared)
        // A tap on the first row, which every reader saw at the start.
        let capture = AutoCapture(plans: tracker.plans, deviceID: "phone", sink: tracker, clock: clock)
        capture.cellSelected(
            ElementDescription(
                chain: [
                    ResponderDescription(
                        "ProductCell", cellIndexPath: CellIndexPath(section: 0, row: 0), itemID: "sku-0"),
                    .view("UITableView", 0), .controller("FeedViewController"),
                ], kind: .cell),
            action: ActionDescription(
                selector: "tableView:didSelectRowAtIndexPath:", senderType: "UITableView"))
        await tracker.flushed()

        let counts = counter.counts
        #expect(!counts.exposures.isEmpty)
        if style == .fastFlinger { #expect(!counts.skips.isEmpty) }
        let report = try harness.server.report(project: "default")
        let reported = Dictionary(uniqueKeysWithValues: report.items.map { ($0.itemId, $0) })
        for itemId in Set(counts.exposures.keys).union(counts.skips.keys) {
            #expect(reported[itemId]?.exposures == counts.exposures[itemId] ?? 0, "\(itemId)")
            #expect(reported[itemId]?.skips == counts.skips[itemId] ?? 0, "\(itemId)")
        }
        #expect(Set(reported.keys) == Set(counts.exposures.keys).union(counts.skips.keys))
        let first = try #require(reported["sku-0"])
        #expect(first.exposures == 1)
        #expect(first.clicks == 1)
        #expect(first.clickThroughRate == 1)
        #expect(
            report.totalEvents == counts.exposures.values.reduce(0, +) + counts.skips.values.reduce(0, +) + 1)
    }
}
