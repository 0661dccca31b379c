import Foundation

/// Reads key paths through Swift reflection (`Mirror`): stored properties of structs and
/// classes (inherited ones included), lazy and property-wrapper storage, optionals, and
/// `[String: Any]` dictionaries.
///
/// Values become JSON when they are strings, Booleans, integers, floating-point numbers, URLs,
/// UUIDs, enums without payload (their case name), or arrays of those; anything else gives no
/// value.
public struct MirrorKeyPathSource: KeyPathValueSource {
    private let roots: [String: Any]

    /// Creates a source over named root objects.
    /// - Parameter roots: the objects key paths start from, by name: `["viewController": controller]`.
    public init(roots: [String: Any]) {
        self.roots = roots
    }

    public func value(at keyPath: PropertyKeyPath) -> JSONValue? {
        guard let first = keyPath.components.first, var current = roots[first].flatMap(Self.unwrapped) else {
            return nil
        }
        for component in keyPath.components.dropFirst() {
            guard let next = Self.member(component, of: current).flatMap(Self.unwrapped) else { return nil }
            current = next
        }
        return Self.json(current)
    }

    /// The value inside any depth of optionals, or `nil`.
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        guard let wrapped = mirror.children.first?.value else { return nil }
        return unwrapped(wrapped)
    }

    private static func member(_ name: String, of value: Any) -> Any? {
        if let dictionary = value as? [String: Any] { return dictionary[name] }
        var mirror: Mirror? = Mirror(reflecting: value)
        let storageNames = [name, "_\(name)", "$__lazy_storage_$_\(name)"]
        while let current = mirror {
            for child in current.children {
                guard let label = child.label, storageNames.contains(label) else { continue }
                return propertyWrapperValue(child.value) ?? child.value
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// A property wrapper's `wrappedValue`, read from its storage.
    private static func propertyWrapperValue(_ storage: Any) -> Any? {
        let mirror = Mirror(reflecting: storage)
        guard mirror.displayStyle == .struct || mirror.displayStyle == .class else { return nil }
        return mirror.children.first { $0.label == "wrappedValue" }?.value
    }

    private static func json(_ value: Any) -> JSONValue? {
        switch value {
        case let text as String: return .string(text)
        case let text as Substring: return .string(String(text))
        case let flag as Bool: return .bool(flag)
        case let number as Int: return .int(Int64(number))
        case let number as Int64: return .int(number)
        case let number as Int32: return .int(Int64(number))
        case let number as Int16: return .int(Int64(number))
        case let number as Int8: return .int(Int64(number))
        case let number as UInt:
            return number <= UInt(Int64.max) ? .int(Int64(number)) : .double(Double(number))
        case let number as UInt64:
            return number <= UInt64(Int64.max) ? .int(Int64(number)) : .double(Double(number))
        case let number as UInt32: return .int(Int64(number))
        case let number as UInt16: return .int(Int64(number))
        case let number as UInt8: return .int(Int64(number))
        case let number as Double: return number.isFinite ? .double(number) : nil
        case let number as Float: return number.isFinite ? .double(Double(number)) : nil
        case let url as URL: return .string(url.absoluteString)
        case let uuid as UUID: return .string(uuid.uuidString)
        case let items as [Any]: return .array(items.compactMap { unwrapped($0).flatMap(json) })
        default:
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .enum, mirror.children.isEmpty {
                return .string(String(describing: value))
            }
            return nil
        }
    }
}
