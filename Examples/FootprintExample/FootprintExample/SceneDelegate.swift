import Footprint
import SwiftUI
import UIKit

final class SceneDelegate: UIResponder, UIWindowSceneDelegate {
    var window: UIWindow?

    func scene(
        _ scene: UIScene, willConnectTo session: UISceneSession,
        options connectionOptions: UIScene.ConnectionOptions
    ) {
        guard let windowScene = scene as? UIWindowScene else { return }
        let tabs = UITabBarController()
        let promotions = UIHostingController(rootView: PromotionsView())
        promotions.title = "Promotions"
        tabs.viewControllers = [
            UINavigationController(rootViewController: CatalogueViewController()),
            UINavigationController(rootViewController: promotions),
        ]
        let window = UIWindow(windowScene: windowScene)
        window.rootViewController = tabs
        window.makeKeyAndVisible()
        self.window = window
        // A connect link (the dashboard's QR code) that launched the app starts a connect session.
        for context in connectionOptions.urlContexts { tracker?.handle(url: context.url) }
    }

    /// Deep links, and connect links while the app runs: `myshop://footprint/connect?token=…`.
    func scene(_ scene: UIScene, openURLContexts contexts: Set<UIOpenURLContext>) {
        for context in contexts {
            tracker?.handle(url: context.url, referringApplication: context.options.sourceApplication)
        }
    }

    private var tracker: Tracker? {
        (UIApplication.shared.delegate as? AppDelegate)?.tracker
    }
}
