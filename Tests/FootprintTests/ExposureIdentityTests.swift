import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// Item ids read when an exposure is decided (``ListExposureRecorder/identify``): data that
/// changes without a reload (a diffable data source's `apply`, batch updates, moves) is reported
/// under the ids the list shows then.
struct ExposureIdentityTests {
    typealias F = ExposureFixture

    /// The app's data: the product at each row, changed by the test as the app would.
    final class Catalogue: @unchecked Sendable {
        var skus: [String]

        init(count: Int) {
            skus = (0..<count).map { "sku-\($0)" }
        }

        func identity(at indexPath: ListIndexPath) -> ListItemIdentity? {
            skus.indices.contains(indexPath.row)
                ? ListItemIdentity(id: skus[indexPath.row], properties: ["row": .int(Int64(indexPath.row))])
                : nil
        }
    }

    let clock = SimulatedClock(start: ExposureHarness.start)
    let sink = CollectingCaptureSink()
    let catalogue = Catalogue(count: 100)
    let recorder: ListExposureRecorder

    init() {
        recorder = ListExposureRecorder(pageName: "Shop", clock: clock, sink: sink)
        recorder.identify = { [catalogue] in catalogue.identity(at: $0) }
    }

    private var exposedIds: [String] {
        sink.events.filter { $0.kind == .track(event: ListExposureEvent.exposureEventName) }
            .compactMap { $0.properties["$item_id"]?.stringValue }
    }

    /// A grid re-sorted with the same count, with no `reloadData`: the rows scrolled to next are
    /// reported under the new order's ids.
    @Test func aResortWithoutReloadIsReportedUnderTheNewIds() {
        recorder.handle(.dataReloaded(items: F.table(rows: 100)))
        recorder.handle(.appeared(viewport: F.phone, offset: .zero))
        #expect(exposedIds == (0..<10).map { "sku-\($0)" })

        catalogue.skus.reverse()
        recorder.handle(.willBeginDragging)
        recorder.handle(.didScroll(offset: F.point(1000)))
        recorder.handle(.didEndDragging(willDecelerate: false))
        #expect(exposedIds.dropFirst(10).sorted() == (80..<90).map { "sku-\($0)" })
    }

    /// Rows that stay on screen while the data under them changes are new items at the next
    /// rest point; their properties come along.
    @Test func itemsReplacedOnScreenAreExposedAtTheNextRestPoint() throws {
        recorder.handle(.dataReloaded(items: F.table(rows: 100)))
        recorder.handle(.appeared(viewport: F.phone, offset: .zero))
        catalogue.skus[3] = "sku-new"
        recorder.handle(.viewportChanged(F.phone))
        #expect(exposedIds.last == "sku-new")
        let event = try #require(sink.events.last)
        #expect(event.properties["row"] == .int(3))
    }

    /// Layouts carry frames only: ids are read for the items a decision looks at, not for all.
    @Test func onlyTheItemsJudgedAreIdentified() {
        final class Counter: @unchecked Sendable { var calls = 0 }
        let counter = Counter()
        recorder.identify = { [catalogue] in
            counter.calls += 1
            return catalogue.identity(at: $0)
        }
        recorder.handle(.dataReloaded(items: F.table(rows: 10_000)))
        recorder.handle(.appeared(viewport: F.phone, offset: .zero))
        #expect(exposedIds == (0..<10).map { "sku-\($0)" })
        #expect(counter.calls < 50)
    }
}
