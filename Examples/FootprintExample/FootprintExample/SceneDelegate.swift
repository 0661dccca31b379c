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
    }
}
