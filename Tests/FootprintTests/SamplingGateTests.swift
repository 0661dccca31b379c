import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// Capture starts before the device's anonymous id is loaded: events wait for the sampling
/// decision instead of launch waiting for the disk, and none is sampled without the id.
struct SamplingGateTests {
    let sink = CollectingCaptureSink()
    let clock = SimulatedClock(start: Timestamp(millisecondsSince1970: 1_795_981_800_000))

    func capture(sampleRate: Double = 1) -> AutoCapture {
        AutoCapture(
            plans: PlanStore(bundled: TrackingPlan(sampleRate: sampleRate)), deviceID: nil, sink: sink,
            clock: clock)
    }

    func page(_ id: UInt64) -> PageDescription {
        PageDescription(controllerType: "HomeViewController", instanceID: id)
    }

    /// A device id sampled in (or out) at `rate`.
    static func device(includedAt rate: Double, _ included: Bool) throws -> String {
        try #require(
            (0..<1_000).lazy.map { "device-\($0)" }.first {
                DeviceSampling.includes(deviceID: $0, rate: rate) == included
            })
    }

    @Test func eventsWaitForTheIdAndKeepTheirTime() throws {
        let capture = capture()
        let start = clock.now()
        capture.pageAppeared(page(1))
        clock.advance(milliseconds: 700)
        capture.controlActed(Chains.button(), action: Chains.tap())
        clock.advance(milliseconds: 2_000)
        #expect(sink.events.isEmpty, "held until the id is known")

        capture.deviceIdentified("device-1")
        #expect(sink.names == ["screen:HomeViewController", "$element_click"])
        #expect(sink.events.map(\.timestamp) == [start, start.adding(milliseconds: 700)])

        capture.controlActed(Chains.button(), action: Chains.tap())
        #expect(sink.events.count == 3)
        #expect(sink.events[2].timestamp == nil, "later events are stamped by the sink as usual")
    }

    @Test func aSampledOutDeviceDropsWhatWaitedAndEverythingAfter() throws {
        let capture = capture(sampleRate: 0.5)
        capture.pageAppeared(page(1))
        capture.controlActed(Chains.button(), action: Chains.tap())
        #expect(capture.allows(\.controls), "capture runs while the decision waits")
        capture.deviceIdentified(try Self.device(includedAt: 0.5, false))
        capture.controlActed(Chains.button(), action: Chains.tap())
        capture.sampledSink.record(CapturedEvent(kind: .track(event: "$exposure")))
        #expect(sink.events.isEmpty)
        #expect(!capture.allows(\.controls))
    }

    @Test func aSampledInDeviceSendsEverythingOnce() throws {
        let capture = capture(sampleRate: 0.5)
        capture.sampledSink.record(CapturedEvent(kind: .track(event: "$exposure")))
        capture.deviceIdentified(try Self.device(includedAt: 0.5, true))
        capture.deviceIdentified(try Self.device(includedAt: 0.5, false))
        capture.sampledSink.record(CapturedEvent(kind: .track(event: "$exposure")))
        #expect(sink.names == ["$exposure", "$exposure"], "only the first id counts")
    }

    @Test func heldEventsAreBounded() {
        let capture = capture()
        for _ in 0..<(SamplingGate.maximumPendingEvents + 5) {
            capture.sampledSink.record(CapturedEvent(kind: .track(event: "$exposure")))
        }
        #expect(capture.sampling.droppedWhilePending == 5)
        capture.deviceIdentified("device-1")
        #expect(sink.events.count == SamplingGate.maximumPendingEvents)
    }
}

extension TrackerTests {
    /// Through a real tracker: `makeAutoCapture` returns at once, and an event captured before
    /// the storage thread answered is stored with the time it happened.
    @Test func heldCaptureEventsAreStoredAtTheirOwnTime() throws {
        let tracker = Tracker(configuration: configuration())
        let capture = tracker.makeAutoCapture()
        let tapped = clock.now()
        capture.controlActed(Chains.button(), action: Chains.tap())
        clock.advance(milliseconds: 5_000)
        #expect(tracker.waitUntilStored() && tracker.waitUntilStored())
        let click = try #require(captured.current.first { $0.event == "$element_click" })
        #expect(click.timestamp == tapped)
    }
}
