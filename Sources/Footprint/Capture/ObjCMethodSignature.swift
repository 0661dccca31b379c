/// An Objective-C method's type encoding (`method_getTypeEncoding`, e.g. `v24@0:8@16`), read into
/// its return and argument types, to decide whether a plan's purpose method can be hooked.
///
/// The UI adapter hooks purpose methods with block implementations of fixed shapes; a method
/// fits when it returns nothing and takes only objects, at most ``maximumObjectArguments``.
public struct ObjCMethodSignature: Sendable, Hashable {
    /// The most object arguments a hookable purpose method may take.
    public static let maximumObjectArguments = 2

    /// The return type's encoding (`v` for void, `@` for an object).
    public var returnType: String
    /// The argument types' encodings, `self` (`@`) and `_cmd` (`:`) first.
    public var argumentTypes: [String]

    /// Reads a type encoding; `nil` when it is malformed or has no `self` and `_cmd`.
    public init?(typeEncoding: String) {
        var scanner = TypeEncodingScanner(Array(typeEncoding.utf8))
        var types: [String] = []
        while !scanner.isAtEnd {
            guard let type = scanner.nextType() else { return nil }
            types.append(type)
            scanner.skipOffset()
        }
        guard types.count >= 3, types[1] == "@", types[2] == ":" else { return nil }
        returnType = types[0]
        argumentTypes = Array(types.dropFirst())
    }

    /// The number of object arguments after `self` and `_cmd` when the method returns nothing
    /// and takes only objects (blocks included), at most ``maximumObjectArguments``; otherwise
    /// `nil`: the method cannot be hooked safely.
    public var hookableObjectArgumentCount: Int? {
        guard returnType == "v" else { return nil }
        let arguments = argumentTypes.dropFirst(2)
        guard arguments.count <= Self.maximumObjectArguments,
            arguments.allSatisfy({ $0.hasPrefix("@") })
        else { return nil }
        return arguments.count
    }
}

/// Reads one type after another out of an Objective-C type encoding.
private struct TypeEncodingScanner {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { position >= bytes.count }

    /// The next type, without its qualifiers (`r`, `n`, `N`, `o`, `O`, `R`, `V`).
    mutating func nextType() -> String? {
        while position < bytes.count, Self.qualifiers.contains(bytes[position]) { position += 1 }
        let start = position
        guard skipType() else { return nil }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// Skips the stack offset digits after a type.
    mutating func skipOffset() {
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            position += 1
        }
    }

    private static let qualifiers: Set<UInt8> = Set("rnNoORV".utf8)

    private mutating func skipType() -> Bool {
        guard position < bytes.count else { return false }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "@"):
            if position < bytes.count, bytes[position] == UInt8(ascii: "?") {
                position += 1
            } else if position < bytes.count, bytes[position] == UInt8(ascii: "\"") {
                guard let close = bytes[(position + 1)...].firstIndex(of: UInt8(ascii: "\"")) else {
                    return false
                }
                position = close + 1
            }
            return true
        case UInt8(ascii: "^"):
            return skipType()
        case UInt8(ascii: "{"): return skipNested(closing: UInt8(ascii: "}"))
        case UInt8(ascii: "("): return skipNested(closing: UInt8(ascii: ")"))
        case UInt8(ascii: "["): return skipNested(closing: UInt8(ascii: "]"))
        case UInt8(ascii: "b"):
            skipOffset()
            return true
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: "]"):
            return false
        default:
            return true
        }
    }

    /// Skips a struct, union or array up to its matching closing bracket.
    private mutating func skipNested(closing: UInt8) -> Bool {
        let opening = bytes[position - 1]
        var depth = 1
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == opening {
                depth += 1
            } else if byte == closing {
                depth -= 1
                if depth == 0 { return true }
            }
        }
        return false
    }
}
