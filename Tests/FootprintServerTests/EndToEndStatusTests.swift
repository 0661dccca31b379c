import Footprint
import FootprintServer
import FootprintWire
import Foundation
import Testing

/// What the SDK does with the server's real refusals.
struct EndToEndStatusTests {
    @Test func aRefusedWriteKeyHaltsDeliveryKeepsTheEventsAndANewKeyDeliversThem() async throws {
        let harness = try EndToEndHarness()
        defer { harness.shutDown() }
        let transport = RecordingTransport()
        let tracker = Tracker(
            configuration: harness.configuration(device: "phone", writeKey: "wrong-key", transport: transport)
        )
        for index in 0..<15 { tracker.track("Tapped", properties: ["index": .int(Int64(index))]) }
        await tracker.flushed()
        #expect(
            harness.activity.all.contains { if case .deliveryHalted(401) = $0 { true } else { false } })
        #expect(try harness.storedMessageIds().isEmpty)

        // Halted: another flush sends nothing.
        let requestsBefore = transport.batches.count
        await tracker.flushed()
        #expect(transport.batches.count == requestsBefore)

        tracker.updateWriteKey(harness.fixture.writeKey)
        let delivered = await harness.activity.wait { activities in
            activities.contains { if case .sent(15, 200) = $0 { true } else { false } }
        }
        #expect(delivered)
        #expect(Set(try harness.storedMessageIds()) == Set(harness.capturedMessageIds))
    }

    @Test func requestsTooLargeForTheServerAreSplitAndAnOversizedEventIsSetAside() async throws {
        let harness = try EndToEndHarness { $0.api.maximumDecompressedBytes = 8 * 1024 }
        defer { harness.shutDown() }
        let transport = RecordingTransport()
        var configuration = harness.configuration(device: "phone", transport: transport)
        configuration.compressesRequests = false
        configuration.flushAt = 1000
        let tracker = Tracker(configuration: configuration)
        let filler = String(repeating: "x", count: 300)
        for index in 0..<40 {
            tracker.track("Tapped", properties: ["index": .int(Int64(index)), "note": .string(filler)])
        }
        // Under the SDK's 32 KB event limit, over this server's 8 KB request limit.
        tracker.track("Huge", properties: ["note": .string(String(repeating: "y", count: 8_000))])
        await tracker.flushed()

        let statuses = transport.batches.compactMap(\.status)
        #expect(statuses.contains(413))
        #expect(statuses.contains(200))
        let stored = try harness.storedMessageIds()
        #expect(stored.count == 40)
        #expect(Set(stored).count == 40)
        #expect(
            harness.activity.all.contains { if case .deadLettered = $0 { true } else { false } })
        #expect(try harness.storedProperty("note", event: "Huge").isEmpty)
    }

    @Test func rateLimitedRequestsAreRetriedAfterTheServersDelay() async throws {
        // The server's clock moves 0.4 s per request whatever the machine's speed: the first
        // batch takes the one token, the next arrives with 0.4 of one and is refused (429,
        // Retry-After 1), and its retries get through once 1 s of requests has passed.
        let harness = try EndToEndHarness {
            $0.api.rateLimit = RateLimiter.Rate(requestsPerSecond: 1, burst: 1)
            $0.http.clock = SteppingClock(start: SystemClock().now(), stepMilliseconds: 400)
        }
        defer { harness.shutDown() }
        let transport = RecordingTransport()
        var configuration = harness.configuration(device: "phone", transport: transport)
        configuration.flushAt = 1000
        configuration.maximumBatchCount = 10
        let tracker = Tracker(configuration: configuration)
        for index in 0..<20 { tracker.track("Tapped", properties: ["index": .int(Int64(index))]) }
        tracker.flush()
        let delivered = await harness.activity.wait { activities in
            activities.reduce(0) { total, activity in
                if case .sent(let count, 200) = activity { total + count } else { total }
            } >= 20
        }
        #expect(delivered)
        let statuses = transport.batches.compactMap(\.status)
        #expect(statuses.prefix(2) == [200, 429], "\(statuses)")
        #expect(statuses.last == 200, "\(statuses)")
        #expect(statuses.filter { $0 == 200 }.count == 2, "\(statuses)")
        #expect(Set(try harness.storedMessageIds()) == Set(harness.capturedMessageIds))
        #expect(try harness.storedMessageIds().count == 20)
    }
}
