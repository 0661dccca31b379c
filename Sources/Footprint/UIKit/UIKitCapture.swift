#if canImport(UIKit) && !os(watchOS)
    import Foundation
    import UIKit

    /// Automatic capture in a UIKit app: installs the hooks once per process and forwards what
    /// they see to the capture core (``AutoCapture``) and to list exposure.
    ///
    /// ```swift
    /// UIKitCapture.install(capture: capture, lifecycle: client)
    /// ```
    ///
    /// Install it from `application(_:didFinishLaunchingWithOptions:)`, before any window is
    /// shown; it returns at once (nothing waits for the disk). Lists whose delegate was set
    /// before get their delegate proxy when they next enter a window, or at install when they
    /// are on screen then. Installing again replaces the previous installation (the hooks stay,
    /// and serve the new one). Every hook always calls the original implementation; with
    /// nothing installed, or with its kind switched off, a hook does nothing else.
    ///
    /// In an app extension there is no `UIApplication`: the hooks work, and the lifecycle
    /// observer flushes without a background task.
    @MainActor
    public final class UIKitCapture {
        /// The installation the hooks report to, if any.
        public private(set) static var installed: UIKitCapture?

        /// The capture core.
        public let capture: AutoCapture
        /// What is hooked.
        public let configuration: UIKitCaptureConfiguration
        /// Receives list exposure events: the capture core's sink, behind device sampling.
        let sink: any CaptureSink
        /// Which classes are the app's: the only lists wrapped, the only purpose methods hooked.
        let appCode: AppCode
        /// Where list exposure reads the time.
        let clock: any Clock
        private var lifecycleObserver: AppLifecycleObserver?
        /// The lists whose exposure is watched (weakly held).
        let exposureDrivers = NSHashTable<ListExposureDriver>.weakObjects()
        /// The SwiftUI lists whose exposure is watched (weakly held).
        let swiftUIExposureDrivers = NSHashTable<SwiftUIListExposureDriver>.weakObjects()

        private init(capture: AutoCapture, clock: any Clock, configuration: UIKitCaptureConfiguration) {
            self.capture = capture
            self.sink = capture.sampledSink
            self.clock = clock
            self.configuration = configuration
            var modules = Set(
                configuration.additionalModules.map { TypeName.moduleName(fromProductName: $0) })
            if let executable = Bundle.main.infoDictionary?["CFBundleExecutable"] as? String {
                modules.insert(TypeName.moduleName(fromProductName: executable))
            }
            appCode = AppCode(bundlePath: Bundle.main.bundlePath, modules: modules)
        }

        /// Installs automatic capture.
        /// - Parameters:
        ///   - capture: the capture core; pages, elements, purpose methods and list exposure go
        ///     there (and through it to its sink).
        ///   - clock: where list exposure reads the time. Default: the system clock.
        ///   - lifecycle: told when the app goes to the background (to flush) and comes back;
        ///     default none.
        ///   - configuration: which hooks to use. Default: all of them.
        /// - Returns: the installation, also ``installed``.
        @discardableResult
        public static func install(
            capture: AutoCapture, clock: any Clock = SystemClock(),
            lifecycle: (any AppLifecycleHandler)? = nil,
            configuration: UIKitCaptureConfiguration = UIKitCaptureConfiguration()
        ) -> UIKitCapture {
            installed?.uninstall()
            let adapter = UIKitCapture(capture: capture, clock: clock, configuration: configuration)
            installed = adapter
            if configuration.observesLifecycle {
                adapter.lifecycleObserver = AppLifecycleObserver(handler: lifecycle)
            }
            adapter.installHooks()
            adapter.adoptListsOnScreen()
            capture.plans.observe { _ in
                Task { @MainActor in UIKitCapture.installed?.installPlanHooks() }
            }
            capture.connectSession?.setScreenSource {
                // The screen is read and drawn on the main thread; the JPEG is encoded here, off it.
                let captured = await MainActor.run {
                    UIKitCapture.installed.flatMap { ScreenDescriber.capture(adapter: $0) }
                }
                guard var content = captured?.content else { return nil }
                content.image = captured?.screen.flatMap(ScreenDescriber.encode)
                return content
            }
            return adapter
        }

        /// Installs automatic capture; list exposure now records through `capture`'s own sink
        /// (behind its device sampling), so `sink` is not used.
        @available(*, deprecated, message: "list exposure records through the capture core's sink")
        @discardableResult
        public static func install(
            capture: AutoCapture, sink: any CaptureSink, clock: any Clock = SystemClock(),
            lifecycle: (any AppLifecycleHandler)? = nil,
            configuration: UIKitCaptureConfiguration = UIKitCaptureConfiguration()
        ) -> UIKitCapture {
            install(capture: capture, clock: clock, lifecycle: lifecycle, configuration: configuration)
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
        /// What came of each hook is reported as the plan's health (``AutoCapture/planApplied(methods:pages:)``).
        func installPlanHooks() {
            let hooks = capture.hooks
            let pages =
                configuration.hooksPages ? PageHooks.install(pageTypes: hooks.pageTypes, adapter: self) : [:]
            let methods =
                configuration.hooksMethods ? PurposeMethodHooks.install(hooks.methods, adapter: self) : [:]
            capture.planApplied(methods: methods, pages: pages)
        }

        /// Gives the lists on screen now their delegate proxy and exposure (their delegate was
        /// set before install, and they will not enter a window again soon).
        private func adoptListsOnScreen() {
            guard configuration.hooksCells || configuration.feedsListExposure else { return }
            var pending: [UIView] = HostApplication.windows
            var visited = 0
            while let view = pending.popLast(), visited < Self.maximumViewsVisitedAtInstall {
                visited += 1
                if let list = view as? UIScrollView, list is UITableView || list is UICollectionView {
                    ListDelegateProxy.adoptDelegate(of: list)
                    ListExposureDriver.listMovedToWindow(list)
                }
                pending += view.subviews
            }
        }

        /// The most views looked at when adopting the lists on screen at install.
        static let maximumViewsVisitedAtInstall = 20_000

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
