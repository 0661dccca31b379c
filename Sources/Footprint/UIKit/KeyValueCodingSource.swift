#if canImport(UIKit) && !os(watchOS)
    import Foundation
    import ObjectiveC

    /// Reads a plan's key paths (`viewController.banner.url`) from Objective-C objects without
    /// ever raising `NSUndefinedKeyException`: a component is read with key-value coding only
    /// when the object's class (or a superclass) declares a property of that name, from a
    /// dictionary by key, and from Swift values and non-`@objc` properties through reflection
    /// (``MirrorKeyPathSource``). Methods are never called by name, so a key path cannot trigger
    /// an action; a missing step gives no value.
    struct KeyValueCodingSource: KeyPathValueSource {
        /// The objects key paths start from, by name (`view`, `viewController`, `target`).
        let roots: [String: AnyObject]

        func value(at keyPath: PropertyKeyPath) -> JSONValue? {
            guard let first = keyPath.components.first, let root = roots[first] else { return nil }
            var current: Any = root
            var remaining = keyPath.components.dropFirst()
            while let component = remaining.first {
                if let dictionary = current as? NSDictionary {
                    guard let next = dictionary.object(forKey: component) else { return nil }
                    current = next
                } else if let object = current as? NSObject, Self.declaresProperty(component, on: object) {
                    guard let next = object.value(forKey: component), !(next is NSNull) else { return nil }
                    current = next
                } else {
                    return Self.reflected(current, path: remaining)
                }
                remaining = remaining.dropFirst()
            }
            return Self.json(current)
        }

        /// Whether `object`'s class or one of its superclasses declares the property `name`.
        private static func declaresProperty(_ name: String, on object: NSObject) -> Bool {
            var cls: AnyClass? = object_getClass(object)
            while let current = cls {
                if class_getProperty(current, name) != nil { return true }
                cls = class_getSuperclass(current)
            }
            return false
        }

        /// Reads the rest of a path through Swift reflection.
        private static func reflected(_ value: Any, path: ArraySlice<String>) -> JSONValue? {
            guard let keyPath = PropertyKeyPath((["value"] + path).joined(separator: ".")) else { return nil }
            return MirrorKeyPathSource(roots: ["value": value]).value(at: keyPath)
        }

        /// Objective-C values as JSON: numbers (Booleans told apart), strings, URLs and arrays;
        /// anything else as ``MirrorKeyPathSource`` converts it.
        private static func json(_ value: Any) -> JSONValue? {
            switch value {
            case is NSNull:
                return nil
            case let number as NSNumber where !(value is String):
                if CFGetTypeID(number) == CFBooleanGetTypeID() { return .bool(number.boolValue) }
                let type = String(cString: number.objCType)
                if type == "d" || type == "f" {
                    return number.doubleValue.isFinite ? .double(number.doubleValue) : nil
                }
                return .int(number.int64Value)
            case let items as [Any]:
                return .array(items.compactMap(json))
            default:
                return reflected(value, path: [])
            }
        }
    }
#endif
