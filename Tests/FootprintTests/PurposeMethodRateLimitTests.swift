import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// Each (class, selector) pair raises at most a burst of events, then one per pace; the calls
/// beyond are dropped, counted and reported through the plan's health.
struct PurposeMethodRateLimitTests {
    static let share = CaptureHooks.Method(target: "ArticleViewController", method: "goShare")
    static let buy = CaptureHooks.Method(target: "CheckoutViewController", method: "buy")
    static let start = Timestamp(millisecondsSince1970: 1_795_981_800_000)

    // MARK: The state machine

    @Test func aBurstThenTheSteadyPace() {
        var limiter = PurposeMethodRateLimiter(limit: .init(burst: 3, millisecondsPerCall: 1000))
        let decisions = (0..<5).map { _ in limiter.call(Self.share, at: Self.start) }
        #expect(decisions == [.record, .record, .record, .drop(report: true), .drop(report: false)])
        // Another pair has a burst of its own.
        #expect(limiter.call(Self.buy, at: Self.start) == .record)
        // One pace later, one more call fits; then the pace holds.
        let later = Timestamp(millisecondsSince1970: Self.start.millisecondsSince1970 + 1000)
        #expect(limiter.call(Self.share, at: later) == .record)
        #expect(limiter.call(Self.share, at: later) == .drop(report: false))
        #expect(limiter.dropped == [Self.share: 3])
        // After a quiet spell the whole burst is back.
        let quiet = Timestamp(millisecondsSince1970: later.millisecondsSince1970 + 10_000)
        #expect((0..<3).map { _ in limiter.call(Self.share, at: quiet) } == [.record, .record, .record])
    }

    @Test func dropsAreReportedAtPowersOfTen() {
        var limiter = PurposeMethodRateLimiter(limit: .init(burst: 1))
        _ = limiter.call(Self.share, at: Self.start)
        let reported = (1...2_000).filter { _ in
            limiter.call(Self.share, at: Self.start) == .drop(report: true)
        }
        #expect(reported == [1, 10, 100, 1_000])
        #expect(limiter.dropped[Self.share] == 2_000)
    }

    /// Random call times: in any span, a pair records at most its burst plus one call per pace
    /// that fits in the span; every call is recorded or counted; a call after a long enough
    /// quiet spell is always recorded.
    @Test(arguments: 0..<30)
    func randomCallsKeepTheLimit(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let limit = PurposeMethodLimit(
            burst: Int.random(in: 1...12, using: &random),
            millisecondsPerCall: Int64.random(in: 1...2_000, using: &random))
        var limiter = PurposeMethodRateLimiter(limit: limit)
        var time = Self.start.millisecondsSince1970
        var recorded: [CaptureHooks.Method: [Int64]] = [:]
        var calls: [CaptureHooks.Method: Int] = [:]
        var lastCall: [CaptureHooks.Method: Int64] = [:]
        var reports: [CaptureHooks.Method: Int] = [:]
        for _ in 0..<600 {
            time += [0, 0, 1, 5, 50, 400, 3_000, 30_000].randomElement(using: &random)!
            let method = Bool.random(using: &random) ? Self.share : Self.buy
            let quiet =
                lastCall[method].map { time - $0 >= limit.millisecondsPerCall * Int64(limit.burst) } ?? true
            let decision = limiter.call(method, at: Timestamp(millisecondsSince1970: time))
            calls[method, default: 0] += 1
            lastCall[method] = time
            switch decision {
            case .record: recorded[method, default: []].append(time)
            case .drop(let report):
                #expect(!quiet)
                if report { reports[method, default: 0] += 1 }
                let count = limiter.dropped[method] ?? 0
                #expect(report == [1, 10, 100, 1_000].contains(count))
            }
        }
        for (method, times) in recorded {
            #expect(times.count + (limiter.dropped[method] ?? 0) == calls[method])
            for first in times.indices {
                for last in times.indices[first...] {
                    let span = times[last] - times[first]
                    #expect(last - first + 1 <= limit.burst + Int(span / limit.millisecondsPerCall))
                }
            }
        }
    }

    // MARK: Through the capture core

    let sink = CollectingCaptureSink()
    let clock = SimulatedClock(start: Self.start)

    func capture(health: LockedBox<[PlanHealth]>) -> AutoCapture {
        let plans = PlanStore(
            bundled: TrackingPlan(events: [
                PlanEvent(
                    id: "share", name: "Share",
                    triggers: [.method(target: Self.share.target, method: Self.share.method)]
                ),
                PlanEvent(
                    id: "buy", name: "Buy",
                    triggers: [.method(target: Self.buy.target, method: Self.buy.method)]),
            ]))
        let capture = AutoCapture(plans: plans, deviceID: "device-1", sink: sink, clock: clock)
        capture.planHealthReporter = { report in health.withLock { $0.append(report) } }
        capture.planApplied(methods: [Self.share: .applied, Self.buy: .applied])
        return capture
    }

    @Test func aMethodCalledPerFrameRaisesABurstAndIsReportedInPlanHealth() throws {
        let health = LockedBox<[PlanHealth]>([])
        let capture = capture(health: health)
        for _ in 0..<120 {  // two seconds at 60 frames a second
            capture.methodCalled(targetType: Self.share.target, method: Self.share.method)
            clock.advance(milliseconds: 16)
        }
        capture.methodCalled(targetType: Self.buy.target, method: Self.buy.method)
        #expect(sink.names == Array(repeating: "Share", count: 11) + ["Buy"])

        // Installed, then the 1st and 10th and 100th dropped call.
        let reports = health.current
        #expect(reports.count == 4)
        let last = try #require(reports.last)
        #expect(last.reportsDroppedCalls)
        let share = try #require(last.entries.first { $0.id == "share" })
        #expect(share.status == .rateLimited)
        #expect(share.droppedCalls == 100)
        #expect(share.reason.contains("100 calls dropped (more than 10 calls at once or 1 a second)"))
        #expect(last.entries.first { $0.id == "buy" }?.status == .applied)
        let entries = try #require(last.properties["entries"]?.arrayValue)
        #expect(entries.first?["status"] == "rate_limited")
        #expect(entries.first?["dropped_calls"] == 100)
        #expect(!(reports.first?.reportsDroppedCalls ?? true))
    }

    @Test func aRateLimitedTriggerBesideAMissingOneIsPartial() {
        let plan = TrackingPlan(events: [
            PlanEvent(
                id: "share", name: "Share",
                triggers: [
                    .method(target: Self.share.target, method: Self.share.method),
                    .method(target: "Gone", method: "share"),
                ])
        ])
        let health = PlanHealth(
            plan: plan, planVersion: 1,
            methods: [
                Self.share: .applied, .init(target: "Gone", method: "share"): .init(status: .missingClass),
            ],
            droppedCalls: [Self.share: 4], limit: "l")
        #expect(health.entries.map(\.status) == [.partial])
        #expect(health.entries.first?.droppedCalls == 4)
    }
}
