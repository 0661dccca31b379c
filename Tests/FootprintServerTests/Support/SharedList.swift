import Foundation

/// A list that test handlers on any thread append to.
final class SharedList<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []

    func append(_ item: Element) { lock.withLock { items.append(item) } }

    var count: Int { lock.withLock { items.count } }

    var values: [Element] { lock.withLock { items } }

    /// Empties the list and returns what it held.
    func takeAll() -> [Element] {
        lock.withLock {
            defer { items = [] }
            return items
        }
    }
}
