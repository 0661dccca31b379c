import Foundation

/// The handlers that want to know when a session starts (the UIKit adapter counts
/// once-per-session exposures afresh), called on the storage thread with the new session id.
final class SessionStartObservers: @unchecked Sendable {
    private let lock = NSLock()
    private var handlers: [@Sendable (String) -> Void] = []

    /// Adds a handler.
    func add(_ handler: @escaping @Sendable (String) -> Void) {
        lock.withLock { handlers.append(handler) }
    }

    /// Calls every handler with the new session's id.
    func notify(_ sessionId: String) {
        for handler in lock.withLock({ handlers }) { handler(sessionId) }
    }
}
