// A stand-in for Swift Testing, which the iOS SDK does not ship: scripts/ios-typecheck.sh rewrites
// the simulator tests' `#expect(…)` and `#require(…)` as calls of these functions and drops
// `@Test` and `@Suite`, so that the tests' code is type-checked against the SDK. Nothing here runs.

/// `#expect(condition)`.
public func expect(_ condition: @autoclosure () throws -> Bool, _ comment: @autoclosure () -> String? = nil)
    rethrows
{}

/// `#require(condition)`.
public func require(_ condition: @autoclosure () throws -> Bool, _ comment: @autoclosure () -> String? = nil)
    throws
{}

/// `#require(optional)`.
public func require<Value>(
    _ value: @autoclosure () throws -> Value?, _ comment: @autoclosure () -> String? = nil
)
    throws -> Value
{
    guard let value = try value() else { throw Unwrapped() }
    return value
}

/// What `require` throws for `nil`.
public struct Unwrapped: Error {}
