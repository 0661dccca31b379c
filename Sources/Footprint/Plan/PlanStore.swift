import Foundation

/// Holds the tracking plan in force, compiled: the remote plan when one was applied, else the
/// bundled one. Read at every tap from the main thread, replaced from any thread by remote
/// configuration; a replacement applies at once.
public final class PlanStore: @unchecked Sendable {
    private let lock = NSLock()
    private var bundled: PlanMatcher
    private var remote: PlanMatcher?
    private var remoteRevision: Int64 = 0
    private var observers: [@Sendable (PlanMatcher) -> Void] = []

    /// Creates a store.
    /// - Parameter bundled: the plan shipped with the app; the default plan captures
    ///   everything and names nothing.
    public init(bundled: TrackingPlan = TrackingPlan()) {
        self.bundled = PlanMatcher(plan: bundled)
    }

    /// The plan in force.
    public var current: PlanMatcher {
        lock.lock()
        defer { lock.unlock() }
        return remote ?? bundled
    }

    /// Whether a remote plan is in force.
    public var hasRemotePlan: Bool {
        lock.lock()
        defer { lock.unlock() }
        return remote != nil
    }

    /// The revision of the plan in force: the server's (read from its ETag, `"v12-…"`), 0 for
    /// the bundled plan or when the ETag names none.
    public var revision: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return remote == nil ? 0 : remoteRevision
    }

    /// Puts a remote plan in force; it takes precedence over the bundled one.
    /// - Parameters:
    ///   - plan: the plan.
    ///   - etag: the ETag the server sent with it, which names its revision. Default `nil`.
    public func applyRemote(_ plan: TrackingPlan, etag: String? = nil) {
        replace {
            $0.remote = PlanMatcher(plan: plan)
            $0.remoteRevision = PlanHealth.planVersion(fromETag: etag) ?? 0
        }
    }

    /// Replaces the bundled plan (in force only while no remote plan is).
    public func replaceBundled(_ plan: TrackingPlan) {
        replace { $0.bundled = PlanMatcher(plan: plan) }
    }

    /// Calls `observer` with the plan in force after each change (on the changing thread), so
    /// the UI adapter can hook newly named pages and methods.
    public func observe(_ observer: @escaping @Sendable (PlanMatcher) -> Void) {
        lock.lock()
        observers.append(observer)
        lock.unlock()
    }

    private func replace(_ change: (PlanStore) -> Void) {
        lock.lock()
        change(self)
        let matcher = remote ?? bundled
        let toNotify = observers
        lock.unlock()
        for observer in toNotify { observer(matcher) }
    }
}
