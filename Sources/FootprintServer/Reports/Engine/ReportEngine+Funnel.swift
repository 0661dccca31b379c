import FootprintWire

/// One step of a funnel.
public enum FunnelStep: Sendable, Hashable {
    /// A track event by name.
    case event(String)
    /// A view of a page by name.
    case page(String)
    /// An event definition.
    case defined(EventDefinition)

    /// The step's label.
    public var label: String {
        switch self {
        case .event(let name): return name
        case .page(let name): return "page " + name
        case .defined(let definition): return definition.name
        }
    }

    /// Whether `event` completes the step.
    public func matches(_ event: AnalyticsEvent) -> Bool {
        switch self {
        case .event(let name): return event.isTrack(name)
        case .page(let name): return event.isPageView && event.name == name
        case .defined(let definition): return definition.matches(event)
        }
    }
}

/// A funnel's outcome: how many people reached each step.
public struct FunnelReport: Sendable, Hashable, Codable {
    /// One entry per step, in order.
    public var steps: [FunnelStepResult]
    /// The conversion window in milliseconds.
    public var windowMilliseconds: Int64
    /// People who completed every step / people who started, 0...1 (0 when none started).
    public var conversion: Double
}

/// How many people reached one step of a funnel.
public struct FunnelStepResult: Sendable, Hashable, Codable {
    /// The step's label.
    public var label: String
    /// People who reached it (in order, within the window from their first step).
    public var people: Int
    /// `people` / people of the first step, 0...1.
    public var conversion: Double
    /// People of the previous step who did not reach it (0 for the first step).
    public var dropOff: Int
}

/// One event of a person that completes funnel steps: when, and which steps (bit `i`: step `i`).
public struct FunnelHit: Sendable, Hashable {
    /// Milliseconds since 1970.
    public var time: Int64
    /// The steps it completes, as bits.
    public var steps: UInt64

    /// Creates a hit.
    public init(time: Int64, steps: UInt64) {
        self.time = time
        self.steps = steps
    }

    /// The order a funnel walks hits in: by time, and at equal times lower steps first, so the
    /// order events were stored in never matters.
    public static func precedes(_ first: FunnelHit, _ second: FunnelHit) -> Bool {
        (first.time, first.steps) < (second.time, second.steps)
    }
}

extension FunnelReport {
    /// The funnel of `steps` whose people reached each step as `reached` gives (one count per
    /// step, deepest last; see ``reached(stepCount:people:windowMilliseconds:)``).
    public init(steps: [FunnelStep], reached: [Int], windowMilliseconds window: Int64) {
        let reached = (0..<steps.count).map { $0 < reached.count ? max(0, reached[$0]) : 0 }
        let started = reached.first ?? 0
        self.init(
            steps: steps.enumerated().map { index, step in
                FunnelStepResult(
                    label: step.label, people: reached[index],
                    conversion: started == 0 ? 0 : Double(reached[index]) / Double(started),
                    dropOff: index == 0 ? 0 : reached[index - 1] - reached[index])
            },
            windowMilliseconds: window,
            conversion: started == 0 || steps.isEmpty ? 0 : Double(reached[steps.count - 1]) / Double(started)
        )
    }

    /// How many people reached each of `stepCount` steps, from each person's hits (one array per
    /// person, any order).
    ///
    /// Each occurrence of the first step may start an attempt; a person counts at the deepest
    /// step any attempt reached. A later step before the first, or after the window, does not
    /// count; one hit completes at most one step of an attempt.
    public static func reached<Person: Collection<FunnelHit>>(
        stepCount: Int, people: some Sequence<Person>, windowMilliseconds window: Int64
    ) -> [Int] {
        var reached = Array(repeating: 0, count: max(0, stepCount))
        // One scratch space walks every person in turn.
        var scratch = Walk()
        for person in people where stepCount > 0 {
            let deepest = depth(
                stepCount: stepCount, hits: person, windowMilliseconds: window, scratch: &scratch)
            for step in 0..<deepest { reached[step] += 1 }
        }
        return reached
    }

