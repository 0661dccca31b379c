import FootprintWire

/// Why the demo could not run.
public struct DemoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public var code: Code
    /// What went wrong, for people.
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The kinds of failure.
    public typealias Code = ErrorCode<DemoError>

    public var description: String { "\(code): \(message)" }
}

extension ErrorCode where Domain == DemoError {
    /// The embedded server did not start as expected.
    public static var server: Self { Self("server") }
    /// A virtual device's flush did not finish.
    public static var delivery: Self { Self("delivery") }
}
