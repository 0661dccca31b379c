/// A stable, open-ended error code: a name that callers can compare and log, and to which new
/// codes can be added without breaking them (unlike an exhaustive enum).
///
/// Each public error type declares `typealias Code = ErrorCode<ItsError>` and its codes as
/// static properties in an `extension ErrorCode where Domain == ItsError`, so `.missingField`
/// reads naturally and codes of different errors cannot be mixed up.
public struct ErrorCode<Domain>: Sendable, Hashable, CustomStringConvertible {
    /// The code as text (`missing_field`), as reports and logs show it.
    public let name: String

    /// Creates a code from its name.
    public init(_ name: String) { self.name = name }

    public var description: String { name }
}
