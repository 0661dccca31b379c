import Footprint
import FootprintServer
import FootprintWire
import Foundation
import Testing

/// The SDK's tracker delivering to the real server over loopback HTTP, both on real SQLite files.
struct EndToEndDeliveryTests {
    @Test(arguments: [true, false])
    func everyTrackedEventArrivesExactlyOnce(compressed: Bool) async throws {
        let harness = try EndToEndHarness()
        defer { harness.shutDown() }
        let transport = RecordingTransport()
        var configuration = harness.configuration(device: "phone", transport: transport)
        configuration.compressesRequests = compressed
        configuration.flushAt = 25
        configuration.maximumBatchCount = 40
        let tracker = Tracker(configuration: configuration)
        tracker.identify(userId: "user-1", traits: ["plan": "pro"])
        for index in 0..<300 {
            if index % 50 == 0 {
                tracker.screen("Page \(index / 50)", properties: ["index": .int(Int64(index))])
            }
            tracker.track(
                "Item Viewed", properties: ["index": .int(Int64(index)), "sku": .string("sku-\(index)")])
        }
        await tracker.flushed()

        let captured = harness.capturedMessageIds
        #expect(captured.count == 307)
        let stored = try harness.storedMessageIds()
        #expect(stored.count == captured.count)
        #expect(Set(stored) == Set(captured))
        #expect(Set(stored).count == stored.count)
        let batches = transport.batches
        #expect(batches.count >= 8, "40 events at most per request")
        #expect(batches.allSatisfy { $0.status == 200 })
        #expect(
            batches.allSatisfy { ($0.request.headers["Content-Encoding"] == "gzip") == compressed })
        let report = try harness.server.report(project: "default")
        #expect(report.totalEvents == 307)
        #expect(report.uniqueVisitors == 1)
        #expect(report.pages.map(\.pageViews).reduce(0, +) == 6)
    }

    @Test func aBatchWhoseAnswerIsLostIsResentAndStoredOnce() async throws {
        let harness = try EndToEndHarness()
        defer { harness.shutDown() }
        // The server commits the first two batches, but their answers never reach the phone.
        let transport = RecordingTransport(losingBatchAnswers: 2)
        var configuration = harness.configuration(device: "phone", transport: transport)
        configuration.flushAt = 1000
        configuration.maximumBatchCount = 30
        let tracker = Tracker(configuration: configuration)
        for index in 0..<90 { tracker.track("Tapped", properties: ["index": .int(Int64(index))]) }
        tracker.flush()
        let delivered = await harness.activity.wait { activities in
            activities.reduce(0) { total, activity in
                if case .sent(let count, 200) = activity { total + count } else { total }
            } >= 90
        }
        #expect(delivered)

        let batches = transport.batches
        #expect(batches.filter { $0.status == nil }.count == 2)
        #expect(batches.count >= 5, "three batches, two of them sent twice")
        let stored = try harness.storedMessageIds()
        #expect(stored.count == 90)
        #expect(Set(stored) == Set(harness.capturedMessageIds))
    }

    @Test func aReplayedBatchBodyStoresNothingTwice() async throws {
        let harness = try EndToEndHarness()
        defer { harness.shutDown() }
        let transport = RecordingTransport()
        let tracker = Tracker(configuration: harness.configuration(device: "phone", transport: transport))
        for index in 0..<12 { tracker.track("Tapped", properties: ["index": .int(Int64(index))]) }
        await tracker.flushed()
        #expect(try harness.storedMessageIds().count == 12)

        // The very bytes the SDK sent, gzip and all, sent again.
        let recorded = try #require(transport.batches.first?.request)
        let replay = try await URLSessionTransport().send(recorded)
        #expect(replay.status == 200)
        #expect(try harness.storedMessageIds().count == 12)
        #expect(try harness.server.report(project: "default").totalEvents == 12)
    }
}
