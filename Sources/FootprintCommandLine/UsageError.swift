import FootprintWire

/// A command line that cannot be understood: a stable code and one line for people (the exit
/// status is 64, `EX_USAGE`).
public struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of mistake; new codes may be added.
    public typealias Code = ErrorCode<UsageError>

    /// What kind of mistake.
    public var code: Code
    /// What is wrong, naming the argument at fault and, when one is close, what was meant.
    public var description: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of mistake (default ``ErrorCode/invalidValue``).
    ///   - description: the message.
    public init(_ code: Code = .invalidValue, description: String) {
        self.code = code
        self.description = description
    }
}

extension ErrorCode where Domain == UsageError {
    /// An option or flag the command does not take (`--database`, `-p`).
    public static var unknownOption: Self { Self("unknown_option") }
    /// A command `footprint` does not have.
    public static var unknownCommand: Self { Self("unknown_command") }
    /// A positional argument the command does not take (`serve junk`).
    public static var unexpectedArgument: Self { Self("unexpected_argument") }
    /// An option without its value, or an action without its operand.
    public static var missingValue: Self { Self("missing_value") }
    /// A value out of range or of the wrong shape, or options that do not go together.
    public static var invalidValue: Self { Self("invalid_value") }
}
