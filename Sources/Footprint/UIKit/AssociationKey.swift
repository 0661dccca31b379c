#if canImport(UIKit) && !os(watchOS)
    import ObjectiveC

    /// Keys for `objc_setAssociatedObject`, derived from a type's identity: a stable, unique
    /// address for the life of the process, with no mutable global behind it.
    enum AssociationKey {
        /// The key named by `Marker` (declare one empty enum per association).
        static func of<Marker>(_ marker: Marker.Type) -> UnsafeRawPointer {
            UnsafeRawPointer(bitPattern: Int(bitPattern: ObjectIdentifier(marker)))!
        }

        /// The object associated with `object` under `Marker`, when it has the expected type.
        static func value<Value, Marker>(of object: AnyObject, _ marker: Marker.Type, as type: Value.Type)
            -> Value?
        {
            objc_getAssociatedObject(object, of(marker)) as? Value
        }

        /// Associates `value` (retained) with `object` under `Marker`; `nil` removes it.
        static func set<Marker>(_ value: Any?, on object: AnyObject, _ marker: Marker.Type) {
            objc_setAssociatedObject(object, of(marker), value, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        }
    }
#endif
