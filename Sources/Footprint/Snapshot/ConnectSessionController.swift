import Foundation

/// Runs the device's connect session (``ConnectSession``): asks the screen source for a
/// snapshot when the rules say so, and uploads it to `POST /v1/snapshots` off the caller's
/// thread, one at a time.
///
/// Inert until a connect link starts a session; outside a session nothing is captured or sent,
/// and every upload checks that the session is still open right before it leaves. The tracker
/// owns one (``Tracker/connectSession``); the UI adapter sets the screen source.
public final class ConnectSessionController: @unchecked Sendable {
    /// What a snapshot needs besides the screen: who, on which app and device.
    public struct Environment: Sendable {
        /// The collector's base URL; snapshots go to `/v1/snapshots` under it.
        public var serverURL: String
        /// The project's write key, sent as the HTTP Basic user name.
        public var writeKey: String
        /// App, OS and device facts.
        public var context: DeviceContext
        /// How requests reach the server.
        public var transport: any HTTPTransport
        /// Where time is read.
        public var clock: any Clock
        /// The device's identity now; `nil` when it cannot be read.
        public var identity: @Sendable () async -> TrackerIdentity?
        /// Receives warnings for people.
        public var log: @Sendable (String) -> Void

        /// Creates an environment.
        public init(
            serverURL: String, writeKey: String, context: DeviceContext, transport: any HTTPTransport,
            clock: any Clock, identity: @escaping @Sendable () async -> TrackerIdentity?,
            log: @escaping @Sendable (String) -> Void
        ) {
            self.serverURL = serverURL
            self.writeKey = writeKey
            self.context = context
            self.transport = transport
            self.clock = clock
            self.identity = identity
            self.log = log
        }
    }

    private let environment: Environment
    private let limits: ScreenSnapshot.Limits
    private let lock = NSLock()
    private var session: ConnectSession
    private var screenSource: (@Sendable () async -> ScreenContent?)?
    private var wakeAt: Timestamp?
    private var sent = 0

    /// Creates an idle controller.
    /// - Parameters:
    ///   - environment: the server, write key, device and clock.
    ///   - configuration: the session's pacing and lifetime. Default ``ConnectSession/Configuration/init()``.
    ///   - limits: what a snapshot is kept within. Default ``ScreenSnapshot/Limits/init()``.
    public init(
        environment: Environment, configuration: ConnectSession.Configuration = .init(),
        limits: ScreenSnapshot.Limits = .init()
    ) {
        self.environment = environment
        self.limits = limits
        session = ConnectSession(configuration: configuration)
    }

    /// The URL snapshots are posted to.
    public var snapshotsURL: String { HTTPRequest.url("/v1/snapshots", on: environment.serverURL) }

    /// Where the screen is read when a snapshot is due: the UI adapter sets it (it hops to the
    /// main thread itself). Without one, a due snapshot is skipped.
    public func setScreenSource(_ source: (@Sendable () async -> ScreenContent?)?) {
        withLock { $0.screenSource = source }
    }

    /// Whether a session is open now.
    public var isActive: Bool {
        let now = environment.clock.now()
        return withLock { $0.session.isActive(at: now) }
    }

    /// Why the last session ended, when it did.
    public var endReason: ConnectSession.EndReason? { withLock { $0.session.endReason } }

    /// How many snapshots were sent (whatever the answer) since creation.
    public var snapshotsSent: Int { withLock { $0.sent } }

    /// Starts a session from a link (replacing any other). Refused, with a warning, when the
    /// link names another server than the tracker's.
    /// - Returns: whether the session started.
    @discardableResult
    public func start(_ link: ConnectLink) -> Bool {
        guard link.isFor(serverURL: environment.serverURL) else {
            environment.log(
                "connect link ignored: it is for \(link.server ?? "another server"), this app sends to "
                    + environment.serverURL)
            return false
        }
        let now = environment.clock.now()
        perform(withLock { $0.session.start(link, now: now) })
        return true
    }

