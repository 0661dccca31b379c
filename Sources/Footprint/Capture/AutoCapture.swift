/// The seam between a UI toolkit and the SDK: the adapter describes its objects and forwards
/// its callbacks here; `AutoCapture` decides what they mean under the plan in force and hands
/// ``CapturedEvent``s to the sink (the tracker).
///
/// Page enters become `screen` messages, leaves `$screen_leave` with `duration_ms`, element
/// actions `$element_click` with their path, and configured purpose methods the plan event's own
/// name. The plan's kill switches, device sampling, block list and upload mode apply to all.
///
/// Call it from the main thread: it keeps the page state without locks, and the compiler keeps
/// it there (it is not `Sendable`).
public final class AutoCapture {
    /// The app's configuration.
    public let configuration: AutoCaptureConfiguration
    /// The plan in force (replaced by remote configuration).
    public let plans: PlanStore
    /// Applies device sampling to every event on its way to the sink (list exposure records
    /// into it too), holding them while the device id is not known.
    let sampling: SamplingGate
    let clock: any Clock
    private var pages = PageViewTracker()
    /// The tracker's connect session, told of page appearances (see
    /// ``Tracker/makeAutoCapture(configuration:)``); `nil` for a core made without a tracker.
    public var connectSession: ConnectSessionController?
    /// Receives the plan's health after the adapter hooked it (see
    /// ``planApplied(methods:pages:)``); the tracker sets it.
    public var planHealthReporter: (@Sendable (PlanHealth) -> Void)?
    /// The events each purpose method may raise; its drops go into the plan's health.
    var methodLimiter: PurposeMethodRateLimiter
    /// What the adapter reported at the last ``planApplied(methods:pages:)``, for the reports
    /// of dropped purpose-method calls.
    private var hookOutcomes:
        (methods: [CaptureHooks.Method: PlanHealth.Outcome], pages: [String: PlanHealth.Outcome]) =
            ([:], [:])

    /// Creates the capture core.
    /// - Parameters:
    ///   - configuration: what the app decides. Default: ``AutoCaptureConfiguration/init(ignoredTypes:maximumTextLength:)``.
    ///   - plans: the plan in force.
    ///   - deviceID: the device's anonymous id; decides sampling. `nil` when it is not known
    ///     yet: capture runs and holds its events until ``deviceIdentified(_:)``.
    ///   - sink: receives the events (the tracker).
    ///   - clock: where time is read. Default: the system clock.
    public init(
        configuration: AutoCaptureConfiguration = AutoCaptureConfiguration(), plans: PlanStore,
        deviceID: String?,
        sink: any CaptureSink, clock: any Clock = SystemClock()
    ) {
        self.configuration = configuration
        self.plans = plans
        self.clock = clock
        methodLimiter = PurposeMethodRateLimiter(limit: configuration.purposeMethodLimit)
        sampling = SamplingGate(sink: sink, plans: plans, clock: clock, deviceID: deviceID)
    }

    /// The device's anonymous id is known (when it was not at creation): the events held until
    /// now are sent, or dropped when the device is sampled out. Callable from any thread; only
    /// the first call counts.
    public func deviceIdentified(_ deviceID: String) {
        sampling.deviceIdentified(deviceID)
    }

    /// Where list exposure records its events: the sink behind device sampling.
    public var sampledSink: any CaptureSink { sampling }

    /// What the adapter must hook under the plan in force.
    public var hooks: CaptureHooks { CaptureHooks(plan: plans.current.plan) }

    /// The name of the page the user is on, when known.
    public var currentPageName: String? { pages.currentPage?.name }

    // MARK: Pages and app lifecycle

    /// A controller's view appeared (`viewDidAppear`).
    /// While a connect session is open, a page that counts is also snapshotted.
    public func pageAppeared(_ page: PageDescription) {
        let plan = plans.current.plan
        let policy = PagePolicy(plan: plan, ignoredTypes: configuration.ignoredTypes)
        guard let tracked = policy.page(for: page) else { return }
        connectSession?.request(.pageAppear)
        guard allows(\.pages, under: plan) else { return }
        record(pages.appeared(tracked, now: clock.now()), plan: plan)
    }

