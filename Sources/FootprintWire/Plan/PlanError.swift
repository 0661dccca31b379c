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
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code as text.
        public let name: String
        /// Creates a code from its name.
        public init(_ name: String) { self.name = name }
        /// The document is not JSON (or not a property list).
        public static let unreadable = Code("unreadable")
        /// A required key is missing.
        public static let missingKey = Code("missing_key")
        /// A key the format does not know (often a typo).
        public static let unknownKey = Code("unknown_key")
        /// A value has the wrong type or is out of range.
        public static let invalidValue = Code("invalid_value")
        /// The plan's `version` is newer than this code reads.
        public static let unsupportedVersion = Code("unsupported_version")
        /// Two events share one id.
        public static let duplicateId = Code("duplicate_id")
        public var description: String { name }
    }

    public var description: String {
        keyPath.isEmpty ? "\(code.name): \(message)" : "\(code.name) at \(keyPath): \(message)"
    }
}
