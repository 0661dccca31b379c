import Dispatch
import Foundation

/// The SDK's client: records events and delivers them. Create one per app (per storage
/// directory) with a ``Configuration``, keep it for the app's life.
///
/// Every call returns at once: the event is stamped with the time and handed to the storage
/// thread, which adds identity, session, super properties and context, validates it, writes it
/// to the on-device queue and lets the uploader send it.
///
/// Loss window: an accepted event is on disk once the storage thread's current turn commits,
/// typically 50–100 µs after the call (well under a millisecond; see `docs/BENCHMARKS.md`). If
/// the process is killed before that, the events accepted since the last commit are lost: at
/// most ``Configuration/maximumPendingEvents`` waiting plus the turn being written. Everything
/// committed survives a crash or `SIGKILL` (the queue test kills a child process mid-stream to
/// prove it). A power loss can also undo the last commits since SQLite's last sync (WAL with
/// `synchronous=NORMAL`), never corrupting the file.
public final class Tracker: CaptureSink {
    /// The configuration the tracker was started with.
    public let configuration: Configuration
    /// The tracking plan in force: the bundled ``Configuration/plan``, replaced by the server's
    /// remote config. Automatic capture reads it at every callback.
    public let plans: PlanStore
    let inbox: CommandInbox
    private let sessionStarts = SessionStartObservers()
    private let uploader: Uploader
    private let remoteConfig: RemoteConfigUpdater?
    private let clock: any Clock
    /// The connect session: idle until a connect link reaches ``handle(url:referringApplication:)``,
    /// then snapshots of the screen go to the server (see docs/IOS.md, *Connect sessions*).
    public let connectSession: ConnectSessionController

    /// Starts the tracker: opens the queue (on the storage thread) and starts delivery.
    public init(configuration: Configuration) {
        self.configuration = configuration
        clock = configuration.clock
        inbox = CommandInbox(eventCapacity: configuration.maximumPendingEvents)
        uploader = Uploader(configuration: configuration, storage: inbox)
        let plans = PlanStore(bundled: configuration.plan)
        self.plans = plans
        remoteConfig = configuration.remoteConfigRefreshSeconds.map { seconds in
            RemoteConfigUpdater(
                plans: plans,
                fetcher: RemoteConfigFetcher(
                    transport: configuration.transport, endpoint: configuration.serverURL,
                    writeKey: configuration.writeKey),
                cache: RemoteConfigCache(fileURL: configuration.remoteConfigCacheURL),
                configuration: .init(refreshIntervalSeconds: Int64(seconds)), clock: configuration.clock)
        }
        let inbox = inbox
        connectSession = ConnectSessionController(
            environment: .init(
                serverURL: configuration.serverURL, writeKey: configuration.writeKey,
                context: configuration.context, transport: configuration.transport,
                clock: configuration.clock,
                identity: { await Tracker.readIdentity(from: inbox) }, log: configuration.log),
            configuration: configuration.connectSession)
        let uploader = uploader
        let remoteConfig = remoteConfig
        Task { await uploader.start() }
        if let remoteConfig { Task { await remoteConfig.start() } }
        StorageWorker.start(
            configuration: configuration, inbox: inbox, uploader: uploader, sessionStarts: sessionStarts)
    }

    /// Calls `handler` with the new session's id whenever an event starts a session (the first
    /// event after start unless the stored session resumes, after 30 minutes idle, after a long
    /// background stay, after ``reset()``). Called on the SDK's storage thread: return quickly.
    public func observeSessionStarts(_ handler: @escaping @Sendable (_ sessionId: String) -> Void) {
        sessionStarts.add(handler)
    }

    /// Creates the automatic-capture core that the platform adapter feeds, reading the plan in
    /// force from ``plans`` and recording into this tracker. Call it on the main thread, once.
    ///
    /// It returns at once. Sampling is decided per device from the persisted anonymous id, which
    /// the storage thread loads at start: until it answers, capture runs and holds its events
    /// (with their time), then sends or drops them all by the device's sampling.
    /// - Parameter configuration: the app's capture choices. Default: no extra ignored types.
    public func makeAutoCapture(configuration: AutoCaptureConfiguration = AutoCaptureConfiguration())
        -> AutoCapture
    {
        let capture = AutoCapture(
            configuration: configuration, plans: plans, deviceID: nil, sink: self, clock: clock)
        let gate = capture.sampling
        inbox.submit(.readIdentity { identity in gate.deviceIdentified(identity.anonymousId) })
        capture.connectSession = connectSession
        let clock = clock
        capture.planHealthReporter = { [inbox] health in inbox.submit(.planHealth(health, at: clock.now())) }
        return capture
    }

    /// Asks the server for a newer plan now, whatever the refresh interval (for tests and
    /// debugging screens). Waits for the answer.
    /// - Returns: what came of it, or `nil` when remote config is off.
    @discardableResult
    public func refreshRemoteConfig() async -> RemoteConfigRefresh.Outcome? {
        await remoteConfig?.refresh(.launch)
    }

    deinit {
        inbox.close()
        let uploader = uploader
        Task { await uploader.stop() }
    }

