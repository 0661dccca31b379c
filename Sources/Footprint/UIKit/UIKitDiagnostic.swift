#if canImport(UIKit) && !os(watchOS)
    /// Something the UIKit adapter could not or would not do, reported instead of crashing: a
    /// plan names a class that does not exist, a method that cannot be hooked, or one that must
    /// not be.
    public struct UIKitDiagnostic: Sendable, Hashable, CustomStringConvertible {
        /// What went wrong (new codes may be added).
        public typealias Code = ErrorCode<UIKitDiagnostic>

        /// What went wrong.
        public var code: Code
        /// The type name the plan (or the adapter) used.
        public var typeName: String
        /// The method, when the problem concerns one.
        public var method: String?
        /// A sentence saying what happened and what to do.
        public var message: String

        /// Creates a diagnostic.
        public init(code: Code, typeName: String, method: String? = nil, message: String) {
            self.code = code
            self.typeName = typeName
            self.method = method
            self.message = message
        }

        public var description: String { "\(code.name): \(message)" }

        /// What the diagnostic means for the plan's health.
        public var planOutcome: PlanHealth.Outcome {
            let status: PlanHealth.Status
            switch code {
            case .missingClass: status = .missingClass
            case .missingMethod: status = .missingSelector
            case .unsupportedSignature: status = .unsupportedSignature
            default: status = .refusedSelector
            }
            return PlanHealth.Outcome(status: status, reason: message)
        }
    }

    extension ErrorCode where Domain == UIKitDiagnostic {
        /// No class of that name is registered with the Objective-C runtime.
        public static var missingClass: Self { Self("missingClass") }
        /// The class has no Objective-C method of that name: a Swift method must be declared
        /// `@objc dynamic` to be hooked.
        public static var missingMethod: Self { Self("missingMethod") }
        /// The method exists but its signature is not one Footprint can hook (it must return
        /// nothing and take at most two object arguments).
        public static var unsupportedSignature: Self { Self("unsupportedSignature") }
        /// The class must not be hooked (`NSObject`, a key-value-observing subclass).
        public static var refused: Self { Self("refused") }
        /// The method is memory management, lifecycle, the runtime's own or private (`dealloc`,
        /// `release`, `_`-prefixed): never hooked, whatever the plan says.
        public static var unsafeMethod: Self { Self("unsafeMethod") }
        /// The method runs per frame, cell or layout pass (`layoutSubviews`, `scrollViewDidScroll:`,
        /// `prepareForReuse`): never hooked, whatever the plan says.
        public static var hotPathMethod: Self { Self("hotPathMethod") }
        /// The class is not the app's own (UIKit, another system framework) and
        /// ``UIKitCaptureConfiguration/hookableTypes`` does not list it.
        public static var outsideApp: Self { Self("outsideApp") }
    }
#endif
