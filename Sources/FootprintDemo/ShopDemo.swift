import Footprint
import FootprintServer
import FootprintSimulation
import Foundation

/// `footprint demo`: starts an embedded server, plays the sample shop's virtual users through
/// the real SDK over real HTTP on a shared simulated clock, then reads the server's report and
/// compares it with what the demo asked for.
public struct ShopDemo: Sendable {
    /// Where the run is.
    public enum Progress: Sendable, Hashable {
        /// The server is listening at `url`.
        case serverStarted(url: String)
        /// Simulated day `day` (from 1) of `days` is over: `activeUsers` used the app, and
        /// `events` events were tracked since the start.
        case dayFinished(day: Int, days: Int, date: String, activeUsers: Int, events: Int)
        /// On simulated day `day` of `days`, `played` of the `users` virtual users had their turn
        /// (sent after each user: a run on ClickHouse can take minutes).
        case userPlayed(day: Int, days: Int, played: Int, users: Int)
        /// The connect session's phone is showing its pages.
        case connectSessionStarted
        /// The server is building the report the demo checks.
        case readingReport
    }

    /// The configuration.
    public var configuration: DemoConfiguration

    /// Creates a demo.
    public init(configuration: DemoConfiguration = DemoConfiguration()) {
        self.configuration = configuration
    }