    /// Takes a snapshot if a session is open (a page appeared, or the app asked).
    public func request(_ trigger: ScreenSnapshot.Trigger) {
        let now = environment.clock.now()
        perform(withLock { $0.session.request(trigger, now: now) })
    }

    /// Ends the session; nothing more is captured.
    public func stop() {
        perform(withLock { $0.session.stop() })
    }

    // MARK: Running the actions

    private func perform(_ action: ConnectSession.Action) {
        switch action {
        case .none:
            return
        case .capture(let trigger):
            Task.detached { [self] in
                let outcome = await captureAndUpload(trigger)
                let now = environment.clock.now()
                perform(withLock { $0.session.uploadFinished(outcome, now: now) })
            }
        case .wake(let time):
            let isNew = withLock { controller -> Bool in
                if let scheduled = controller.wakeAt, scheduled <= time { return false }
                controller.wakeAt = time
                return true
            }
            guard isNew else { return }
            let delay = max(0, time.millisecondsSince1970 - environment.clock.now().millisecondsSince1970)
            Task.detached { [self] in
                try? await Task.sleep(nanoseconds: UInt64(delay) * 1_000_000)
                // A simulated clock may not have moved: wake at the time asked for at the least.
                let now = max(environment.clock.now(), time)
                perform(
                    withLock { controller in
                        if controller.wakeAt == time { controller.wakeAt = nil }
                        return controller.session.wake(now: now)
                    })
            }
        case .ended(let reason):
            environment.log("connect session ended: \(reason)")
        }
    }

    /// Captures the screen and uploads it; what came of it.
    private func captureAndUpload(_ trigger: ScreenSnapshot.Trigger) async -> ConnectSession.UploadOutcome {
        guard let source = withLock({ $0.screenSource }), let content = await source() else {
            return .skipped
        }
        guard let identity = await environment.identity(), !identity.isOptedOut else { return .skipped }
        let now = environment.clock.now()
        // Never sent outside an open session, even when it ended while the screen was read.
        guard let link = withLock({ $0.session.link(at: now) }) else { return .skipped }
        let snapshot = makeSnapshot(content, trigger: trigger, link: link, identity: identity, at: now)
        withLock { $0.sent += 1 }
        do {
            return ConnectSession.UploadOutcome(
                response: try await environment.transport.send(request(for: snapshot)))
        } catch {
            return .failed
        }
    }

    /// The snapshot of `content`, with who took it, when and why.
    func makeSnapshot(
        _ content: ScreenContent, trigger: ScreenSnapshot.Trigger, link: ConnectLink,
        identity: TrackerIdentity,
        at time: Timestamp
    ) -> ScreenSnapshot {
        let context = environment.context
        func field(_ text: String?) -> String {
            AutoCapture.cut(text ?? "", toBytes: limits.maximumFieldBytes)
        }
        return ScreenSnapshot(
            connectToken: link.token, snapshotID: UUIDv7.make(at: time),
            anonymousID: field(identity.anonymousId),
            userID: identity.userId.map(field).flatMap { $0.isEmpty ? nil : $0 }, page: content.page,
            appVersion: field(context.appVersion), build: field(context.appBuild),
            osVersion: field(context.osVersion),
            deviceModel: field(context.deviceModel), screen: content.screen, takenAt: time, trigger: trigger,
            elements: content.elements, image: content.image)
    }

    /// The upload request: the write key as HTTP Basic, like batches; the token in the body and
    /// in `Footprint-Connect-Token`.
    func request(for snapshot: ScreenSnapshot) -> HTTPRequest {
        HTTPRequest(
            method: "POST", url: snapshotsURL,
            headers: [
                "Authorization": HTTPRequest.basicAuthorization(writeKey: environment.writeKey),
                "Content-Type": "application/json", "Footprint-Connect-Token": snapshot.connectToken,
            ],
            body: snapshot.jsonBytes)
    }

    private func withLock<T>(_ body: (ConnectSessionController) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(self)
    }
}
