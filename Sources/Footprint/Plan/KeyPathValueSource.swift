/// Reads a plan event's key-path properties (`viewController.banner.url`) from the objects
/// around an element or a method call. The first component names a root object the source
/// offers (`viewController`, `view`, `target`); the rest are property names.
///
/// On Apple platforms the UI adapter implements it with key-value coding; ``MirrorKeyPathSource``
/// implements it with Swift reflection everywhere. A missing key or a `nil` optional gives no
/// value, never a crash.
public protocol KeyPathValueSource {
    /// The value at `keyPath` as JSON, or `nil` when any step is missing or `nil`.
    func value(at keyPath: PropertyKeyPath) -> JSONValue?
}