    /// Plays the demo on a thread of its own (the virtual users' "main thread": automatic
    /// capture is driven synchronously, as UIKit drives it, and never holds up Swift's shared
    /// task threads). The server keeps running on the demo data: call
    /// ``DemoOutcome/shutDown()`` when done.
    /// - Parameter progress: told of each step, on the demo's thread.
    /// - Returns: the report, the tally and their comparison.
    public func run(progress: @escaping @Sendable (Progress) -> Void = { _ in }) async throws -> DemoOutcome {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try self.runOnThisThread(progress: progress) })
            }
            thread.name = "footprint-demo"
            thread.start()
        }
    }

    /// Plays the demo on the calling thread, blocking it until the report is read: for a
    /// command line's main thread. Never call it from a Swift task (it would hold one of the
    /// shared task threads that delivery needs); use ``run(progress:)`` there.
    /// - Parameter progress: told of each step, on the calling thread.
    /// - Returns: the report, the tally and their comparison.
    public func runOnThisThread(progress: (Progress) -> Void = { _ in }) throws -> DemoOutcome {
        let started = Date()
        let directory =
            configuration.directory
            ?? NSTemporaryDirectory() + "footprint-demo-\(UUIDv7.make(at: SystemClock().now()))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let plan = try ShopPlan.plan()
        let dayLength: Int64 = 86_400_000
        let clock = SimulatedClock(
            start: Timestamp(millisecondsSince1970: configuration.firstDay * dayLength))

        var serverConfiguration = AnalyticsServer.Configuration(databasePath: directory + "/footprint.sqlite")
        serverConfiguration.http.clock = clock
        serverConfiguration.store.synchronous = "NORMAL"
        serverConfiguration.defaultProjectName = "footprint-shop"
        serverConfiguration.clickHouse = configuration.clickHouse
        let server = try AnalyticsServer(configuration: serverConfiguration)
        guard let project = server.defaultProject else {
            server.stop()
            throw DemoError(code: .server, message: "the server created no project")
        }
        progress(.serverStarted(url: server.baseURL))

        var generator = SeededRandom(seed: configuration.seed)
        var users = (0..<max(0, configuration.users)).map {
            VirtualUser(index: $0, days: configuration.days, using: &generator)
        }
        var tally = DemoTally()
        let transport = URLSessionTransport()
        for day in 0..<max(0, configuration.days) {
            let dayStart = Timestamp(millisecondsSince1970: (configuration.firstDay + Int64(day)) * dayLength)
            // Visits are spread from 07:00 to 22:00; a visit that runs late pushes the next one.
            let slot = 15 * 3_600_000 / Int64(max(1, users.count))
            var activeUsers = 0
            for index in users.indices where generator.chance(users[index].dailyVisitProbability) {
                clock.advance(to: dayStart.adding(milliseconds: 7 * 3_600_000 + Int64(index) * slot))
                var trackerConfiguration = Tracker.Configuration(
                    writeKey: project.writeKey, serverURL: server.baseURL)
                trackerConfiguration.storageDirectory = directory + "/devices/\(index)"
                trackerConfiguration.clock = clock
                trackerConfiguration.plan = plan
                trackerConfiguration.remoteConfigRefreshSeconds = nil
                trackerConfiguration.context = users[index].deviceContext(onDay: day)
                trackerConfiguration.transport = transport
                let visitTally = try Self.visit(
                    user: users[index], day: day, configuration: trackerConfiguration, clock: clock,
                    generator: SeededRandom(seed: generator.next()),
                    timeoutSeconds: configuration.deliveryTimeoutSeconds)
                if visitTally.signIns > 0 { users[index].isSignedIn = true }
                users[index].lastVersion = users[index].appVersion(onDay: day)
                tally.add(visitTally)
                activeUsers += 1
                progress(
                    .userPlayed(day: day + 1, days: configuration.days, played: index + 1, users: users.count)
                )
            }
            progress(
                .dayFinished(
                    day: day + 1, days: configuration.days, date: dayStart.dayString,
                    activeUsers: activeUsers,
                    events: tally.totalEvents))
        }
        // A phone in a connect session shows two pages: the Screens page's snapshots.
        progress(.connectSessionStarted)
        let snapshots = try ConnectVisit(
            server: server, project: project, directory: directory, clock: clock, plan: plan,
            transport: transport, timeoutSeconds: configuration.deliveryTimeoutSeconds
        ).play()
        progress(.readingReport)
        let report = try server.report(project: project.name)
        var comparison = DemoComparison(tally: tally, report: report)
        comparison.rows.append(
            DemoComparison.Row(
                metric: "screen snapshots (connect session)", expected: ConnectVisit.screens.count,
                reported: snapshots))
        return DemoOutcome(
            server: server, directory: directory, deletesDirectory: configuration.directory == nil,
            report: report, tally: tally, comparison: comparison,
            elapsedSeconds: Date().timeIntervalSince(started))
    }

    /// One user's day: the app launches (a tracker on the user's own storage folder, so the
    /// anonymous id and the installed version persist: the SDK reports the install, the update
    /// and the open), the visit plays, the app goes to the background and its flush delivers
    /// everything before the next user.
    private static func visit(
        user: VirtualUser, day: Int, configuration: Tracker.Configuration, clock: SimulatedClock,
        generator: SeededRandom, timeoutSeconds: Double
    ) throws(DemoError) -> DemoTally {
        let tracker = Tracker(configuration: configuration)
        tracker.applicationDidFinishLaunching()
        let counter = CountingSink(passingTo: tracker)
        let capture = AutoCapture(
            plans: tracker.plans,
            deviceID: tracker.identity(timeoutSeconds: timeoutSeconds)?.anonymousId ?? "",
            sink: counter, clock: clock)
        let visit = ShopVisit(
            user: user, day: day, capture: capture, sink: counter, clock: clock, generator: generator,
            signIn: { tracker.identify(userId: $0, traits: ["signed_up_with": "email"]) })
        visit.play()
        let flushed = DispatchSemaphore(value: 0)
        tracker.applicationDidEnterBackground { flushed.signal() }
        guard flushed.wait(timeout: .now() + timeoutSeconds) == .success else {
            throw DemoError(
                code: .delivery,
                message: "user \(user.index + 1)'s events were not delivered within \(Int(timeoutSeconds)) s")
        }
        var tally = visit.tally
        tally.merge(counter.counts)
        tally.launched(version: user.appVersion(onDay: day), previousVersion: user.lastVersion)
        return tally
    }
}
