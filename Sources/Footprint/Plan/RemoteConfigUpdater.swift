/// Keeps the plan in force up to date with the server: at start it applies the cached remote
/// plan and fetches; afterwards it fetches on foreground or timer when the refresh interval
/// has passed. A new valid plan is put in force at once and cached; an invalid one is ignored.
public actor RemoteConfigUpdater {
    /// How often to refresh.
    public struct Configuration: Sendable {
        /// The shortest time between two requests, in seconds. Default: 1800 (30 minutes).
        public var refreshIntervalSeconds: Int64

        /// Creates a configuration.
        /// - Parameter refreshIntervalSeconds: the shortest time between two requests. Default: 1800.
        public init(refreshIntervalSeconds: Int64 = 1800) {
            self.refreshIntervalSeconds = refreshIntervalSeconds
        }
    }

    private let plans: PlanStore
    private let fetcher: RemoteConfigFetcher
    private let cache: RemoteConfigCache?
    private let clock: any Clock
    private var state: RemoteConfigRefresh
    private var hasStarted = false
    /// The last outcome, for diagnostics.
    public private(set) var lastOutcome: RemoteConfigRefresh.Outcome?
    /// Why the cache failed: a damaged file at start (not used), or a failed save.
    public private(set) var cacheError: PlanError?

    /// Creates an updater.
    /// - Parameters:
    ///   - plans: where the plan in force lives.
    ///   - fetcher: how the server is asked.
    ///   - cache: where the last good plan is kept; `nil` keeps none.
    ///   - configuration: the refresh interval.
    ///   - clock: where time is read. Default: the system clock.
    public init(
        plans: PlanStore, fetcher: RemoteConfigFetcher, cache: RemoteConfigCache?,
        configuration: Configuration = Configuration(), clock: any Clock = SystemClock()
    ) {
        self.plans = plans
        self.fetcher = fetcher
        self.cache = cache
        self.clock = clock
        state = RemoteConfigRefresh(refreshIntervalMilliseconds: configuration.refreshIntervalSeconds * 1000)
    }

    /// Applies the cached plan (once) and fetches.
    @discardableResult
    public func start() async -> RemoteConfigRefresh.Outcome? {
        if !hasStarted {
            hasStarted = true
            do {
                if let entry = try cache?.load() {
                    plans.applyRemote(entry.plan, etag: entry.etag)
                    state = RemoteConfigRefresh(
                        refreshIntervalMilliseconds: state.refreshIntervalMilliseconds, etag: entry.etag)
                }
            } catch {
                cacheError = error
            }
        }
        return await refresh(.launch)
    }

    /// Fetches when the state machine says so.
    /// - Returns: the outcome, or `nil` when no request was due.
    @discardableResult
    public func refresh(_ trigger: RemoteConfigRefresh.Trigger) async -> RemoteConfigRefresh.Outcome? {
        guard case .fetch(let etag) = state.refreshRequested(trigger, now: clock.now()) else { return nil }
        let outcome: RemoteConfigRefresh.Outcome
        do {
            let response = try await fetcher.fetch(ifNoneMatch: etag)
            outcome = state.responseReceived(response)
            if case .apply(let plan, let etag) = outcome {
                plans.applyRemote(plan, etag: etag)
                do {
                    try cache?.save(planBody: response.body, etag: etag)
                    cacheError = nil
                } catch {
                    cacheError = PlanError(
                        code: .unreadable, keyPath: "", message: "cannot save the plan: \(error)")
                }
            }
        } catch {
            outcome = state.requestFailed("\(error)")
        }
        lastOutcome = outcome
        return outcome
    }
}
