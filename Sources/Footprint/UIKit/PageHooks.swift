#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// Page views from `viewDidAppear(_:)` and `viewDidDisappear(_:)`.
    ///
    /// In the plan's configured page mode only the named controller types are hooked, so other
    /// controllers run untouched; in all mode `UIViewController` itself is hooked, which every
    /// override reaches through `super`. A controller hooked at two levels (a plan naming a base
    /// class and its subclass), or a cancelled swipe-back that makes a page appear twice, reports
    /// the same instance twice; the capture core counts it once.
    @MainActor
    enum PageHooks {
        /// Hooks `pageTypes` (plan type names), or every controller when `nil`; the outcome of
        /// each named type, for the plan's health.
        @discardableResult
        static func install(pageTypes: Set<String>?, adapter: UIKitCapture) -> [String: PlanHealth.Outcome] {
            guard let pageTypes else {
                hook(UIViewController.self)
                return [:]
            }
            var outcomes: [String: PlanHealth.Outcome] = [:]
            for typeName in pageTypes.sorted() {
                let diagnostic: UIKitDiagnostic
                if let cls = adapter.resolveClass(named: typeName) {
                    if let controllerClass = cls as? UIViewController.Type {
                        hook(controllerClass)
                        outcomes[typeName] = .applied
                        continue
                    }
                    diagnostic = UIKitDiagnostic(
                        code: .missingClass, typeName: typeName,
                        message: "The plan's page \(typeName) is not a UIViewController subclass.")
                } else {
                    diagnostic = UIKitDiagnostic(
                        code: .missingClass, typeName: typeName,
                        message:
                            "The plan's page \(typeName) is not a class known to the Objective-C runtime.")
                }
                adapter.report(diagnostic)
                outcomes[typeName] = diagnostic.planOutcome
            }
            return outcomes
        }

        private typealias AppearanceMethod = @convention(c) (UIViewController, Selector, Bool) -> Void
        private typealias AppearanceHook = @convention(block) (UIViewController, Bool) -> Void

        private static func hook(_ cls: UIViewController.Type) {
            hookAppearance(#selector(UIViewController.viewDidAppear(_:)), of: cls) { capture, page in
                capture.pageAppeared(page)
            }
            hookAppearance(#selector(UIViewController.viewDidDisappear(_:)), of: cls) { capture, page in
                capture.pageDisappeared(page)
            }
        }

        /// Hooks one appearance method: the original runs first, then the page is reported.
        private static func hookAppearance(
            _ selector: Selector, of cls: UIViewController.Type,
            report: @escaping @MainActor (AutoCapture, PageDescription) -> Void
        ) {
            _ = MethodHooks.hook(selector, of: cls) { original in
                appearanceBlock(original, report: report)
            }
        }

        /// Not main-actor isolated (``MethodHooks/onMainThread(_:_:)``): reports on the main thread only.
        private nonisolated static func appearanceBlock(
            _ original: OriginalImplementation,
            report: @escaping @MainActor (AutoCapture, PageDescription) -> Void
        ) -> Any {
            let block: AppearanceHook = { controller, animated in
                unsafeBitCast(original.implementation, to: AppearanceMethod.self)(
                    controller, original.selector, animated)
                MethodHooks.onMainThread(controller) { controller in
                    guard let adapter = UIKitCapture.installed, adapter.configuration.hooksPages else {
                        return
                    }
                    report(adapter.capture, ResponderChainDescriber.page(for: controller))
                }
            }
            return block
        }
    }
#endif
