#if canImport(UIKit) && !os(watchOS)
    /// What the SDK client does when the app changes state; the UIKit adapter calls it from the
    /// app lifecycle notifications (on the main thread).
    public protocol AppLifecycleHandler: AnyObject, Sendable {
        /// The app finished launching, opened by `opening` (from the launch options) when known.
        func didFinishLaunching(_ opening: AppOpening)

        /// The app became active.
        func didBecomeActive()

        /// The app went to the background: persist and upload what is queued, then call
        /// `completion` (from any thread) so the adapter ends its background task. The adapter
        /// ends the task itself if the system's time runs out first.
        func didEnterBackground(completion: @escaping @Sendable () -> Void)

        /// The app is coming back to the foreground (resume timers, refresh the plan).
        func willEnterForeground()

        /// An app extension's host resigns active (the extension is dismissed, or the host
        /// leaves the screen): upload what is queued, then call `completion` (from any thread).
        func willResignActive(completion: @escaping @Sendable () -> Void)
    }

    extension AppLifecycleHandler {
        /// Does nothing: for handlers that only flush.
        public func didFinishLaunching(_ opening: AppOpening) {}

        /// Does nothing: for handlers that only flush.
        public func didBecomeActive() {}

        /// Calls `completion` at once: for handlers that flush only on background.
        public func willResignActive(completion: @escaping @Sendable () -> Void) { completion() }
    }
#endif
