#if canImport(UIKit) && !os(watchOS)
    import Foundation
    import ObjectiveC

    /// The one way Footprint replaces an Objective-C method: `method_setImplementation` with a
    /// block implementation that calls the original.
    ///
    /// - Idempotent: a (class, selector) pair is hooked at most once per process (hook
    ///   implementations are never freed, so they are never reinstalled).
    /// - The original always runs, with its own selector (`_cmd` is never renamed), so other SDKs
    ///   that hook the same method keep working, whichever hooked first.
    /// - A method the class only inherits is added to the class as an override that calls the
    ///   superclass's implementation, looked up at call time; the superclass stays untouched.
    /// - `NSObject` itself and key-value-observing subclasses are never hooked.
    @MainActor
    enum MethodHooks {
        /// How one hook installation ended.
        enum Outcome: Equatable {
            /// The hook is in place now.
            case installed
            /// It was in place already.
            case alreadyInstalled
            /// The class has no such method (neither its own nor inherited).
            case missingMethod
            /// The class must not be hooked (`NSObject`, a key-value-observing subclass).
            case refused
        }

        private struct Key: Hashable {
            let owner: ObjectIdentifier
            let selector: String
        }

        private static var installed: Set<Key> = []

        /// Whether `selector` of `cls` is hooked already.
        static func isHooked(_ selector: Selector, of cls: AnyClass, classMethod: Bool = false) -> Bool {
            guard let owner = classMethod ? object_getClass(cls) : cls else { return false }
            return installed.contains(
                Key(owner: ObjectIdentifier(owner), selector: NSStringFromSelector(selector)))
        }

        /// Replaces `selector` of `cls` with the block `makeBlock` returns.
        /// - Parameters:
        ///   - selector: the method to hook.
        ///   - cls: the class whose method it is (hooks apply to its subclasses too).
        ///   - classMethod: hook the class method (`+actionWithTitle:style:handler:`) instead of the
        ///     instance method. Default false.
        ///   - makeBlock: builds the replacement, an `@convention(block)` closure taking the receiver
        ///     and the method's arguments (no selector); it must call `original.implementation`.
        static func hook(
            _ selector: Selector, of cls: AnyClass, classMethod: Bool = false,
            makeBlock: (OriginalImplementation) -> Any
        ) -> Outcome {
            guard ObjectIdentifier(cls) != ObjectIdentifier(NSObject.self),
                !NSStringFromClass(cls).hasPrefix(TypeName.observingPrefix),
                let owner: AnyClass = classMethod ? object_getClass(cls) : cls
            else { return .refused }
            let key = Key(owner: ObjectIdentifier(owner), selector: NSStringFromSelector(selector))
            guard !installed.contains(key) else { return .alreadyInstalled }
            guard let method = class_getInstanceMethod(owner, selector) else { return .missingMethod }
            let superclass: AnyClass? = class_getSuperclass(owner)
            let inherited = superclass.flatMap { class_getInstanceMethod($0, selector) } == method
            if inherited {
                let original = OriginalImplementation(
                    selector: selector, replaced: nil, superclass: superclass)
                let implementation = imp_implementationWithBlock(makeBlock(original))
                guard class_addMethod(owner, selector, implementation, method_getTypeEncoding(method)) else {
                    _ = imp_removeBlock(implementation)
                    return .refused
                }
            } else {
                let original = OriginalImplementation(
                    selector: selector, replaced: method_getImplementation(method), superclass: nil)
                _ = method_setImplementation(method, imp_implementationWithBlock(makeBlock(original)))
            }
            installed.insert(key)
            return .installed
        }
    }

    extension MethodHooks {
        /// Runs `body` on the main actor when the hook was called on the main thread, and does
        /// nothing elsewhere. Hook blocks are not main-actor isolated: the Objective-C runtime
        /// calls them on whatever thread the app called the method on (an off-main `reloadData()`
        /// or `UIAlertAction` is the app's bug, not a crash inside Footprint), so each block calls
        /// the original and reports only from the main thread.
        nonisolated static func onMainThread<Value>(_ value: Value, _ body: @MainActor (Value) -> Void) {
            guard Thread.isMainThread else { return }
            let carried = MainThreadValue(value)
            MainActor.assumeIsolated { body(carried.value) }
        }
    }

    /// What a hook block received, handed to the main actor on the main thread it was called on
    /// (the Objective-C runtime's arguments carry no `Sendable` promise).
    struct MainThreadValue<Value>: @unchecked Sendable {
        let value: Value

        init(_ value: Value) {
            self.value = value
        }
    }

    /// The implementation a hook replaced; the hook's block calls it with ``selector``. Not
    /// isolated: purpose-method hooks call it on any thread.
    final class OriginalImplementation: @unchecked Sendable {
        /// The hooked selector, passed to the original as `_cmd`.
        let selector: Selector
        private let replaced: IMP?
        private let superclass: AnyClass?

        init(selector: Selector, replaced: IMP?, superclass: AnyClass?) {
            self.selector = selector
            self.replaced = replaced
            self.superclass = superclass
        }

        /// The implementation to call: the one replaced, or the superclass's current one for a
        /// method the hooked class only inherited (so later hooks on the superclass run too).
        var implementation: IMP {
            if let replaced { return replaced }
            return class_getMethodImplementation(superclass, selector)!
        }
    }
#endif
