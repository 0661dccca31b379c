#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// The app's `UIApplication`, looked up at run time: `UIApplication.shared` cannot be named
    /// in code that app extensions link, and an extension has no application (then `nil`).
    @MainActor
    enum HostApplication {
        /// The application, or `nil` in an app extension (and in test bundles without a host).
        static var shared: UIApplication? {
            guard !isExtension else { return nil }
            let applicationClass: AnyObject = UIApplication.self
            return applicationClass.value(forKey: "sharedApplication") as? UIApplication
        }

        /// Whether the code runs in an app extension (its bundle is an `.appex`).
        static var isExtension: Bool { Bundle.main.bundleURL.pathExtension == "appex" }

        /// The windows of the application's connected scenes.
        static var windows: [UIWindow] {
            (shared?.connectedScenes ?? []).compactMap { $0 as? UIWindowScene }.flatMap(\.windows)
        }
    }
#endif
