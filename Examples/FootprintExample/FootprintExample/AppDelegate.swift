import Footprint
import UIKit

@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    /// The SDK client, kept for the app's life.
    private(set) var tracker: Tracker!

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        // `footprint serve` prints the write key and the URL of a local server.
        var configuration = Tracker.Configuration(writeKey: "<write key>", serverURL: "http://127.0.0.1:8080")
        // The bundled plan names the pages and the purpose method; the server's plan replaces it.
        configuration.plan = (try? TrackingPlan.bundled(named: "footprint-plan")) ?? TrackingPlan()
        // Prints each event as it is queued (the debugging hook).
        configuration.observer = { activity in
            if case .captured(let message) = activity {
                print("[footprint] \(message.type.rawValue) \(message.event ?? message.name ?? "") \(message.properties)")
            }
        }
        tracker = Tracker(configuration: configuration)

        var capture = UIKitCaptureConfiguration()
        capture.diagnostics = { print("Footprint: \($0)") }
        UIKitCapture.install(tracker: tracker, configuration: capture)
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
