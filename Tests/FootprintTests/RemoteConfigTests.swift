import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// The remote-configuration state machine.
struct RemoteConfigRefreshTests {
    let minute: Int64 = 60_000
    let validBody = Array(#"{"version": 1, "uploadMode": "matched"}"#.utf8)

    func at(_ minutes: Int64) -> Timestamp {
        Timestamp(millisecondsSince1970: 1_000_000_000 + minutes * 60_000)
    }

    @Test func fetchesAtLaunchThenAtMostOncePerInterval() {
        var refresh = RemoteConfigRefresh(refreshIntervalMilliseconds: 30 * minute)
        #expect(refresh.refreshRequested(.launch, now: at(0)) == .fetch(ifNoneMatch: nil))
        #expect(refresh.refreshRequested(.foreground, now: at(1)) == .wait, "a request is out")
        _ = refresh.responseReceived(HTTPResponse(status: 304))
        #expect(refresh.refreshRequested(.foreground, now: at(29)) == .wait)
        #expect(refresh.refreshRequested(.timer, now: at(30)) == .fetch(ifNoneMatch: nil))
        _ = refresh.requestFailed("offline")
        #expect(refresh.refreshRequested(.foreground, now: at(45)) == .wait, "failures wait too")
        #expect(
            refresh.refreshRequested(.launch, now: at(46)) == .fetch(ifNoneMatch: nil),
            "a launch always fetches")
    }

    @Test func aRequestWithoutAnswerIsRetriedAfterAnInterval() {
        var refresh = RemoteConfigRefresh(refreshIntervalMilliseconds: 30 * minute)
        _ = refresh.refreshRequested(.launch, now: at(0))
        #expect(refresh.refreshRequested(.launch, now: at(10)) == .wait)
        #expect(refresh.refreshRequested(.timer, now: at(31)) == .fetch(ifNoneMatch: nil))
    }

    @Test func aClockGoingBackwardsDoesNotBlockRefreshes() {
        var refresh = RemoteConfigRefresh(refreshIntervalMilliseconds: 30 * minute)
        _ = refresh.refreshRequested(.launch, now: at(100))
        _ = refresh.responseReceived(HTTPResponse(status: 304))
        #expect(refresh.refreshRequested(.foreground, now: at(50)) == .fetch(ifNoneMatch: nil))
    }

    @Test func aValidPlanIsAppliedWithItsETag() throws {
        var refresh = RemoteConfigRefresh(refreshIntervalMilliseconds: minute, etag: "\"old\"")
        #expect(refresh.refreshRequested(.launch, now: at(0)) == .fetch(ifNoneMatch: "\"old\""))
        let outcome = refresh.responseReceived(
            HTTPResponse(status: 200, headers: ["ETag": "\"v2\""], body: validBody))
        #expect(outcome == .apply(TrackingPlan(uploadMode: .matched), etag: "\"v2\""))
        #expect(refresh.etag == "\"v2\"")
        #expect(refresh.refreshRequested(.timer, now: at(1)) == .fetch(ifNoneMatch: "\"v2\""))
    }

