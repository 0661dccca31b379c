#if canImport(UIKit) && !os(watchOS)
    import UIKit

    extension Tracker: AppLifecycleHandler {
        /// Reports the launch (see ``Tracker/applicationDidFinishLaunching(_:)``).
        public func didFinishLaunching(_ opening: AppOpening) {
            applicationDidFinishLaunching(opening)
        }

        /// Reports the cold start when the launch was missed (see
        /// ``Tracker/applicationDidBecomeActive()``).
        public func didBecomeActive() {
            applicationDidBecomeActive()
        }

        /// Flushes inside the adapter's background task (see
        /// ``Tracker/applicationDidEnterBackground(completion:)``).
        public func didEnterBackground(completion: @escaping @Sendable () -> Void) {
            applicationDidEnterBackground(completion: completion)
        }

        /// Applies the session rules and refreshes the remote plan when due (see
        /// ``Tracker/applicationWillEnterForeground()``).
        public func willEnterForeground() {
            applicationWillEnterForeground()
        }

        /// Uploads what is queued when an app extension's host resigns active (see
        /// ``Tracker/flush(completion:)``).
        public func willResignActive(completion: @escaping @Sendable () -> Void) {
            flush(completion: completion)
        }
    }

    extension UIKitCapture {
        /// Installs automatic capture for `tracker`: its plan, its clock, its lifecycle
        /// (lifecycle events, flush on background), its sessions (once-per-session exposures start afresh). Call
        /// once, in `application(_:didFinishLaunchingWithOptions:)`, on the main thread, before
        /// any window is shown. Returns at once: capture starts while the tracker loads the
        /// device's id, and its events wait for the sampling decision.
        /// - Parameters:
        ///   - tracker: the SDK client that records what is captured.
        ///   - capture: the app's capture choices (ignored types, text length). Default: none.
        ///   - configuration: which hooks to install. Default: all.
        @discardableResult
        public static func install(
            tracker: Tracker, capture: AutoCaptureConfiguration = AutoCaptureConfiguration(),
            configuration: UIKitCaptureConfiguration = UIKitCaptureConfiguration()
        ) -> UIKitCapture {
            let adapter = install(
                capture: tracker.makeAutoCapture(configuration: capture), clock: tracker.configuration.clock,
                lifecycle: tracker, configuration: configuration)
            tracker.observeSessionStarts { _ in
                Task { @MainActor in UIKitCapture.installed?.sessionStarted() }
            }
            return adapter
        }
    }
#endif
