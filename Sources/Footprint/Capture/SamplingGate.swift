import Foundation

/// The sink every automatic-capture event goes through on its way to the tracker: it applies the
/// plan's device sampling, and holds the events while the device's anonymous id is not known
/// yet (the tracker loads it from disk at start), so that launch never waits for the disk and
/// no event is sent or dropped by a sampling decision made without the id.
///
/// Held events keep the time they happened (``CapturedEvent/timestamp``); once the id is
/// known they are sent in order, or dropped together when the device is sampled out. At most
/// ``maximumPendingEvents`` are held; later ones are dropped and counted (the id normally comes
/// within milliseconds).
///
/// A lock box: called from the main thread (capture) and the storage thread (the id).
final class SamplingGate: CaptureSink, @unchecked Sendable {
    /// The most events held while the device id is not known.
    static let maximumPendingEvents = 1_000

    private let lock = NSLock()
    private let sink: any CaptureSink
    private let plans: PlanStore
    private let clock: any Clock
    private var deviceID: String?
    private var pending: [CapturedEvent] = []
    private var decision: (rate: Double, included: Bool)?
    private var dropped = 0

    /// Creates a gate in front of `sink`; `deviceID` `nil` holds events until
    /// ``deviceIdentified(_:)``.
    init(sink: any CaptureSink, plans: PlanStore, clock: any Clock, deviceID: String?) {
        self.sink = sink
        self.plans = plans
        self.clock = clock
        self.deviceID = deviceID
    }

    /// Whether the device is sampled in under the plan in force; `nil` while its id is not known.
    var isIncluded: Bool? {
        lock.withLock { deviceID == nil ? nil : includes(rate: plans.current.plan.sampleRate) }
    }

    /// The events dropped because ``maximumPendingEvents`` were held already.
    var droppedWhilePending: Int { lock.withLock { dropped } }

    /// Sends `event` when the device is sampled in, holds it while that is not known yet.
    func record(_ event: CapturedEvent) {
        lock.lock()
        defer { lock.unlock() }
        guard deviceID != nil else {
            guard pending.count < Self.maximumPendingEvents else {
                dropped += 1
                return
            }
            var held = event
            if held.timestamp == nil { held.timestamp = clock.now() }
            pending.append(held)
            return
        }
        if includes(rate: plans.current.plan.sampleRate) { sink.record(event) }
    }

    /// The device's anonymous id is known: the held events are sent (in order, under the lock,
    /// so that nothing recorded after overtakes them) or dropped by its sampling. Only the
    /// first call counts.
    func deviceIdentified(_ id: String) {
        lock.lock()
        defer { lock.unlock() }
        guard deviceID == nil else { return }
        deviceID = id
        let held = pending
        pending = []
        guard includes(rate: plans.current.plan.sampleRate) else { return }
        for event in held { sink.record(event) }
    }

    /// The sampling decision for `rate` (cached per rate). Call under the lock, with an id.
    private func includes(rate: Double) -> Bool {
        if let decision, decision.rate == rate { return decision.included }
        let included = DeviceSampling.includes(deviceID: deviceID ?? "", rate: rate)
        decision = (rate, included)
        return included
    }
}
