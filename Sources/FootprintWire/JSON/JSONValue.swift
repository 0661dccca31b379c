/// A JSON value: the only type Footprint uses for event properties, traits and context.
///
/// Numbers keep their kind: integers stay exact (`.int`), everything else is a `Double`.
/// A non-finite `Double` cannot be written as JSON; ``JSONValue/firstInvalidNumberPath`` finds one
/// before an event is accepted.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

/// The properties, traits or context of an event.
public typealias JSONObject = [String: JSONValue]

extension JSONValue {
    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as a `Double`, when this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The number as an `Int64`, when this is an integer or a double with no fractional part.
    public var int64Value: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value):
            guard value.isFinite, value.rounded() == value, abs(value) < 9.2e18 else { return nil }
            return Int64(value)
        default: return nil
        }
    }

    /// The Boolean, when this is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The object, when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The array, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member `key` of an object, or `nil`.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The element at `index` of an array, or `nil` (not an array, or out of range).
    public subscript(index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }

    /// The dotted path (`properties.price`) of the first NaN or infinite number inside this value.
    public func firstInvalidNumberPath(prefix: String = "") -> String? {
        // Paths are built only when there is something to name.
        guard containsNonFiniteNumber else { return nil }
        switch self {
        case .double(let value):
            return value.isFinite ? nil : (prefix.isEmpty ? "value" : prefix)
        case .array(let items):
            for (index, item) in items.enumerated() {
                if let path = item.firstInvalidNumberPath(prefix: "\(prefix)[\(index)]") { return path }
            }
            return nil
        case .object(let members):
            for key in members.keys.sorted() {
                let path = prefix.isEmpty ? key : "\(prefix).\(key)"
                if let found = members[key]!.firstInvalidNumberPath(prefix: path) { return found }
            }
            return nil
        default:
            return nil
        }
    }

    /// Whether a NaN or infinite number is anywhere inside this value.
    public var containsNonFiniteNumber: Bool {
        switch self {
        case .double(let value): return !value.isFinite
        case .array(let items): return items.contains { $0.containsNonFiniteNumber }
        case .object(let members): return members.values.contains { $0.containsNonFiniteNumber }
        default: return false
        }
    }

    /// The longest string (keys included) inside this value, in UTF-8 bytes.
    public var longestStringByteCount: Int {
        switch self {
        case .string(let value): return value.utf8.count
        case .array(let items): return items.reduce(0) { max($0, $1.longestStringByteCount) }
        case .object(let members):
            return members.reduce(0) { max($0, $1.key.utf8.count, $1.value.longestStringByteCount) }
        default: return 0
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of this value.
    public var description: String { JSONWriter.string(self) }
}
