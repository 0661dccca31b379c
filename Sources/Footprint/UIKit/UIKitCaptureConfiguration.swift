#if canImport(UIKit) && !os(watchOS)
    /// What the UIKit adapter hooks. Every kind of hook can be switched off here, on top of the
    /// plan's kill switches (which the capture core applies at every event).
    public struct UIKitCaptureConfiguration: Sendable {
        /// Page views: `viewDidAppear` / `viewDidDisappear` of the plan's page types (configured
        /// mode) or of `UIViewController` (all mode). Default true.
        public var hooksPages: Bool
        /// Control actions through `UIApplication.sendAction(_:to:from:for:)` and
        /// `UIControl.sendAction(_:)` (`UIAction`). Default true.
        public var hooksControls: Bool
        /// Table and collection cell selection, through a delegate proxy. Default true.
        public var hooksCells: Bool
        /// Tap and long-press gesture recognizers. Default true.
        public var hooksGestures: Bool
        /// Alert and action-sheet actions (`UIAlertAction`). Default true.
        public var hooksAlerts: Bool
        /// The plan's purpose methods (`@objc dynamic` methods named by `target` + `method`
        /// triggers). Default true.
        public var hooksMethods: Bool
        /// List exposure of table and collection views, through the same delegate proxy. Default
        /// true.
        public var feedsListExposure: Bool
        /// App lifecycle: launch, activation, background and foreground notifications (the
        /// lifecycle events), flush in a background task.
        /// Default true.
        public var observesLifecycle: Bool
        /// The exposure rules of UIKit lists and SwiftUI exposure lists. Default
        /// ``ExposureConfiguration``'s defaults.
        public var exposure: ExposureConfiguration
        /// The most items read from one list's layout (rows past it are not watched). Default
        /// 10,000.
        public var maximumListItems: Int
        /// Modules whose classes plan type names may name without a module (`HomeViewController`
        /// for `MyApp.HomeViewController`), tried in order after the app's executable module.
        /// Their Swift classes also count as the app's own code (purpose methods, list
        /// delegates), like everything inside the app's bundle. Default none.
        public var additionalModules: [String]
        /// Classes outside the app's own code (its bundle and ``additionalModules``) whose
        /// methods a plan may still hook as purpose methods, by plan type name. Default none:
        /// a plan cannot hook UIKit or other system classes.
        public var hookableTypes: Set<String>
        /// Receives what could not or must not be hooked (a plan names a missing class, a method
        /// that is not `@objc dynamic`, a refused method or class); called on the main thread.
        /// Default none.
        public var diagnostics: (@Sendable (UIKitDiagnostic) -> Void)?
        /// How a connect session's screenshot is encoded and capped (JPEG quality, byte cap,
        /// downscaling). Default ``ScreenshotSizing/init()``: quality 0.6, at most 1 MiB.
        public var screenshotSizing = ScreenshotSizing()
        /// Whether a connect session's snapshots carry a screenshot; `false` sends only the
        /// elements and frames (the dashboard draws a wireframe). Default `true`.
        public var capturesScreenshots = true

        /// Creates a configuration; every argument defaults to the documented value.
        public init(
            hooksPages: Bool = true, hooksControls: Bool = true, hooksCells: Bool = true,
            hooksGestures: Bool = true, hooksAlerts: Bool = true, hooksMethods: Bool = true,
            feedsListExposure: Bool = true, observesLifecycle: Bool = true,
            exposure: ExposureConfiguration = ExposureConfiguration(), maximumListItems: Int = 10_000,
            additionalModules: [String] = [], hookableTypes: Set<String> = [],
            diagnostics: (@Sendable (UIKitDiagnostic) -> Void)? = nil
        ) {
            self.hooksPages = hooksPages
            self.hooksControls = hooksControls
            self.hooksCells = hooksCells
            self.hooksGestures = hooksGestures
            self.hooksAlerts = hooksAlerts
            self.hooksMethods = hooksMethods
            self.feedsListExposure = feedsListExposure
            self.observesLifecycle = observesLifecycle
            self.exposure = exposure
            self.maximumListItems = maximumListItems
            self.additionalModules = additionalModules
            self.hookableTypes = hookableTypes
            self.diagnostics = diagnostics
        }
    }
#endif
