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
    /// are read then.
    @MainActor
    enum PurposeMethodHooks {
        /// Hooks each plan entry; the outcome of each, for the plan's health.
        @discardableResult
        static func install(_ methods: [CaptureHooks.Method], adapter: UIKitCapture)
            -> [CaptureHooks.Method: PlanHealth.Outcome]
        {
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

        /// Reports a call on the main thread (now, or soon when called elsewhere).
        private nonisolated static func report(_ receiver: AnyObject, target: String, method: String) {
            let receiver = UncheckedSendableReference(receiver)
            if Thread.isMainThread {
                MainActor.assumeIsolated { methodCalled(receiver.object, target: target, method: method) }
            } else {
                DispatchQueue.main.async {
                    MainActor.assumeIsolated { methodCalled(receiver.object, target: target, method: method) }
                }
            }
        }

        private static func methodCalled(_ receiver: AnyObject, target: String, method: String) {
            guard let adapter = UIKitCapture.installed, adapter.configuration.hooksMethods else { return }
            let responder = receiver as? UIResponder
            adapter.capture.methodCalled(
                targetType: target, method: method,
                values: KeyValueCodingSource(
                    roots: ResponderChainDescriber.keyPathRoots(
                        view: receiver as? UIView,
                        controller: responder.flatMap { ResponderChainDescriber.nearestController(of: $0) },
                        target: receiver)))
        }
    }

    /// Carries an object to the main thread; it is only touched there.
    struct UncheckedSendableReference: @unchecked Sendable {
        let object: AnyObject

        init(_ object: AnyObject) {
            self.object = object
        }
    }
#endif
