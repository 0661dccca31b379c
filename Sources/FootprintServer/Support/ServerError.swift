import FootprintWire

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
    public typealias Code = ErrorCode<ServerError>

    public var description: String { "\(code.name): \(message)" }
}

extension ErrorCode where Domain == ServerError {
    /// The HTTP listener could not start (address in use, bad host).
    public static var cannotListen: Self { Self("cannot_listen") }
    /// The database could not be opened, migrated, read or written.
    public static var storage: Self { Self("storage") }
    /// A project name is empty or already taken, or no such project exists.
    public static var project: Self { Self("project") }
    /// A remote config document was refused.
    public static var invalidConfig: Self { Self("invalid_config") }
    /// An event definition was refused.
    public static var invalidDefinition: Self { Self("invalid_definition") }
    /// A report's parameters were refused.
    public static var invalidQuery: Self { Self("invalid_query") }
    /// A request's path could not be decoded exactly, or an id in it was refused (empty, or
    /// holding a NUL character).
    public static var invalidPath: Self { Self("invalid_path") }
    /// A request header was refused (a NUL character in its name or value).
    public static var invalidHeader: Self { Self("invalid_header") }
    /// A `--store` location was refused (not a ClickHouse URL this server can use).
    public static var invalidStore: Self { Self("invalid_store") }
    /// The database did not answer in time, could not be reached or refused the work for now
    /// (ClickHouse down, slow or overloaded): retry later.
    public static var unavailable: Self { Self("unavailable") }
    /// The store cannot do this (a ClickHouse store: person deletion, export, retention).
    public static var unsupported: Self { Self("unsupported") }
    /// The store was closed.
    public static var closed: Self { Self("closed") }
    /// The database file is taken: another server serves it, or it belongs to another store (a
    /// SQLite server on a ClickHouse store's metadata file).
    public static var storeInUse: Self { Self("store_in_use") }
    /// The store already holds other data than it is asked to take (`footprint migrate --meta`
    /// into a database with another deployment's projects).
    public static var conflict: Self { Self("conflict") }
}