    /// The deepest step (a count, `0` for none) any attempt among one person's `hits` reached.
    ///
    /// One pass over the hits in funnel order (``precedes(_:_:)``), keeping for each step the
    /// latest start of an attempt that has reached it so far: a later start leaves more of the
    /// window, so it is never worse. A hit completes step `k` for the latest attempt that
    /// reached step `k - 1` before it, while that attempt is in its window; the steps are taken
    /// from the last down, so one hit moves an attempt by one step at most, and a first step
    /// starts an attempt only after the hit has served the others. The same walk as trying
    /// every start in turn (each taking the earliest hit of its next step), in linear time
    /// rather than quadratic in a person's starts; ClickHouse runs it in array functions
    /// (``ClickHouseSQL/funnelDepths(of:stepSets:stepCount:windowMilliseconds:)``).
    public static func depth(
        stepCount: Int, hits: some Collection<FunnelHit>, windowMilliseconds window: Int64
    )
        -> Int
    {
        var scratch = Walk()
        return depth(stepCount: stepCount, hits: hits, windowMilliseconds: window, scratch: &scratch)
    }

    /// The arrays one walk uses, kept from person to person so that a walk allocates nothing
    /// once they have grown.
    struct Walk {
        /// The person's hits in funnel order.
        var hits: [FunnelHit] = []
        /// `starts[k]`: the latest start of an attempt that reached step `k + 1`, if any.
        var starts: [Int64?] = []
    }

    /// ``depth(stepCount:hits:windowMilliseconds:)`` in `scratch` (its contents replaced).
    static func depth(
        stepCount: Int, hits: some Collection<FunnelHit>, windowMilliseconds window: Int64,
        scratch: inout Walk
    ) -> Int {
        let levels = min(max(0, stepCount), 64)
        guard levels > 0 else { return 0 }
        scratch.hits.removeAll(keepingCapacity: true)
        scratch.hits.append(contentsOf: hits)
        scratch.hits.sort(by: FunnelHit.precedes)
        scratch.starts.removeAll(keepingCapacity: true)
        scratch.starts.append(contentsOf: repeatElement(nil, count: levels))
        var deepest = 0
        for hit in scratch.hits {
            var step = min(levels - 1, deepest)
            while step >= 1 {
                if hit.steps & (1 << UInt64(step)) != 0, let start = scratch.starts[step - 1],
                    hit.time <= start.saturatingAdd(window), start > scratch.starts[step] ?? .min
                {
                    scratch.starts[step] = start
                    deepest = max(deepest, step + 1)
                }
                step -= 1
            }
            if hit.steps & 1 != 0 {
                scratch.starts[0] = hit.time
                deepest = max(deepest, 1)
            }
            if deepest == levels { break }
        }
        return deepest
    }
}

extension ReportEngine {
    /// The default conversion window: 14 days.
    public static let defaultFunnelWindowMilliseconds: Int64 = 14 * 86_400_000

    /// People who did the steps in order, each within `window` of the first step (see
    /// ``FunnelReport/init(steps:people:windowMilliseconds:)``).
    public func funnel(
        _ steps: [FunnelStep], windowMilliseconds window: Int64 = ReportEngine.defaultFunnelWindowMilliseconds
    ) -> FunnelReport {
        var timelines: [String: [FunnelHit]] = [:]
        for (index, event) in events.enumerated() {
            var matched: UInt64 = 0
            for (step, definition) in steps.enumerated() where definition.matches(event) {
                matched |= 1 << UInt64(step)
            }
            if matched != 0 {
                timelines[people[index], default: []].append(
                    FunnelHit(time: event.time.millisecondsSince1970, steps: matched))
            }
        }
        return FunnelReport(
            steps: steps,
            reached: FunnelReport.reached(
                stepCount: steps.count, people: Array(timelines.values), windowMilliseconds: window),
            windowMilliseconds: window)
    }
}