    // MARK: Events

    /// Records a user action.
    /// - Parameters:
    ///   - event: the event name (`"Order Completed"`).
    ///   - properties: its properties; super properties are added, these win.
    public func track(_ event: String, properties: JSONObject = [:]) {
        inbox.submit(.event(.track(event: event), properties: properties, at: clock.now()))
    }

    /// Records a screen view.
    /// - Parameters:
    ///   - name: the screen's name.
    ///   - properties: its properties; super properties are added, these win.
    public func screen(_ name: String, properties: JSONObject = [:]) {
        inbox.submit(.event(.screen(name: name), properties: properties, at: clock.now()))
    }

    /// Records an automatically captured event (page, element, exposure), exactly like
    /// ``track(_:properties:)`` or ``screen(_:properties:)``, at its own
    /// ``CapturedEvent/timestamp`` when it has one.
    public func record(_ event: CapturedEvent) {
        inbox.submit(.event(event.kind, properties: event.properties, at: event.timestamp ?? clock.now()))
    }

    /// Starts timing `event`; ``endTimedEvent(_:properties:)`` tracks it with `duration_ms`.
    public func startTimedEvent(_ event: String) {
        inbox.submit(.startTimer(event: event, at: clock.now()))
    }

    /// Tracks `event` with `duration_ms`, the milliseconds since ``startTimedEvent(_:)``. Without
    /// a start, nothing is tracked and a warning is logged.
    public func endTimedEvent(_ event: String, properties: JSONObject = [:]) {
        inbox.submit(.endTimer(event: event, properties: properties, at: clock.now()))
    }

    // MARK: Identity

    /// Names the person using the app, and records an `identify` message.
    /// - Parameters:
    ///   - userId: the app's own id for the person; sent on every later event.
    ///   - traits: facts about the person (`email`, `plan`).
    public func identify(userId: String, traits: JSONObject = [:]) {
        inbox.submit(.identify(userId: userId, traits: traits, at: clock.now()))
    }

    /// Links the current identity (user id, else anonymous id) to `userId`, which becomes the
    /// user id, and records an `alias` message.
    public func alias(userId: String) {
        inbox.submit(.alias(userId: userId, at: clock.now()))
    }

    /// Puts the person in a group (company, team) and records a `group` message.
    public func group(_ groupId: String, traits: JSONObject = [:]) {
        inbox.submit(.group(groupId: groupId, traits: traits, at: clock.now()))
    }

    /// Forgets the person (log-out): a new anonymous id, no user id, no super properties, no
    /// running timers, a new session. Queued events are still sent.
    public func reset() {
        inbox.submit(.reset(at: clock.now()))
    }

    /// The identity as of every call made before, read from the storage thread (which loads it
    /// from disk at start): blocks until then, at most `timeoutSeconds`.
    /// - Returns: the identity, or `nil` if the storage thread did not answer in time.
    public func identity(timeoutSeconds: Double = 1) -> TrackerIdentity? {
        let done = DispatchSemaphore(value: 0)
        let result = IdentityReply()
        inbox.submit(
            .readIdentity { identity in
                result.set(identity)
                done.signal()
            })
        guard done.wait(timeout: .now() + timeoutSeconds) == .success else { return nil }
        return result.get()
    }

    // MARK: Super properties

    /// Adds properties sent with every later `track` and `screen` (persisted across launches).
    public func registerSuperProperties(_ properties: JSONObject) {
        inbox.submit(.register(properties))
    }

    /// Removes super properties by key.
    public func unregisterSuperProperties(_ keys: [String]) {
        inbox.submit(.unregister(keys))
    }

    // MARK: Delivery

    /// Sends the queue now (one request at a time until it is empty), unless the response policy
    /// says to wait (backoff) or to stop (refused write key).
    /// - Parameter completion: called once this flush is over, whatever its result.
    public func flush(completion: (@Sendable () -> Void)? = nil) {
        inbox.submit(.flush(completion: completion))
    }

    /// Uses a new write key; lifts the stop caused by the server refusing the old one.
    public func updateWriteKey(_ writeKey: String) {
        let uploader = uploader
        Task { await uploader.updateWriteKey(writeKey) }
    }

    /// Blocks until every call made before is applied and on disk, or `timeoutSeconds` pass.
    /// For app termination and tests; never needed for delivery.
    /// - Returns: whether everything was written in time.
    @discardableResult
    public func waitUntilStored(timeoutSeconds: Double = 5) -> Bool {
        let done = DispatchSemaphore(value: 0)
        inbox.submit(.barrier { done.signal() })
        return done.wait(timeout: .now() + timeoutSeconds) == .success
    }

    // MARK: Privacy

    /// Stops recording: clears the queue and drops every later event until ``optIn()``.
    /// Persisted across launches.
    public func optOut() {
        inbox.submit(.setOptedOut(true))
    }

    /// Records again after ``optOut()``; with ``Configuration/requiresConsent``, starts recording
    /// (and storing) for the first time. Persisted across launches.
    public func optIn() {
        inbox.submit(.setOptedOut(false))
    }

