import Foundation

/// Values computed at most once per key, by whichever caller asks first; callers asking for a
/// key while it is being computed wait for that computation and take its result, an error
/// included. Keys computing at once do not wait for one another.
final class OnceEach<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    /// One key's computation: its lock is held while it runs.
    private final class Entry: @unchecked Sendable {
        let lock = NSLock()
        var result: Result<Value, ServerError>?
    }

    private let entries = LockedValue<[Key: Entry]>([:])

    init() {}

    /// The value of `key`: `compute()`'s the first time it is asked for, the same result after.
    func value(_ key: Key, _ compute: () throws(ServerError) -> Value) throws(ServerError) -> Value {
        let entry = entries.withLock { entries in
            if let entry = entries[key] { return entry }
            let entry = Entry()
            entries[key] = entry
            return entry
        }
        entry.lock.lock()
        defer { entry.lock.unlock() }
        let result: Result<Value, ServerError>
        if let earlier = entry.result {
            result = earlier
        } else {
            do {
                result = .success(try compute())
            } catch {
                result = .failure(error)
            }
            entry.result = result
        }
        return try result.get()
    }

    /// How many keys have been asked for.
    var count: Int { entries.withLock { $0.count } }
}
