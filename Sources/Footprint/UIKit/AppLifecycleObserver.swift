#if canImport(UIKit) && !os(watchOS)
    import Foundation
    import UIKit

    /// Turns the host's lifecycle notifications into the capture core's lifecycle calls, list
    /// exposure callbacks, and the SDK client's lifecycle signals (the lifecycle events are
    /// decided there) and flushes, which run inside a background task so the system leaves them
    /// time to finish. Which notifications, what each means and what is played at install are
    /// decided by ``HostLifecycle``; this only observes and does it.
    ///
    /// An app's are `UIApplication`'s notifications, which are posted in scene-based apps too;
    /// the calls it makes are order-tolerant (a second scene may come forward before the first
    /// one's background notification). An app extension gets its host's `NSExtensionHost…`
    /// notifications instead.
    @MainActor
    final class AppLifecycleObserver {
        private let handler: (any AppLifecycleHandler)?
        private let rules: HostLifecycle
        private var observers: [any NSObjectProtocol] = []
        private var backgroundTask = UIBackgroundTaskIdentifier.invalid

        init(handler: (any AppLifecycleHandler)?) {
            self.handler = handler
            let application = HostApplication.shared
            rules = HostLifecycle(host: HostApplication.isExtension ? .appExtension : .application)
            let center = NotificationCenter.default
            for notification in rules.observed {
                observers.append(
                    center.addObserver(forName: Self.name(of: notification), object: nil, queue: .main) {
                        [weak self] posted in
                        let opening =
                            notification == .didFinishLaunching
                            ? Self.opening(launchOptions: posted.userInfo) : nil
                        MainActor.assumeIsolated { self?.received(notification, opening: opening) }
                    })
            }
            // Installed late (the app is active already): the activation it missed.
            perform(rules.actions(at: application.map { Self.state(of: $0) }), opening: nil)
        }

        private func received(_ notification: HostLifecycle.Notification, opening: AppOpening?) {
            perform(rules.actions(for: notification), opening: opening)
        }

        private func perform(_ actions: [HostLifecycle.Action], opening: AppOpening?) {
            for action in actions {
                switch action {
                case .launched: handler?.didFinishLaunching(opening ?? AppOpening())
                case .becameActive: handler?.didBecomeActive()
                case .enteringForeground: willEnterForeground()
                case .enteredBackground: didEnterBackground()
                case .flush: flush()
                }
            }
        }

        /// The notification's name.
        private nonisolated static func name(of notification: HostLifecycle.Notification) -> Notification.Name
        {
            switch notification {
            case .didFinishLaunching: UIApplication.didFinishLaunchingNotification
            case .didBecomeActive: UIApplication.didBecomeActiveNotification
            case .willEnterForeground: UIApplication.willEnterForegroundNotification
            case .didEnterBackground: UIApplication.didEnterBackgroundNotification
            case .hostDidBecomeActive: .NSExtensionHostDidBecomeActive
            case .hostWillEnterForeground: .NSExtensionHostWillEnterForeground
            case .hostWillResignActive: .NSExtensionHostWillResignActive
            case .hostDidEnterBackground: .NSExtensionHostDidEnterBackground
            }
        }

        private static func state(of application: UIApplication) -> HostLifecycle.ApplicationState {
            switch application.applicationState {
            case .active: .active
            case .background: .background
            default: .inactive
            }
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
            let task = beginBackgroundTask()
            handler.didEnterBackground { [weak self] in
                Task { @MainActor in self?.endBackgroundTask(task) }
            }
        }

        /// An extension's host resigns active: what is queued is uploaded.
        private func flush() {
            guard let handler else { return }
            let task = beginBackgroundTask()
            handler.willResignActive { [weak self] in
                Task { @MainActor in self?.endBackgroundTask(task) }
            }
        }

        /// Asks for background time for a flush (ending the previous one's). An app extension
        /// has no application to grant it: the flush just runs.
        private func beginBackgroundTask() -> UIBackgroundTaskIdentifier {
            endBackgroundTask(backgroundTask)
            let task =
                HostApplication.shared?.beginBackgroundTask(withName: "Footprint flush") { [weak self] in
                    self?.endBackgroundTask(self?.backgroundTask ?? .invalid)
                } ?? .invalid
            backgroundTask = task
            return task
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
