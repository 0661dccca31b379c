/// A failure of the server or its store: a stable code and a message for people.
public struct ServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public var code: Code
    /// What went wrong, naming the thing at fault.
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The kinds of failure; new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code as text.
        public let name: String
        /// Creates a code from its name.
        public init(_ name: String) { self.name = name }
        /// The HTTP listener could not start (address in use, bad host).
        public static let cannotListen = Code("cannot_listen")
        /// The database could not be opened, migrated, read or written.
        public static let storage = Code("storage")
        /// A project name is empty or already taken, or no such project exists.
        public static let project = Code("project")
        /// A remote config document was refused.
        public static let invalidConfig = Code("invalid_config")
        /// An event definition was refused.
        public static let invalidDefinition = Code("invalid_definition")
        /// A report's parameters were refused.
        public static let invalidQuery = Code("invalid_query")
        /// The store was closed.
        public static let closed = Code("closed")
        public var description: String { name }
    }

    public var description: String { "\(code.name): \(message)" }
}
