import Footprint
import FootprintServer
import FootprintSimulation
import Foundation

/// The demo's connect session, played after the simulated days: a product manager starts it as
/// the dashboard's Screens page does, a phone running the shop's newest version opens its link
/// (`Tracker.handle(url:)`) and shows two of the shop's pages; for each, the SDK builds the
/// snapshot from the shop's layout (wireframe: Linux has no pixels) and uploads it through
/// `POST /v1/snapshots`. The Screens page then draws both pages with the click map of the days
/// played.
struct ConnectVisit {
    /// The pages the phone shows: the product feed (cells: exact and similar paths) and a
    /// product (the Add to Cart button).
    static let screens: [ShopScreen] = [.productList, .productDetail]

    let server: AnalyticsServer
    let project: Project
    let directory: String
    let clock: SimulatedClock
    let plan: TrackingPlan
    let transport: any HTTPTransport
    /// How long an upload may take before the demo gives up (``DemoConfiguration/deliveryTimeoutSeconds``).
    let timeoutSeconds: Double

    /// Plays the session and ends it.
    /// - Returns: the snapshots the server stored from it.
    func play() throws(DemoError) -> Int {
        let screenStore = server.stores.metadata
        let sessions = ConnectSessions(stores: server.stores)
        let started: ConnectSessions.Started
        do {
            started = try sessions.start(project: project, now: clock.now(), serverURL: server.baseURL)
        } catch {
            throw DemoError(code: .server, message: "the connect session did not start: \(error.message)")
        }
        let appVersion = ShopInterface.appVersions.last ?? "2.0"
        var configuration = Tracker.Configuration(writeKey: project.writeKey, serverURL: server.baseURL)
        configuration.storageDirectory = directory + "/devices/connect"
        configuration.clock = clock
        configuration.plan = plan
        configuration.remoteConfigRefreshSeconds = nil
        configuration.transport = transport
        configuration.context = VirtualUser.deviceContext(
            appVersion: appVersion, osVersion: "17.4", deviceModel: "iPhone15,4")
        let tracker = Tracker(configuration: configuration)
        guard let link = URL(string: started.link), tracker.handle(url: link) else {
            throw DemoError(
                code: .delivery, message: "the phone did not take the connect link \(started.link)")
        }
        let capture = AutoCapture(
            plans: tracker.plans,
            deviceID: tracker.identity(timeoutSeconds: timeoutSeconds)?.anonymousId ?? "",
            sink: tracker,
            clock: clock)
        var stored = 0
        for screen in Self.screens {
            // The SDK paces snapshots (one a second at most): the phone moves on a few seconds later.
            clock.advance(to: clock.now().adding(milliseconds: 5_000))
            let content = capture.snapshotContent(
                of: ShopInterface.screenDescription(of: screen, appVersion: appVersion))
            tracker.connectSession.setScreenSource { content }
            tracker.captureScreen()
            stored = try waitForSnapshots(stored + 1, session: started.session.id, screenStore)
        }
        tracker.connectSession.setScreenSource(nil)
        do {
            try sessions.end(id: started.session.id, project: project, now: clock.now())
        } catch {
            throw DemoError(code: .server, message: "the connect session did not end: \(error.message)")
        }
        return stored
    }

    /// Waits until the server holds `count` snapshots of the session (the upload runs off this
    /// thread); a minute is only a hang guard.
    private func waitForSnapshots(_ count: Int, session: Int64, _ store: any ScreenStore)
        throws(DemoError) -> Int
    {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while true {
            let stored =
                (try? store.snapshots(
                    projectId: project.id, connectSessionId: session, after: 0, limit: 100
                ).count) ?? 0
            if stored >= count { return stored }
            guard Date() < deadline else {
                throw DemoError(
                    code: .delivery,
                    message: "the phone's snapshot \(count) was not stored within \(Int(timeoutSeconds)) s")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}
