import Foundation

/// `body` for each item, as many at once as the machine has cores
/// (`DispatchQueue.concurrentPerform`), the results in the items' order; the first error is
/// thrown. The stores' reads run side by side this way: each read takes its own connection.
func concurrently<Item: Sendable, Result: Sendable>(
    _ items: [Item], _ body: @Sendable (Item) throws(ServerError) -> Result
) throws(ServerError) -> [Result] {
    guard items.count > 1 else { return try items.map(body) }
    let results = LockedValue<[Swift.Result<Result, ServerError>?]>(
        Array(repeating: nil, count: items.count))
    DispatchQueue.concurrentPerform(iterations: items.count) { index in
        let result = Swift.Result { () throws(ServerError) in try body(items[index]) }
        results.withLock { $0[index] = result }
    }
    return try results.withLock { $0 }.map { result throws(ServerError) in
        guard let result else {
            throw ServerError(code: .storage, message: "a concurrent read did not run")
        }
        return try result.get()
    }
}

/// `first` on this thread and `second` on another at once: both results, or the first's error
/// (else the second's). Reads of a store run side by side this way: each store takes a
/// connection per thread.
func atOnce<First, Second: Sendable>(
    _ first: () throws(ServerError) -> First,
    _ second: @escaping @Sendable () throws(ServerError) -> Second
) throws(ServerError) -> (First, Second) {
    let other = LockedValue<Result<Second, ServerError>?>(nil)
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
        let result = Result { () throws(ServerError) in try second() }
        other.withLock { $0 = result }
    }
    let mine = Result { () throws(ServerError) in try first() }
    group.wait()
    let theirs = other.withLock { $0 }
    let firstValue = try mine.get()
    guard let theirs else { throw ServerError(code: .storage, message: "a concurrent read did not run") }
    return (firstValue, try theirs.get())
}
