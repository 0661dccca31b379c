/// Why a tracking plan was refused: a stable code, the key at fault and a message for people.
public struct PlanError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of fault.
    public var code: Code
    /// The key at fault, written as a path from the top of the plan: `events[3].triggers[0].path`.
    /// Empty when the fault is the document itself.
    public var keyPath: String
    /// What is wrong, for people.
    public var message: String

    /// Creates an error.
    public init(code: Code, keyPath: String, message: String) {
        self.code = code
        self.keyPath = keyPath
        self.message = message
    }

    /// The kinds of fault; new codes may be added.
    public typealias Code = ErrorCode<PlanError>

    public var description: String {
        keyPath.isEmpty ? "\(code.name): \(message)" : "\(code.name) at \(keyPath): \(message)"
    }
}

extension ErrorCode where Domain == PlanError {
    /// The document is not JSON (or not a property list).
    public static var unreadable: Self { Self("unreadable") }
    /// A required key is missing.
    public static var missingKey: Self { Self("missing_key") }
    /// A key the format does not know (often a typo).
    public static var unknownKey: Self { Self("unknown_key") }
    /// A value has the wrong type or is out of range.
    public static var invalidValue: Self { Self("invalid_value") }
    /// The plan's `version` is newer than this code reads.
    public static var unsupportedVersion: Self { Self("unsupported_version") }
    /// Two events share one id.
    public static var duplicateId: Self { Self("duplicate_id") }
}
