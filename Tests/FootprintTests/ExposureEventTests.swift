import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// The events on the wire, and the recorder that hands them to the tracker.
struct ExposureEventTests {
    typealias F = ExposureFixture

    let product = ListItem(
        indexPath: ListIndexPath(section: 1, row: 7), frame: CGRect(x: 0, y: 0, width: 375, height: 100),
        itemId: "sku-42", properties: ["price": 19.9, "category": "shoes", "$item_id": "spoofed"])

    @Test func exposureEventCarriesTheItemAndItsBusinessProperties() throws {
        let exposure = ItemExposure(
            item: product, time: ExposureHarness.start, visibleRatio: 2.0 / 3.0, dwellMilliseconds: 1200,
            trigger: .dwell)
        let events = ListExposureEvent.exposure(exposure).capturedEvents(
            pageName: "Feed", listId: "feed", flingId: "unused")
        let event = try #require(events.first)
        #expect(events.count == 1)
        #expect(event.kind == .track(event: "$item_exposure"))
        #expect(
            event.properties == [
                "$item_id": "sku-42", "$item_position": "1:7", "$page_name": "Feed", "$list_id": "feed",
                "$exposure_trigger": "dwell", "$visible_ratio": 0.667, "$dwell_ms": 1200,
                "price": 19.9, "category": "shoes",
            ])
    }

    @Test func skipBecomesOneEventPerItemSharingTheFling() {
        let plain = ListItem(indexPath: ListIndexPath(section: 1, row: 8), frame: .zero)
        let skip = FlingSkip(
            items: [product, plain], skippedCount: 9, direction: .backward, axis: .vertical,
            start: ExposureHarness.start, end: ExposureHarness.start.adding(milliseconds: 1850))
        let events = ListExposureEvent.skip(skip).capturedEvents(
            pageName: "Feed", listId: nil, flingId: "f-1")
        #expect(events.map(\.kind) == [.track(event: "$item_skip"), .track(event: "$item_skip")])
        #expect(events.map { $0.properties["$item_id"] } == ["sku-42", "1:8"])
        for event in events {
            #expect(event.properties["$fling_id"] == "f-1")
            #expect(event.properties["$direction"] == "backward")
            #expect(event.properties["$axis"] == "vertical")
            #expect(event.properties["$fling_start"] == .string(ExposureHarness.start.iso8601))
            #expect(event.properties["duration_ms"] == 1850)
            #expect(event.properties["$fling_skipped_count"] == 9)
            #expect(event.properties["$page_name"] == "Feed")
            #expect(event.properties["$list_id"] == nil)
        }
        #expect(events[0].properties["price"] == 19.9)
        #expect(events[1].properties["price"] == nil)
    }

    @Test func oversizedBusinessPropertiesAreDroppedNotTheEvent() throws {
        var huge = product
        huge.properties = Dictionary(
            uniqueKeysWithValues: (0..<40).map {
                ("k\($0)", JSONValue.string(String(repeating: "x", count: 1000)))
            })
        let exposure = ItemExposure(
            item: huge, time: ExposureHarness.start, visibleRatio: 1, dwellMilliseconds: 0, trigger: .rest)
        let event = try #require(
            ListExposureEvent.exposure(exposure).capturedEvents(pageName: nil, listId: nil, flingId: "").first
        )
        #expect(event.properties["$properties_dropped"] == true)
        #expect(event.properties["k0"] == nil)
        #expect(event.properties["$item_id"] == "sku-42")
        #expect(JSONWriter.bytes(.object(event.properties)).count < MessageLimits.maximumEventBytes)
    }

    @Test func recorderStampsPageAndFlingAndFeedsTheSink() throws {
        let clock = SimulatedClock(start: ExposureHarness.start)
        let sink = CollectingCaptureSink()
        let recorder = ListExposureRecorder(pageName: "Feed", listId: "feed", clock: clock, sink: sink)
        recorder.handle(.dataReloaded(items: F.table(rows: 100, ids: true)))
        recorder.handle(.appeared(viewport: F.phone, offset: .zero))
        #expect(sink.events.count == 10)
        #expect(
            sink.events.allSatisfy {
                $0.properties["$page_name"] == "Feed" && $0.properties["$list_id"] == "feed"
            })
        // The fling starts when the drag does, as the list-exposure article records it.
        let flingStart = clock.now()
        recorder.handle(.willBeginDragging)
        clock.advance(milliseconds: 40)
        recorder.handle(.didEndDragging(willDecelerate: true))
        for y in [1000, 2000, 3000] as [CGFloat] {
            clock.advance(milliseconds: 8)
            recorder.handle(.didScroll(offset: F.point(y)))
        }
        recorder.handle(.didEndDecelerating)
        let skips = sink.events.filter { $0.kind == .track(event: ListExposureEvent.skipEventName) }
        #expect(skips.count == 20)
        let flingId = try #require(skips.first?.properties["$fling_id"]?.stringValue)
        #expect(skips.allSatisfy { $0.properties["$fling_id"]?.stringValue == flingId })
        #expect(UUIDv7.timestamp(of: flingId) == flingStart)
        #expect(
            sink.events.filter { $0.kind == .track(event: ListExposureEvent.exposureEventName) }.count == 20)
    }

    @Test func recorderExposesOnTickAtTheDeadline() {
        let clock = SimulatedClock(start: ExposureHarness.start)
        let sink = CollectingCaptureSink()
        let recorder = ListExposureRecorder(
            pageName: "Feed", configuration: ExposurePolicyTests.viewability, clock: clock, sink: sink)
        recorder.handle(.dataReloaded(items: F.table()))
        recorder.handle(.appeared(viewport: F.phone, offset: .zero))
        let deadline = recorder.nextDeadline
        #expect(deadline == ExposureHarness.start.adding(milliseconds: 1000))
        clock.advance(milliseconds: 1000)
        recorder.handle(.tick)
        #expect(sink.events.count == 10)
        #expect(recorder.nextDeadline == nil)
    }
}