    @Test func anInvalidPlanIsRejectedAndTheETagKept() throws {
        var refresh = RemoteConfigRefresh(refreshIntervalMilliseconds: minute, etag: "\"good\"")
        _ = refresh.refreshRequested(.launch, now: at(0))
        let outcome = refresh.responseReceived(
            HTTPResponse(
                status: 200, headers: ["etag": "\"bad\""],
                body: Array(#"{"version": 1, "sampleRate": 7}"#.utf8)))
        guard case .rejected(let error) = outcome else {
            Issue.record("expected a rejection, got \(outcome)")
            return
        }
        #expect(error.keyPath == "sampleRate")
        #expect(refresh.etag == "\"good\"")
        _ = refresh.refreshRequested(.launch, now: at(0))
        #expect(refresh.responseReceived(HTTPResponse(status: 200, body: Array("<html>".utf8))) != .unchanged)
    }

    @Test(arguments: [(304, true), (500, false), (404, false), (401, false), (429, false)])
    func otherStatusesKeepThePlan(status: Int, unchanged: Bool) {
        var refresh = RemoteConfigRefresh(refreshIntervalMilliseconds: minute, etag: "e")
        _ = refresh.refreshRequested(.launch, now: at(0))
        let outcome = refresh.responseReceived(HTTPResponse(status: status, body: validBody))
        if unchanged {
            #expect(outcome == .unchanged)
        } else {
            #expect(outcome == .failed(reason: "the server answered HTTP \(status)"))
        }
        #expect(refresh.etag == "e")
    }
}

extension RemoteConfigRefreshTests {
    /// Random triggers, times and answers: a fetch never starts sooner than the interval after
    /// the previous one unless the app launched with no request out, and the ETag only changes
    /// with an applied plan.
    @Test func randomSequencesRespectTheInterval() {
        var generator = SystemRandomNumberGenerator()
        let interval = 10 * minute
        for _ in 0..<200 {
            var refresh = RemoteConfigRefresh(refreshIntervalMilliseconds: interval)
            var now: Int64 = 0
            var lastFetch: Int64?
            var requestOut = false
            for step in 0..<60 {
                now += Int64.random(in: 0...(4 * minute), using: &generator)
                if requestOut, Bool.random(using: &generator) {
                    let etagBefore = refresh.etag
                    let outcome: RemoteConfigRefresh.Outcome
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0:
                        outcome = refresh.responseReceived(
                            HTTPResponse(status: 200, headers: ["etag": "\(step)"], body: validBody))
                    case 1:
                        outcome = refresh.responseReceived(HTTPResponse(status: 200, body: Array("{".utf8)))
                    case 2: outcome = refresh.responseReceived(HTTPResponse(status: 304))
                    default: outcome = refresh.requestFailed("offline")
                    }
                    if case .apply = outcome {
                        #expect(refresh.etag == "\(step)")
                    } else {
                        #expect(refresh.etag == etagBefore)
                    }
                    requestOut = false
                    continue
                }
                let trigger = [RemoteConfigRefresh.Trigger.launch, .foreground, .timer].randomElement(
                    using: &generator)!
                let decision = refresh.refreshRequested(trigger, now: Timestamp(millisecondsSince1970: now))
                if case .fetch = decision {
                    if let last = lastFetch, now - last < interval {
                        #expect(trigger == .launch && !requestOut)
                    }
                    lastFetch = now
                    requestOut = true
                } else {
                    let due = lastFetch.map { now - $0 >= interval } ?? true
                    #expect(!due && (requestOut || trigger != .launch))
                }
            }
        }
    }
}

/// The on-disk cache of the last good remote plan.
struct RemoteConfigCacheTests {
    let folder: URL
    let cache: RemoteConfigCache

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "footprint-config-\(UUID().uuidString)")
        cache = RemoteConfigCache(fileURL: folder.appendingPathComponent("nested/remote-plan.json"))
    }

