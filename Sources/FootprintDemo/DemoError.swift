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
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public let name: String

        /// Creates a code.
        public init(_ name: String) { self.name = name }

        /// The embedded server did not start as expected.
        public static let server = Code("server")
        /// A virtual device's flush did not finish.
        public static let delivery = Code("delivery")
        public var description: String { name }
    }

    public var description: String { "\(code): \(message)" }
}
