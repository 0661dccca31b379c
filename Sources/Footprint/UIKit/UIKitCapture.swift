#if canImport(UIKit) && !os(watchOS)
    import Foundation
    import UIKit

    /// Automatic capture in a UIKit app: installs the hooks once per process and forwards what
    /// they see to the capture core (``AutoCapture``) and to list exposure.
    ///
    /// ```swift
    /// UIKitCapture.install(capture: capture, sink: tracker, lifecycle: client)
    /// ```
    ///
    /// Install it from `application(_:didFinishLaunchingWithOptions:)`, before any window is
    /// shown, so that every table and collection view gets its delegate proxy. Installing again
    /// replaces the previous installation (the hooks stay, and serve the new one). Every hook
    /// always calls the original implementation; with nothing installed, or with its kind
    /// switched off, a hook does nothing else.
    @MainActor
    public final class UIKitCapture {
        /// The installation the hooks report to, if any.
        public private(set) static var installed: UIKitCapture?

        /// The capture core.
        public let capture: AutoCapture
        /// What is hooked.
        public let configuration: UIKitCaptureConfiguration
        /// Receives list exposure events (the SDK tracker).
        let sink: any CaptureSink
        /// Where list exposure reads the time.
        let clock: any Clock
        private var lifecycleObserver: AppLifecycleObserver?
        /// The lists whose exposure is watched (weakly held).
        let exposureDrivers = NSHashTable<ListExposureDriver>.weakObjects()
        /// The SwiftUI lists whose exposure is watched (weakly held).
        let swiftUIExposureDrivers = NSHashTable<SwiftUIListExposureDriver>.weakObjects()

        private init(
            capture: AutoCapture, sink: any CaptureSink, clock: any Clock,
            configuration: UIKitCaptureConfiguration
        ) {
            self.capture = capture
            self.sink = sink
            self.clock = clock
            self.configuration = configuration
        }

        /// Installs automatic capture.
        /// - Parameters:
        ///   - capture: the capture core; pages, elements and purpose methods go there.
        ///   - sink: receives list exposure and skip events (the SDK tracker).
        ///   - clock: where list exposure reads the time. Default: the system clock.
        ///   - lifecycle: told when the app goes to the background (to flush) and comes back;
        ///     default none.
        ///   - configuration: which hooks to use. Default: all of them.
        /// - Returns: the installation, also ``installed``.
        @discardableResult
        public static func install(
            capture: AutoCapture, sink: any CaptureSink, clock: any Clock = SystemClock(),
            lifecycle: (any AppLifecycleHandler)? = nil,
            configuration: UIKitCaptureConfiguration = UIKitCaptureConfiguration()
        ) -> UIKitCapture {
            installed?.uninstall()
            let adapter = UIKitCapture(
                capture: capture, sink: sink, clock: clock, configuration: configuration)
            installed = adapter
            if configuration.observesLifecycle {
                adapter.lifecycleObserver = AppLifecycleObserver(handler: lifecycle)
            }
            adapter.installHooks()
            capture.plans.observe { _ in
                Task { @MainActor in UIKitCapture.installed?.installPlanHooks() }
            }
            return adapter
        }

        /// Stops reporting: the hooks stay in place but do nothing more than the original.
        public func uninstall() {
            lifecycleObserver?.stop()
            lifecycleObserver = nil
            if Self.installed === self { Self.installed = nil }
        }

        /// A new session started (the SDK client calls it): UIKit lists whose exposure repeat
        /// policy is ``ExposureRepeatPolicy/oncePerSession`` count their items afresh.
        public func sessionStarted() {
            broadcastToLists(.sessionStarted)
        }

        private func installHooks() {
            if configuration.hooksControls { ControlActionHooks.install() }
            if configuration.hooksGestures { GestureHooks.install() }
            if configuration.hooksCells || configuration.feedsListExposure { ListViewHooks.install() }
            if configuration.hooksAlerts { AlertActionHooks.install() }
            installPlanHooks()
        }

        /// Hooks what the plan in force names: its page types (or every controller in all
        /// mode) and its purpose methods. Called again after each plan change; hooks already in
        /// place are kept.
        func installPlanHooks() {
            let hooks = capture.hooks
            if configuration.hooksPages { PageHooks.install(pageTypes: hooks.pageTypes, adapter: self) }
            if configuration.hooksMethods { PurposeMethodHooks.install(hooks.methods, adapter: self) }
        }

        // MARK: Services for the hooks

        /// The class a plan's type name names: as written, else in the app's module, else in
        /// ``UIKitCaptureConfiguration/additionalModules``.
        func resolveClass(named typeName: String) -> AnyClass? {
            var modules: [String] = []
            if let executable = Bundle.main.infoDictionary?["CFBundleExecutable"] as? String {
                modules.append(executable)
            }
            modules += configuration.additionalModules
            for candidate in TypeName.runtimeCandidates(for: typeName, modules: modules) {
                if let cls = NSClassFromString(candidate) { return cls }
            }
            return nil
        }

        /// Reports something that could not be hooked.
        func report(_ diagnostic: UIKitDiagnostic) {
            configuration.diagnostics?(diagnostic)
        }

        /// Tells every watched list that the app changed state.
        func broadcastToLists(_ callback: ListCallback) {
            for driver in exposureDrivers.allObjects { driver.handle(callback) }
            for driver in swiftUIExposureDrivers.allObjects { driver.handle(callback) }
        }
    }
#endif