    @Test func roundTripsThePlanAndItsETag() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try cache.load() == nil)
        let body = try [UInt8](CaptureFixtures.data("plan.json"))
        try cache.save(planBody: body, etag: "W/\"3\"")
        let entry = try #require(try cache.load())
        #expect(entry.plan == (try CaptureFixtures.plan()))
        #expect(entry.etag == "W/\"3\"")
        try cache.save(planBody: Array(#"{"version":1}"#.utf8), etag: nil)
        #expect(try cache.load() == RemoteConfigCache.Entry(plan: TrackingPlan(), etag: nil))
        try cache.clear()
        #expect(try cache.load() == nil)
        try cache.clear()
    }

    @Test func aDamagedFileIsReportedNotUsed() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try cache.save(planBody: Array(#"{"version":1}"#.utf8), etag: "e")
        let text = try String(contentsOf: cache.fileURL, encoding: .utf8)
        try String(text.dropLast(3)).write(to: cache.fileURL, atomically: true, encoding: .utf8)
        #expect(throws: PlanError.self) { try cache.load() }
        try #"{"etag":"e","plan":{"version":9}}"#.write(to: cache.fileURL, atomically: true, encoding: .utf8)
        let error = try #require(throws: PlanError.self) { try cache.load() }
        #expect(error.code == .unsupportedVersion)
    }
}

/// The updater driving fetches, the plan store and the cache.
struct RemoteConfigUpdaterTests {
    /// Answers requests from a script and records them.
    final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var script: [Result<HTTPResponse, any Error>]
        private(set) var requests: [HTTPRequest] = []

        init(_ script: [Result<HTTPResponse, any Error>]) { self.script = script }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let next: Result<HTTPResponse, any Error> = lock.withLock {
                requests.append(request)
                return script.isEmpty ? .success(HTTPResponse(status: 503)) : script.removeFirst()
            }
            return try next.get()
        }
    }

    struct Offline: Error {}

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "footprint-updater-\(UUID().uuidString)")
    let clock = SimulatedClock(start: Timestamp(millisecondsSince1970: 1_795_981_800_000))
    let remotePlan = Array(#"{"version": 1, "uploadMode": "matched", "sampleRate": 0.5}"#.utf8)

    func updater(_ transport: ScriptedTransport, plans: PlanStore) -> RemoteConfigUpdater {
        RemoteConfigUpdater(
            plans: plans,
            fetcher: RemoteConfigFetcher(
                transport: transport, endpoint: "https://fp.example/", writeKey: "wk"),
            cache: RemoteConfigCache(fileURL: folder.appendingPathComponent("plan.json")),
            configuration: RemoteConfigUpdater.Configuration(refreshIntervalSeconds: 600), clock: clock)
    }

    @Test func theRequestFollowsTheContract() {
        let fetcher = RemoteConfigFetcher(
            transport: ScriptedTransport([]), endpoint: "https://fp.example//", writeKey: "wk")
        let request = fetcher.request(ifNoneMatch: "\"7\"")
        #expect(request.method == "GET")
        #expect(request.url == "https://fp.example/v1/config")
        #expect(request.headers["Authorization"] == "Basic d2s6")
        #expect(request.headers["If-None-Match"] == "\"7\"")
        #expect(fetcher.request(ifNoneMatch: nil).headers["If-None-Match"] == nil)
    }

    @Test func precedenceCachingAndABadRemotePlan() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let bundled = try CaptureFixtures.plan()

        // First launch: bundled plan, then the server's.
        let plans = PlanStore(bundled: bundled)
        let first = ScriptedTransport([
            .success(HTTPResponse(status: 200, headers: ["ETag": "\"1\""], body: remotePlan))
        ])
        let firstUpdater = updater(first, plans: plans)
        #expect(plans.current.plan == bundled)
        let outcome = await firstUpdater.start()
        guard case .apply = outcome else {
            Issue.record("expected the remote plan to apply, got \(String(describing: outcome))")
            return
        }
        #expect(plans.current.plan.sampleRate == 0.5)

        // Second launch offline: the cached remote plan wins over the bundled one.
        let offlinePlans = PlanStore(bundled: bundled)
        let offline = ScriptedTransport([.failure(Offline())])
        let offlineUpdater = updater(offline, plans: offlinePlans)
        #expect(await offlineUpdater.start() == .failed(reason: "Offline()"))
        #expect(offlinePlans.current.plan.sampleRate == 0.5)
        #expect(offline.requests.first?.headers["If-None-Match"] == "\"1\"")

        // Third launch: the server sends a broken plan; the last good one stays, cache included.
        let brokenPlans = PlanStore(bundled: bundled)
        let broken = ScriptedTransport([
            .success(
                HTTPResponse(
                    status: 200, headers: ["ETag": "\"2\""],
                    body: Array(#"{"version": 1, "events": [{}]}"#.utf8))),
            .success(HTTPResponse(status: 304)),
        ])
        let brokenUpdater = updater(broken, plans: brokenPlans)
        guard case .rejected(let error)? = await brokenUpdater.start() else {
            Issue.record("expected a rejection")
            return
        }
        #expect(error.keyPath == "events[0].id")
        #expect(brokenPlans.current.plan.sampleRate == 0.5)
        #expect(
            try RemoteConfigCache(fileURL: folder.appendingPathComponent("plan.json")).load()?.etag == "\"1\""
        )

        // Not due yet, then due: 304 keeps the plan.
        #expect(await brokenUpdater.refresh(.foreground) == nil)
        clock.advance(milliseconds: 600_000)
        #expect(await brokenUpdater.refresh(.foreground) == .unchanged)
        #expect(broken.requests.last?.headers["If-None-Match"] == "\"1\"")
        #expect(brokenPlans.current.plan.sampleRate == 0.5)
    }

    @Test func aDamagedCacheFallsBackToTheBundledPlan() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("{garbage".utf8).write(to: folder.appendingPathComponent("plan.json"))
        let plans = PlanStore(bundled: try CaptureFixtures.plan())
        let updater = updater(ScriptedTransport([.success(HTTPResponse(status: 500))]), plans: plans)
        #expect(await updater.start() == .failed(reason: "the server answered HTTP 500"))
        #expect(await updater.cacheError?.code == .unreadable)
        #expect(plans.current.plan == (try CaptureFixtures.plan()))
        #expect(!plans.hasRemotePlan)
    }

    @Test func observersHearOfANewPlan() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        final class Heard: @unchecked Sendable {
            let lock = NSLock()
            var modes: [TrackingPlan.UploadMode] = []
        }
        let heard = Heard()
        let plans = PlanStore()
        plans.observe { matcher in heard.lock.withLock { heard.modes.append(matcher.plan.uploadMode) } }
        let updater = updater(
            ScriptedTransport([.success(HTTPResponse(status: 200, body: remotePlan))]), plans: plans)
        await updater.start()
        #expect(heard.lock.withLock { heard.modes } == [.matched])
    }
}