    // MARK: App lifecycle (called by the platform adapter)

    /// The app finished launching: reports `Application Installed` or `Application Updated`
    /// when the release is new to the device, then `Application Opened` (`from_background:
    /// false`), once per launch. The UIKit adapter calls it from the launch notification.
    /// - Parameter opening: the URL, referring app or notification that launched the app, when
    ///   known. Default: none.
    /// A launch URL that is a connect link starts a connect session and is not recorded.
    public func applicationDidFinishLaunching(_ opening: AppOpening = AppOpening()) {
        var opening = opening
        if let text = opening.url, let url = URL(string: text), let link = ConnectLink(url: url) {
            connectSession.start(link)
            opening.url = nil
        }
        inbox.submit(.lifecycle(.launched(opening), at: clock.now()))
    }

    /// The app became active: the cold start's `Application Opened` when
    /// ``applicationDidFinishLaunching(_:)`` was not called (the tracker started late);
    /// nothing otherwise.
    public func applicationDidBecomeActive() {
        inbox.submit(.lifecycle(.becameActive, at: clock.now()))
    }

    /// The app went to the background: reports `Application Backgrounded`, starts the
    /// session's background clock and flushes.
    /// - Parameter completion: called once the flush is over (end the background task there).
    public func applicationDidEnterBackground(completion: (@Sendable () -> Void)? = nil) {
        inbox.submit(.lifecycle(.enteredBackground, at: clock.now()))
        flush(completion: completion)
    }

    /// The app is coming to the foreground: a background stay longer than the session timeout
    /// ends the session; reports `Application Opened` (`from_background: true`).
    public func applicationWillEnterForeground() {
        inbox.submit(.lifecycle(.enteringForeground, at: clock.now()))
        if let remoteConfig { Task { await remoteConfig.refresh(.foreground) } }
    }

    /// The app was asked to open `url` (a universal link or a custom scheme): reports
    /// `Deep Link Opened` with `url` and `referring_application`. Call it from
    /// `application(_:open:options:)`, `scene(_:openURLContexts:)` and, for a launch, with the
    /// URL of `scene(_:willConnectTo:options:)`'s `urlContexts`.
    ///
    /// A connect link (``ConnectLink``: `<scheme>://footprint/connect?token=…`, or a universal
    /// link ending in `/footprint/connect`) is not recorded: it starts a connect session, which
    /// uploads a snapshot of the screen at every page appearance and on ``captureScreen()``
    /// until the server ends it or it expires.
    /// - Parameters:
    ///   - url: the URL opened.
    ///   - referringApplication: the bundle id of the app that opened it, when known. Default
    ///     `nil`.
    /// - Returns: whether it was a connect link that started a session.
    @discardableResult
    public func handle(url: URL, referringApplication: String? = nil) -> Bool {
        if let link = ConnectLink(url: url) { return connectSession.start(link) }
        let opening = AppOpening(url: url.absoluteString, referringApplication: referringApplication)
        inbox.submit(.lifecycle(.openedURL(opening), at: clock.now()))
        return false
    }

    /// Records how the plan in force was applied (``PlanHealth``) as a `$plan_health` event,
    /// once per app release and plan revision: a report already sent for them (remembered in
    /// the queue database, across launches) is not sent again. The capture core calls it after
    /// the adapter hooked the plan, and when a purpose method's rate limit drops its 1st, 10th,
    /// 100th… call (``PlanHealth/reportsDroppedCalls``): those reports are always sent.
    public func reportPlanHealth(_ health: PlanHealth) {
        inbox.submit(.planHealth(health, at: clock.now()))
    }

    // MARK: Connect sessions

    /// Uploads a snapshot of the screen now, when a connect session is open; does nothing
    /// otherwise (production never snapshots silently). Returns at once.
    public func captureScreen() {
        connectSession.request(.onDemand)
    }

    /// The identity, read on the storage thread without blocking the caller.
    static func readIdentity(from inbox: CommandInbox) async -> TrackerIdentity? {
        await withCheckedContinuation { (continuation: CheckedContinuation<TrackerIdentity?, Never>) in
            let once = ResumeOnce(continuation)
            if !inbox.submit(.readIdentity { identity in once.resume(identity) }) { once.resume(nil) }
        }
    }
}

/// Resumes a continuation once, whoever comes first.
private final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<TrackerIdentity?, Never>?

    init(_ continuation: CheckedContinuation<TrackerIdentity?, Never>) { self.continuation = continuation }

    func resume(_ value: TrackerIdentity?) {
        lock.lock()
        let pending = continuation
        continuation = nil
        lock.unlock()
        pending?.resume(returning: value)
    }
}

/// Carries the identity from the storage thread to the caller waiting in
/// ``Tracker/identity(timeoutSeconds:)``.
private final class IdentityReply: @unchecked Sendable {
    private let lock = NSLock()
    private var value: TrackerIdentity?

    func set(_ identity: TrackerIdentity) {
        lock.lock()
        value = identity
        lock.unlock()
    }

    func get() -> TrackerIdentity? {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
