/// What the UI adapter does with its host's lifecycle: which notifications it observes (an app
/// gets `UIApplication`'s, an app extension only `NSExtensionHost…` ones), what it plays at
/// install, and what each notification means for the tracker and the capture core. Pure: the
/// adapter reads the application's state and observes the notifications, then does what
/// ``actions(at:)`` and ``actions(for:)`` return.
///
/// **Late install.** Installed after the application became active (behind a consent screen,
/// say), the adapter missed the launch and the activation: it plays the activation then, so that
/// the cold `Application Opened` and `Application Installed` are reported now, and the first
/// background is known to leave the foreground. An app extension plays nothing (its host's
/// state cannot be read).
///
/// **App extensions** flush when their host resigns active (the extension is dismissed or the
/// host app leaves the screen) and when it enters the background; the latter also leaves the
/// foreground, as an app's background does.
struct HostLifecycle: Sendable, Hashable {
    /// What runs the code.
    enum Host: Sendable, Hashable {
        /// An app: `UIApplication` and its notifications.
        case application
        /// An app extension: no `UIApplication`, its host's `NSExtensionHost…` notifications.
        case appExtension
    }

    /// `UIApplication.State` at install, as the adapter read it.
    enum ApplicationState: Sendable, Hashable {
        /// In the foreground, receiving events.
        case active
        /// In the foreground, not receiving events (launching, or interrupted).
        case inactive
        /// In the background.
        case background
    }

    /// A lifecycle notification the adapter observes.
    enum Notification: Sendable, Hashable, CaseIterable {
        /// `UIApplication.didFinishLaunchingNotification`.
        case didFinishLaunching
        /// `UIApplication.didBecomeActiveNotification`.
        case didBecomeActive
        /// `UIApplication.willEnterForegroundNotification`.
        case willEnterForeground
        /// `UIApplication.didEnterBackgroundNotification`.
        case didEnterBackground
        /// `NSExtensionHostDidBecomeActive`.
        case hostDidBecomeActive
        /// `NSExtensionHostWillEnterForeground`.
        case hostWillEnterForeground
        /// `NSExtensionHostWillResignActive`.
        case hostWillResignActive
        /// `NSExtensionHostDidEnterBackground`.
        case hostDidEnterBackground
    }

    /// What the adapter does.
    enum Action: Sendable, Hashable {
        /// Tell the tracker the app launched (with the launch options' opening).
        case launched
        /// Tell the tracker the app became active (the cold start when the launch was missed).
        case becameActive
        /// Pages and lists resume; the tracker hears the return to the foreground.
        case enteringForeground
        /// Pages are left, lists pause; the tracker hears the background and flushes.
        case enteredBackground
        /// The tracker flushes what is queued (nothing else changes).
        case flush
    }

    /// What runs the code.
    let host: Host

    /// Creates the rules for `host`.
    init(host: Host) {
        self.host = host
    }

    /// The notifications to observe: `UIApplication`'s in an app, the host's in an extension.
    var observed: [Notification] {
        switch host {
        case .application: [.didFinishLaunching, .didBecomeActive, .willEnterForeground, .didEnterBackground]
        case .appExtension:
            [.hostDidBecomeActive, .hostWillEnterForeground, .hostWillResignActive, .hostDidEnterBackground]
        }
    }

    /// What to play at install, given the application's state then (`nil`: unknown): the
    /// activation when the app is already active, else nothing (its own notifications follow).
    func actions(at state: ApplicationState?) -> [Action] {
        host == .application && state == .active ? [.becameActive] : []
    }

    /// What `notification` means.
    func actions(for notification: Notification) -> [Action] {
        switch notification {
        case .didFinishLaunching: [.launched]
        case .didBecomeActive, .hostDidBecomeActive: [.becameActive]
        case .willEnterForeground, .hostWillEnterForeground: [.enteringForeground]
        case .didEnterBackground, .hostDidEnterBackground: [.enteredBackground]
        case .hostWillResignActive: [.flush]
        }
    }
}
