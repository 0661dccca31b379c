import Footprint
import UIKit

@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    /// Prints what Footprint captures; an app passes the SDK's tracker instead (see README).
    let console = ConsoleSink()

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        // The bundled plan names the pages and the purpose method; the server's plan replaces it.
        let plan = (try? TrackingPlan.bundled(named: "footprint-plan")) ?? TrackingPlan()
        let capture = AutoCapture(plans: PlanStore(bundled: plan), deviceID: console.deviceID, sink: console)
        var configuration = UIKitCaptureConfiguration()
        configuration.diagnostics = { print("Footprint: \($0)") }
        UIKitCapture.install(
            capture: capture, sink: console, lifecycle: console, configuration: configuration)
        return true
    }

    func application(
        _ application: UIApplication, configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration {
        let configuration = UISceneConfiguration(name: nil, sessionRole: connectingSceneSession.role)
        configuration.delegateClass = SceneDelegate.self
        return configuration
    }
}

/// Stands in for the SDK's tracker: prints each captured event, and "flushes" at once.
final class ConsoleSink: CaptureSink, AppLifecycleHandler {
    let deviceID = UUID().uuidString

    func record(_ event: CapturedEvent) {
        let name: String
        switch event.kind {
        case .screen(let page): name = "screen \(page)"
        case .track(let event): name = event
        }
        let properties = event.properties.keys.sorted().map { "\($0)=\(event.properties[$0]!)" }
        print("[footprint] \(name) \(properties.joined(separator: " "))")
    }

    func didEnterBackground(completion: @escaping @Sendable () -> Void) {
        print("[footprint] background: flush")
        completion()
    }

    func willEnterForeground() {
        print("[footprint] foreground")
    }
}
