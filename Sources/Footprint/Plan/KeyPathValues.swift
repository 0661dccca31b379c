/// Key-path values read at one moment: what a purpose method's event needs, read on the thread
/// that called the method, before the method runs, and carried to the main thread as values (the
/// object is never touched there, nor retained past the call: it may be deallocating).
struct KeyPathValues: KeyPathValueSource, Sendable, Hashable {
    /// The values read, by key path (a key path without a value is absent).
    var values: [PropertyKeyPath: JSONValue]

    /// Reads `keyPaths` from `source` now.
    init(reading keyPaths: some Sequence<PropertyKeyPath>, from source: any KeyPathValueSource) {
        var values: [PropertyKeyPath: JSONValue] = [:]
        for keyPath in keyPaths {
            if let value = source.value(at: keyPath) { values[keyPath] = value }
        }
        self.values = values
    }

    func value(at keyPath: PropertyKeyPath) -> JSONValue? { values[keyPath] }
}

extension PlanStore {
    /// The key paths the event of the purpose method `method` of `targetType` reads under the
    /// plan in force (none when no event names it). Safe on any thread.
    func keyPaths(ofMethod method: String, targetType: String) -> [PropertyKeyPath] {
        current.event(target: targetType, method: method).map { Array($0.properties.values) } ?? []
    }
}