    /// A controller's view disappeared (`viewDidDisappear`).
    public func pageDisappeared(_ page: PageDescription) {
        record(pages.disappeared(instanceID: page.instanceID, now: clock.now()), plan: plans.current.plan)
    }

    /// The app went to the background: the current page is left (and its leave sent).
    public func appEnteredBackground() {
        record(pages.enteredBackground(now: clock.now()), plan: plans.current.plan)
    }

    /// The app came back to the foreground: the current page's time runs again.
    public func appEnteredForeground() {
        record(pages.enteredForeground(now: clock.now()), plan: plans.current.plan)
    }

    // MARK: Plan health

    /// The adapter hooked the plan in force: `methods` holds the outcome of each purpose
    /// method it tried, `pages` of each page type (configured page mode). Reported through
    /// ``planHealthReporter`` as a ``PlanHealth`` of the plan in force, with the purpose-method
    /// calls dropped so far (``PurposeMethodRateLimiter``).
    @discardableResult
    public func planApplied(
        methods: [CaptureHooks.Method: PlanHealth.Outcome], pages: [String: PlanHealth.Outcome] = [:]
    ) -> PlanHealth {
        hookOutcomes = (methods, pages)
        return reportPlanHealth()
    }

    /// Sends the plan's health: the last outcomes the adapter reported and the drops counted.
    @discardableResult
    func reportPlanHealth() -> PlanHealth {
        let health = PlanHealth(
            plan: plans.current.plan, planVersion: plans.revision, methods: hookOutcomes.methods,
            pages: hookOutcomes.pages, droppedCalls: methodLimiter.dropped,
            limit: methodLimiter.limit.summary)
        planHealthReporter?(health)
        return health
    }

    // MARK: Recording

    /// Settles a pending return to a covered page, so that an action on it follows its enter.
    func settlePages(plan: TrackingPlan) {
        record(pages.settle(now: clock.now()), plan: plan)
    }

    private func record(_ actions: [PageViewTracker.Action], plan: TrackingPlan) {
        guard !actions.isEmpty, allows(\.pages, under: plan) else { return }
        for action in actions {
            switch action {
            case .enter(let page, let referrer):
                guard !plan.blockedEvents.contains(CapturedEventName.screen) else { continue }
                var properties = page.properties
                properties["$screen_class"] = .string(page.screenClass)
                if let referrer { properties["$referrer"] = .string(referrer) }
                if let title = page.title { properties["$title"] = .string(TextRedactor.redact(title)) }
                emit(CapturedEvent(kind: .screen(name: page.name), properties: properties))
            case .leave(let page, let duration):
                guard !plan.blockedEvents.contains(CapturedEventName.screenLeave) else { continue }
                let properties: JSONObject = [
                    "$page_name": .string(page.name), "$screen_class": .string(page.screenClass),
                    "duration_ms": .int(duration),
                ]
                emit(
                    CapturedEvent(kind: .track(event: CapturedEventName.screenLeave), properties: properties))
            }
        }
    }

    /// Hands an event to the sink, through device sampling.
    func emit(_ event: CapturedEvent) {
        sampling.record(event)
    }

    /// Whether the plan in force lets this device capture `kind` (its kill switch is on and the
    /// device is sampled in). List exposure uses it with `\.exposures`.
    public func allows(_ kind: KeyPath<CaptureSwitches, Bool>) -> Bool {
        allows(kind, under: plans.current.plan)
    }

    /// Whether `plan` lets this device capture `kind`. While the device id is not known only
    /// the kill switch decides: the events wait in ``sampling`` for the sampling decision.
    func allows(_ kind: KeyPath<CaptureSwitches, Bool>, under plan: TrackingPlan) -> Bool {
        guard plan.capture[keyPath: kind] else { return false }
        return sampling.isIncluded ?? true
    }
}

/// The names of the events automatic capture produces (and that a plan's block list names).
public enum CapturedEventName {
    /// A page view (a `screen` message); blocked as `$screen`.
    public static let screen = "$screen"
    /// Leaving a page.
    public static let screenLeave = "$screen_leave"
    /// An element action.
    public static let elementClick = "$element_click"
}
