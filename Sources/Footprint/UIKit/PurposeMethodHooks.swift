#if canImport(UIKit) && !os(watchOS)
    import Foundation
    import ObjectiveC
    import UIKit

    /// The plan's purpose methods (`{"target": "ArticleViewController", "method": "goShare"}`): the
    /// Objective-C method is hooked so that every call raises the plan's event, whatever the user
    /// pressed to reach it.
    ///
    /// Only Objective-C methods can be hooked: a Swift method must be declared `@objc dynamic`
    /// (`@objc` alone may be called directly by Swift code, bypassing the hook). A hookable method
    /// returns nothing and takes at most two object arguments (``ObjCMethodSignature``). A remote
    /// plan reaches every user at once, so ``PurposeMethodRule`` refuses whatever could crash
    /// them all: memory management and lifecycle (`dealloc`, `.cxx_destruct`, `release`...), the
    /// runtime's own methods, private (`_`) selectors, and classes outside the app's own code
    /// unless ``UIKitCaptureConfiguration/hookableTypes`` lists them. A plan entry naming a
    /// missing class, a refused method, a missing method or another signature is reported
    /// through ``UIKitCaptureConfiguration/diagnostics`` and skipped.
    ///
    /// A call on another thread is reported on the main thread afterwards; its key-path values
    /// (from the `target` root only: views and controllers are the main thread's) are read on
    /// the calling thread before the original runs, and only the values go to the main thread.
    /// The receiver is never retained past the call (a method called from `deinit` runs on an
    /// object being deallocated).
    @MainActor
    enum PurposeMethodHooks {
        /// Hooks each plan entry; the outcome of each, for the plan's health.
        @discardableResult
        static func install(_ methods: [CaptureHooks.Method], adapter: UIKitCapture)
            -> [CaptureHooks.Method: PlanHealth.Outcome]
        {
            plansForOtherThreads.set(adapter.capture.plans)
            var outcomes: [CaptureHooks.Method: PlanHealth.Outcome] = [:]
            for entry in methods {
                if let diagnostic = hook(entry, adapter: adapter) {
                    adapter.report(diagnostic)
                    outcomes[entry] = diagnostic.planOutcome
                } else {
                    outcomes[entry] = .applied
                }
            }
            return outcomes
        }

        /// Hooks one plan entry; what went wrong, if anything.
        private static func hook(_ entry: CaptureHooks.Method, adapter: UIKitCapture) -> UIKitDiagnostic? {
            let name = "\(entry.target).\(entry.method)"
            guard let cls = adapter.resolveClass(named: entry.target) else {
                return UIKitDiagnostic(
                    code: .missingClass, typeName: entry.target, method: entry.method,
                    message: "\(name): no class \(entry.target) is known to the Objective-C runtime.")
            }
            switch PurposeMethodRule.refusal(
                method: entry.method, typeName: entry.target,
                target: ResponderChainDescriber.origin(ofClass: cls),
                appCode: adapter.appCode, allowedTypes: adapter.configuration.hookableTypes)
            {
            case .runtimeMethod?, .privateMethod?:
                return UIKitDiagnostic(
                    code: .unsafeMethod, typeName: entry.target, method: entry.method,
                    message:
                        "\(name): \(entry.method) is a runtime or private method; hooking it could crash "
                        + "every user, so it is never hooked.")
            case .hotPathMethod?:
                return UIKitDiagnostic(
                    code: .hotPathMethod, typeName: entry.target, method: entry.method,
                    message:
                        "\(name): \(entry.method) runs per frame, cell or layout pass; an event per call "
                        + "would flood every user's queue, so it is never hooked.")
            case .outsideApp?:
                return UIKitDiagnostic(
                    code: .outsideApp, typeName: entry.target, method: entry.method,
                    message: "\(name): \(entry.target) is not the app's own class; list it in "
                        + "UIKitCaptureConfiguration.hookableTypes to hook it.")
            case nil:
                break
            }
            let selector = NSSelectorFromString(entry.method)
            guard let method = class_getInstanceMethod(cls, selector) else {
                return UIKitDiagnostic(
                    code: .missingMethod, typeName: entry.target, method: entry.method,
                    message: "\(name): \(entry.target) has no Objective-C method \(entry.method); "
                        + "declare it @objc dynamic (and write the selector, e.g. share: for share(_:)).")
            }
            guard let encoding = method_getTypeEncoding(method).map({ String(cString: $0) }),
                let arguments = ObjCMethodSignature(typeEncoding: encoding)?.hookableObjectArgumentCount
            else {
                return UIKitDiagnostic(
                    code: .unsupportedSignature, typeName: entry.target, method: entry.method,
                    message: "\(name): only methods that return nothing and take at most "
                        + "\(ObjCMethodSignature.maximumObjectArguments) object arguments can be hooked.")
            }
            let outcome = MethodHooks.hook(selector, of: cls) { original in
                block(arguments: arguments, target: entry.target, method: entry.method, original: original)
            }
            guard outcome != .refused else {
                return UIKitDiagnostic(
                    code: .refused, typeName: entry.target, method: entry.method,
                    message: "\(name): \(entry.target) cannot be hooked.")
            }
            return nil
        }

        /// The replacement for a method with `arguments` object arguments: reports, then calls the
        /// original. Not main-actor isolated: purpose methods may run on any thread.
        private nonisolated static func block(
            arguments: Int, target: String, method: String, original: OriginalImplementation
        )
            -> Any
        {
            switch arguments {
            case 0:
                typealias Function = @convention(c) (AnyObject, Selector) -> Void
                let block: @convention(block) (AnyObject) -> Void = { receiver in
                    report(receiver, target: target, method: method)
                    unsafeBitCast(original.implementation, to: Function.self)(receiver, original.selector)
                }
                return block
            case 1:
                typealias Function = @convention(c) (AnyObject, Selector, AnyObject?) -> Void
                let block: @convention(block) (AnyObject, AnyObject?) -> Void = { receiver, first in
                    report(receiver, target: target, method: method)
                    unsafeBitCast(original.implementation, to: Function.self)(
                        receiver, original.selector, first)
                }
                return block
            default:
                typealias Function = @convention(c) (AnyObject, Selector, AnyObject?, AnyObject?) -> Void
                let block: @convention(block) (AnyObject, AnyObject?, AnyObject?) -> Void = {
                    receiver, first, second in
                    report(receiver, target: target, method: method)
                    unsafeBitCast(original.implementation, to: Function.self)(
                        receiver, original.selector, first, second)
                }
                return block
            }
        }

        /// The plans of the installation, for calls on other threads (which cannot reach it).
        private nonisolated static let plansForOtherThreads = LockedPlans()

        /// Reports a call: now on the main thread; from another thread, with the values read
        /// now, on the main thread soon.
        private nonisolated static func report(_ receiver: AnyObject, target: String, method: String) {
            if Thread.isMainThread {
                MethodHooks.onMainThread(receiver) { receiver in
                    methodCalled(
                        target: target, method: method,
                        values: KeyValueCodingSource(
                            roots: ResponderChainDescriber.keyPathRoots(
                                view: receiver as? UIView,
                                controller: (receiver as? UIResponder).flatMap {
                                    ResponderChainDescriber.nearestController(of: $0)
                                },
                                target: receiver)))
                }
                return
            }
            guard let plans = plansForOtherThreads.get() else { return }
            let values = KeyPathValues(
                reading: plans.keyPaths(ofMethod: method, targetType: target),
                from: KeyValueCodingSource(roots: ["target": receiver]))
            DispatchQueue.main.async {
                MainActor.assumeIsolated { methodCalled(target: target, method: method, values: values) }
            }
        }

        private static func methodCalled(target: String, method: String, values: any KeyPathValueSource) {
            guard let adapter = UIKitCapture.installed, adapter.configuration.hooksMethods else { return }
            adapter.capture.methodCalled(targetType: target, method: method, values: values)
        }
    }

    /// The installation's plans, for purpose methods called on other threads.
    final class LockedPlans: @unchecked Sendable {
        private let lock = NSLock()
        private var plans: PlanStore?

        func set(_ plans: PlanStore?) {
            lock.lock()
            defer { lock.unlock() }
            self.plans = plans
        }

        func get() -> PlanStore? {
            lock.lock()
            defer { lock.unlock() }
            return plans
        }
    }
#endif
