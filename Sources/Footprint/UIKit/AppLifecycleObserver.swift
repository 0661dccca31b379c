#if canImport(UIKit) && !os(watchOS)
    import Foundation
    import UIKit

    /// Turns the app's launch, activation, background and foreground notifications into the
    /// capture core's lifecycle calls, list exposure callbacks, and the SDK client's lifecycle
    /// signals (the lifecycle events are decided there) and flush, which runs inside a background
    /// task so the system leaves it time to finish.
    ///
    /// It observes `UIApplication`'s notifications, which are posted in scene-based apps too;
    /// the calls it makes are order-tolerant (a second scene may come forward before the first
    /// one's background notification).
    @MainActor
    final class AppLifecycleObserver {
        private let handler: (any AppLifecycleHandler)?
        private var observers: [any NSObjectProtocol] = []
        private var backgroundTask = UIBackgroundTaskIdentifier.invalid

        init(handler: (any AppLifecycleHandler)?) {
            self.handler = handler
            let center = NotificationCenter.default
            observers.append(
                center.addObserver(
                    forName: UIApplication.didFinishLaunchingNotification, object: nil, queue: .main
                ) { [weak self] notification in
                    let opening = Self.opening(launchOptions: notification.userInfo)
                    MainActor.assumeIsolated { self?.handler?.didFinishLaunching(opening) }
                })
            observers.append(
                center.addObserver(
                    forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main
                ) { [weak self] _ in
                    MainActor.assumeIsolated { self?.handler?.didBecomeActive() }
                })
            observers.append(
                center.addObserver(
                    forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main
                ) { [weak self] _ in
                    MainActor.assumeIsolated { self?.didEnterBackground() }
                })
            observers.append(
                center.addObserver(
                    forName: UIApplication.willEnterForegroundNotification, object: nil, queue: .main
                ) { [weak self] _ in
                    MainActor.assumeIsolated { self?.willEnterForeground() }
                })
        }

        /// Stops observing (the adapter was uninstalled).
        func stop() {
            for observer in observers { NotificationCenter.default.removeObserver(observer) }
            observers = []
            endBackgroundTask(backgroundTask)
        }

        private func didEnterBackground() {
            if let adapter = UIKitCapture.installed {
                adapter.capture.appEnteredBackground()
                adapter.broadcastToLists(.appDidEnterBackground)
            }
            guard let handler else { return }
            endBackgroundTask(backgroundTask)
            // An app extension has no application to grant background time: the flush just runs.
            let task =
                HostApplication.shared?.beginBackgroundTask(withName: "Footprint flush") { [weak self] in
                    self?.endBackgroundTask(self?.backgroundTask ?? .invalid)
                } ?? .invalid
            backgroundTask = task
            handler.didEnterBackground { [weak self] in
                Task { @MainActor in self?.endBackgroundTask(task) }
            }
        }

        private func willEnterForeground() {
            if let adapter = UIKitCapture.installed {
                adapter.capture.appEnteredForeground()
                adapter.broadcastToLists(.appWillEnterForeground)
            }
            handler?.willEnterForeground()
        }

        /// The URL, source application and remote notification of the launch options, as the
        /// lifecycle events report them (a payload that is not a property list is left out).
        nonisolated static func opening(launchOptions: [AnyHashable: Any]?) -> AppOpening {
            let options = launchOptions ?? [:]
            var opening = AppOpening()
            opening.url = (options[UIApplication.LaunchOptionsKey.url] as? URL)?.absoluteString
            opening.referringApplication =
                options[UIApplication.LaunchOptionsKey.sourceApplication] as? String
            if let payload = options[UIApplication.LaunchOptionsKey.remoteNotification] as? [String: Any],
                case .object(let notification)? = try? TrackingPlan.jsonValue(
                    propertyListObject: payload, at: "")
            {
                opening.notification = notification
            }
            return opening
        }

        /// Ends `task` if it is the one running (a flush that finishes late must not end the
        /// task of a later background entry, and no task is ended twice).
        private func endBackgroundTask(_ task: UIBackgroundTaskIdentifier) {
            guard task != .invalid, task == backgroundTask else { return }
            HostApplication.shared?.endBackgroundTask(task)
            backgroundTask = .invalid
        }
    }
#endif
