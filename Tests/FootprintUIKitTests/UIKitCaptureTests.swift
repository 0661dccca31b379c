#if canImport(UIKit) && !os(watchOS)
    import Foundation
    import Testing
    import UIKit

    @testable import Footprint

    /// The UIKit adapter against real views and controllers on an iOS simulator. The hooks are
    /// process-wide, so the tests run one after another; each installs a fresh adapter.
    @Suite(.serialized)
    @MainActor
    struct UIKitCaptureTests {
        let sink = CollectingSink()
        let clock = ManualClock()
        let diagnostics = DiagnosticLog()

        static let plan = TrackingPlan(
            pageMode: .configured,
            pages: ["ShareViewController": PageRule(name: "Share", properties: ["section": "articles"])],
            events: [
                PlanEvent(
                    id: "1001", name: "share",
                    triggers: [.method(target: "ShareViewController", method: "goShare")],
                    properties: ["article_url": PropertyKeyPath("target.articleURL")!]),
                PlanEvent(
                    id: "1002", name: "unhookable",
                    triggers: [
                        .method(target: "NoSuchController", method: "goShare"),
                        .method(target: "ShareViewController", method: "swiftOnlyShare"),
                        .method(target: "ShareViewController", method: "rate:"),
                    ]),
            ])

        @discardableResult
        func install(
            plan: TrackingPlan = Self.plan,
            configuration: UIKitCaptureConfiguration = UIKitCaptureConfiguration()
        ) -> UIKitCapture {
            var configuration = configuration
            configuration.additionalModules = ["FootprintUIKitTests"]
            let log = diagnostics
            configuration.diagnostics = { log.append($0) }
            let capture = AutoCapture(
                plans: PlanStore(bundled: plan), deviceID: "device-1", sink: sink, clock: clock)
            return UIKitCapture.install(capture: capture, clock: clock, configuration: configuration)
        }

        // MARK: Pages

        @Test func configuredPageReportsItsViewAndLeave() throws {
            install()
            let controller = ShareViewController()
            _ = showInWindow(controller)
            controller.beginAppearanceTransition(true, animated: false)
            controller.endAppearanceTransition()
            clock.advance(milliseconds: 1_500)
            controller.beginAppearanceTransition(false, animated: false)
            controller.endAppearanceTransition()

            #expect(sink.screens == ["Share"])
            let screen = try #require(sink.events.first { $0.kind == .screen(name: "Share") })
            #expect(screen.string("$screen_class") == "ShareViewController")
            #expect(screen.properties["section"] == .string("articles"))
            let leave = try #require(sink.tracks(CapturedEventName.screenLeave).first)
            #expect(leave.properties["duration_ms"] == .int(1_500))
        }

        @Test func unnamedControllersAreNotHookedInConfiguredMode() {
            install()
            #expect(
                MethodHooks.isHooked(
                    #selector(UIViewController.viewDidAppear(_:)), of: ShareViewController.self))
            let other = PlainViewController()
            _ = showInWindow(other)
            other.beginAppearanceTransition(true, animated: false)
            other.endAppearanceTransition()
            #expect(sink.screens.isEmpty)
        }

        // MARK: Purpose methods

        @Test func configuredMethodRaisesItsEventWithKeyPathValues() throws {
            install()
            let controller = ShareViewController()
            controller.goShare()
            let event = try #require(sink.tracks("share").first)
            #expect(event.string("$event_id") == "1001")
            #expect(event.string("$trigger") == "ShareViewController.goShare")
            #expect(event.string("article_url") == "https://example.com/articles/42")
            #expect(controller.shareCount == 1, "the original implementation still runs")
        }

        /// Off the main thread the values are read at the call, before the calling thread changes
        /// them; a call from `deinit` does not retain the object being deallocated.
        @Test func purposeMethodsOffTheMainThreadReportTheValuesOfTheCall() async throws {
            install()
            let controller = MainThreadValue(ShareViewController())
            DispatchQueue.global().sync {
                controller.value.perform(#selector(ShareViewController.goShare))
                controller.value.setValue("https://example.com/articles/43", forKey: "articleURL")
                autoreleasepool { _ = SharingOnDeinit() }
            }
            for _ in 0..<20 where sink.tracks("share").count < 2 {
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            let events = sink.tracks("share")
            #expect(events.first?.string("article_url") == "https://example.com/articles/42")
            #expect(events.count == 2, "the call from deinit is reported too, without a crash")
        }

        @Test func hookingTwiceReportsOnce() throws {
            install()
            install()
            let controller = ShareViewController()
            controller.goShare()
            #expect(sink.tracks("share").count == 1)
            #expect(controller.shareCount == 1)
        }

        /// A remote plan must not be able to hook what could crash every user.
        @Test func refusedPurposeMethodsAreReportedAndNotHooked() {
            var plan = Self.plan
            plan.events.append(
                PlanEvent(
                    id: "1003", name: "dangerous",
                    triggers: [
                        .method(target: "ShareViewController", method: "dealloc"),
                        .method(target: "ShareViewController", method: "_privateShare"),
                        .method(target: "UIViewController", method: "viewDidLoad"),
                    ]))
            install(plan: plan)
            let codes = diagnosticCodes
            #expect(codes["ShareViewController.dealloc"] == .unsafeMethod)
            #expect(codes["ShareViewController._privateShare"] == .unsafeMethod)
            #expect(codes["UIViewController.viewDidLoad"] == .outsideApp)
            #expect(!MethodHooks.isHooked(NSSelectorFromString("dealloc"), of: ShareViewController.self))
            #expect(!MethodHooks.isHooked(#selector(UIViewController.viewDidLoad), of: UIViewController.self))
            #expect(
                MethodHooks.isHooked(#selector(ShareViewController.goShare), of: ShareViewController.self))
        }

        @Test func unhookablePlanEntriesAreReportedNotFatal() {
            install()
            let codes = diagnosticCodes
            #expect(codes["NoSuchController.goShare"] == .missingClass)
            #expect(codes["ShareViewController.swiftOnlyShare"] == .missingMethod)
            #expect(codes["ShareViewController.rate:"] == .unsupportedSignature)
        }

        // MARK: Controls

        @Test func uiActionButtonReportsItsTap() throws {
            install()
            let controller = PlainViewController()
            let tapped = Counter()
            let button = UIButton(primaryAction: UIAction(title: "Buy") { _ in tapped.value += 1 })
            button.footprint.properties = ["slot": "top"]
            controller.view.addSubview(button)
            _ = showInWindow(controller)

            // What UIKit does when the button's primary action triggers.
            button.sendAction(try registeredAction(of: button))

            #expect(tapped.value == 1, "the action still runs")
            let click = try #require(sink.tracks(CapturedEventName.elementClick).first)
            #expect(click.string("$element_type") == "UIButton")
            #expect(click.string("$element_text") == "Buy")
            #expect(click.string("slot") == "top")
            let path = try #require(click.string("$element_path"))
            #expect(path.hasPrefix("#UIAction#UIButton#UIButton[0]#"))
            #expect(path.contains("#PlainViewController#"))
        }

        @Test func selectorActionsAreFilteredByControlEvent() throws {
            install()
            #expect(
                MethodHooks.isHooked(
                    #selector(UIApplication.sendAction(_:to:from:for:)), of: UIApplication.self))
            let controller = PlainViewController()
            let button = UIButton(type: .system)
            button.setTitle("Pay", for: .normal)
            button.addTarget(controller, action: #selector(PlainViewController.pay(_:)), for: .touchUpInside)
            button.addTarget(
                controller, action: #selector(PlainViewController.highlight(_:)), for: .touchDown)
            let field = UITextField()
            field.isSecureTextEntry = true
            field.addTarget(
                controller, action: #selector(PlainViewController.typed(_:)), for: .editingChanged)
            controller.view.addSubview(button)
            controller.view.addSubview(field)
            _ = showInWindow(controller)

            // What the sendAction hook does for each target-action pair UIKit dispatches (test
            // bundles have no UIApplication to dispatch through).
            ControlActionHooks.record(
                action: #selector(PlainViewController.highlight(_:)), target: controller, sender: button,
                event: nil)
            ControlActionHooks.record(
                action: #selector(PlainViewController.typed(_:)), target: controller, sender: field,
                event: nil)
            ControlActionHooks.record(
                action: #selector(PlainViewController.pay(_:)), target: controller, sender: button, event: nil
            )

            let clicks = sink.tracks(CapturedEventName.elementClick)
            try #require(clicks.count == 1)
            #expect(clicks[0].string("$element_path")?.hasPrefix("#pay:#UIButton#UIButton[0]#") == true)
            #expect(clicks[0].string("$element_text") == "Pay")
        }

        @Test func switchedOffControlsReportNothing() throws {
            install(configuration: UIKitCaptureConfiguration(hooksControls: false))
            let controller = PlainViewController()
            let button = UIButton(primaryAction: UIAction(title: "Buy") { _ in })
            controller.view.addSubview(button)
            button.sendAction(try registeredAction(of: button))
            #expect(sink.tracks(CapturedEventName.elementClick).isEmpty)
            install()
            button.sendAction(try registeredAction(of: button))
            #expect(sink.tracks(CapturedEventName.elementClick).count == 1, "the same tap, switched on")
        }

        @Test func ignoredViewsReportNothing() throws {
            install()
            let controller = PlainViewController()
            let container = UIView()
            let button = UIButton(primaryAction: UIAction(title: "Secret") { _ in })
            container.addSubview(button)
            controller.view.addSubview(container)
            button.sendAction(try registeredAction(of: button))
            #expect(sink.tracks(CapturedEventName.elementClick).count == 1)
            container.footprint.isIgnored = true
            button.sendAction(try registeredAction(of: button))
            #expect(sink.tracks(CapturedEventName.elementClick).count == 1, "nothing more once ignored")
        }

        /// A `UIAction` counts only for the events it is registered for: one added for touch-down
        /// or for typing is not a tap.
        @Test func uiActionsReportOnlyForTheEventsTheyAreRegisteredFor() throws {
            install()
            let controller = PlainViewController()
            let button = UIButton(type: .system)
            let pressed = UIAction(title: "Pressed") { _ in }
            let tapped = UIAction(title: "Tapped") { _ in }
            button.addAction(pressed, for: .touchDown)
            button.addAction(tapped, for: .touchUpInside)
            let field = UITextField()
            let typed = UIAction(title: "Typed") { _ in }
            let returned = UIAction(title: "Returned") { _ in }
            field.addAction(typed, for: .editingChanged)
            field.addAction(returned, for: .editingDidEndOnExit)
            controller.view.addSubview(button)
            controller.view.addSubview(field)

            #expect(ControlActionHooks.registeredEvents(of: button, uiAction: pressed) == .touchDown)
            button.sendAction(pressed)
            field.sendAction(typed)
            #expect(sink.tracks(CapturedEventName.elementClick).isEmpty)
            button.sendAction(tapped)
            field.sendAction(returned)
            let paths = sink.tracks(CapturedEventName.elementClick).compactMap { $0.string("$element_path") }
            #expect(paths.count == 2)
            #expect(paths.first?.hasPrefix("#UIAction#UIButton#") == true)
            #expect(paths.last?.hasPrefix("#UIAction#UITextField#") == true)
        }

        /// UIKit sends a bar button tap twice: from its private button view to a private target,
        /// then from the `UIBarButtonItem` to the app's target. One click is reported.
        @Test func aBarButtonTapIsReportedOnce() throws {
            install()
            let controller = PlainViewController()
            let item = UIBarButtonItem(
                title: "Checkout", style: .plain, target: controller,
                action: #selector(PlainViewController.pay(_:)))
            let privateTarget = _BarButtonTarget()
            let privateButton = _BarButtonView()
            privateButton.addTarget(
                privateTarget, action: #selector(_BarButtonTarget._invoke(_:forEvent:)), for: .touchUpInside)
            controller.view.addSubview(privateButton)
            _ = showInWindow(controller)

            ControlActionHooks.record(
                action: #selector(_BarButtonTarget._invoke(_:forEvent:)), target: privateTarget,
                sender: privateButton, event: nil)
            ControlActionHooks.record(
                action: #selector(PlainViewController.pay(_:)), target: controller, sender: item, event: nil)

            let clicks = sink.tracks(CapturedEventName.elementClick)
            try #require(clicks.count == 1)
            #expect(
                clicks[0].string("$element_path")?.hasPrefix(
                    "#pay:#UIBarButtonItem#UIBarButtonItem#PlainViewController#")
                    == true)
            #expect(clicks[0].string("$element_text") == "Checkout")
        }

        // MARK: Gestures

        @Test func tapRecognizersGetFootprintsTarget() {
            install()
            let view = UIView()
            let tap = UITapGestureRecognizer(target: nil, action: nil)
            view.addGestureRecognizer(tap)
            let pan = UIPanGestureRecognizer(target: nil, action: nil)
            view.addGestureRecognizer(pan)
            let systemTap = _SystemTapRecognizer(target: nil, action: nil)
            view.addGestureRecognizer(systemTap)
            #expect(GestureHooks.isWatched(tap))
            #expect(!GestureHooks.isWatched(pan))
            #expect(!GestureHooks.isWatched(systemTap), "UIKit's own recognizers are left alone")
        }

        // MARK: Alerts

        @Test func alertActionHandlerIsReportedThenCalled() throws {
            install()
            let handled = Counter()
            let alert = UIAlertController(title: "Delete photo?", message: nil, preferredStyle: .alert)
            alert.addAction(UIAlertAction(title: "Cancel", style: .cancel))
            let delete = UIAlertAction(title: "Delete", style: .destructive) { _ in handled.value += 1 }
            alert.addAction(delete)

            try invokeHandler(of: delete)

            #expect(handled.value == 1, "the app's handler still runs")
            let click = try #require(sink.tracks(CapturedEventName.elementClick).first)
            #expect(click.string("$element_text") == "Delete")
            #expect(click.string("$element_path")?.contains("UIAlertAction[1]#UIAlertController") == true)
        }

        @Test func alertActionWithoutHandlerIsReported() throws {
            install()
            let alert = UIAlertController(title: nil, message: nil, preferredStyle: .actionSheet)
            let cancel = UIAlertAction(title: "Cancel", style: .cancel)
            alert.addAction(cancel)
            try invokeHandler(of: cancel)
            #expect(sink.tracks(CapturedEventName.elementClick).count == 1)
        }

        /// The diagnostics reported so far, by `Type.method`.
        private var diagnosticCodes: [String: UIKitDiagnostic.Code] {
            Dictionary(
                diagnostics.diagnostics.map { ("\($0.typeName).\($0.method ?? "")", $0.code) },
                uniquingKeysWith: { first, _ in first })
        }

        /// The `UIAction` registered on `control` (its primary action).
        private func registeredAction(of control: UIControl) throws -> UIAction {
            var found: UIAction?
            control.enumerateEventHandlers { action, _, _, _ in
                if found == nil { found = action }
            }
            return try #require(found)
        }

        /// Calls an action's handler as UIKit does when the user chooses it. Test-only: reads the
        /// action's private `handler` key (no public API chooses an alert action).
        private func invokeHandler(of action: UIAlertAction) throws {
            typealias Handler = @convention(block) (UIAlertAction) -> Void
            let handler = try #require(action.value(forKey: "handler") as AnyObject?)
            unsafeBitCast(handler, to: Handler.self)(action)
        }
    }

    /// A page the plan names, with a purpose method.
    class ShareViewController: UIViewController {
        @objc dynamic var articleURL = "https://example.com/articles/42"
        private(set) var shareCount = 0

        @objc dynamic func goShare() {
            shareCount += 1
        }

        /// Not visible to the Objective-C runtime: cannot be hooked.
        func swiftOnlyShare() {}

        /// Private by its name: never hooked.
        @objc dynamic func _privateShare() {}

        /// Takes an integer: not a signature Footprint hooks.
        @objc dynamic func rate(_ stars: Int) {}
    }

    /// Calls its purpose method from `deinit`.
    final class SharingOnDeinit: ShareViewController {
        deinit {
            perform(#selector(ShareViewController.goShare))
        }
    }

    /// Counts calls of a handler.
    @MainActor
    final class Counter {
        var value = 0
    }

    /// Stands for a tap recognizer UIKit uses inside its own views (a private type).
    final class _SystemTapRecognizer: UITapGestureRecognizer {}

    /// Stands for UIKit's private bar button view (a private control type).
    final class _BarButtonView: UIControl {}

    /// Stands for UIKit's private bar button target.
    final class _BarButtonTarget: NSObject {
        @objc func _invoke(_ sender: Any?, forEvent event: UIEvent?) {}
    }

    /// A controller the plan does not name.
    final class PlainViewController: UIViewController {
        @objc func pay(_ sender: Any?) {}
        @objc func highlight(_ sender: Any?) {}
        @objc func typed(_ sender: Any?) {}
    }
#endif
