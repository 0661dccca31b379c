/// Where a funnel's steps are read from the per-person event times kept on ingest
/// (``EventStore/funnelPeople(projectId:filter:sources:stepCount:windowMilliseconds:)``), and
/// which steps each row completes.
///
/// A source is a kind and key of event-time rows: page views by page, track events by name,
/// `$element_click` events by exact or by similar path. Its rows are split by page, so a step
/// limited to a page (a definition's matcher with a page) completes only that page's rows.
///
/// Every event is in exactly one row of each kind it is kept under, and a click is kept under
/// three (its name, its exact path, its similar path). The sources are therefore chosen so that
/// no click is read twice: a funnel whose steps would read one click under two of its kinds is
/// left to the engine (`init` returns `nil`). Then each event is one hit carrying every step it
/// completes, exactly as ``ReportEngine/funnel(_:windowMilliseconds:)`` counts it.
public struct FunnelSources: Sendable, Hashable {
    /// A set of event-time rows: a kind and a key.
    public struct Source: Sendable, Hashable {
        /// ``RollupKind/pageViews``, ``RollupKind/trackEvents``, ``RollupKind/elementClicks``
        /// or ``RollupKind/similarElementClicks``.
        public var kind: RollupKind
        /// The page name, event name or path.
        public var key: String
    }

    /// The steps (bit `i`: step `i`) a source's rows complete.
    public struct Steps: Sendable, Hashable {
        /// Completed on every page.
        public var onAnyPage: UInt64 = 0
        /// Completed on one page only (`""`: events without a page).
        public var onPage: [String: UInt64] = [:]

        /// The steps a row of events on `page` completes.
        public func completed(onPage page: String) -> UInt64 {
            onAnyPage | (onPage[page] ?? 0)
        }
    }

    /// Every source to read, with the steps its rows complete.
    public private(set) var sources: [Source: Steps] = [:]

    /// The most distinct step sets (``stepSets``) a funnel read from event times may have.
    public static let maximumStepSets = 4_096

    /// Every distinct set of steps a row completes (none empty), ascending: the order in which
    /// hits at the same time are taken (``FunnelHit/precedes(_:_:)``).
    public var stepSets: [UInt64] {
        var sets: Set<UInt64> = []
        for steps in sources.values {
            if steps.onAnyPage != 0 { sets.insert(steps.onAnyPage) }
            for bits in steps.onPage.values where steps.onAnyPage | bits != 0 {
                sets.insert(steps.onAnyPage | bits)
            }
        }
        return sets.sorted()
    }

    /// The sources of `steps`, or `nil` when the event times cannot answer them: a defined step
    /// the rollups cannot match (``RollupReports/canAnswer(_:)-swift.type.method``), one that
    /// matches identify, alias or group messages, steps that would read a click twice, or more
    /// than ``maximumStepSets`` step sets.
    /// - Parameters:
    ///   - steps: the funnel's steps (at most 64).
    ///   - counts: the range's daily counts per page of ``RollupReports/definitionCountKinds``;
    ///     read only for defined steps, whose matching groups they give
    ///     (``RollupReports/match(_:counts:)``).
    public init?(steps: [FunnelStep], counts: [RollupPageCount]) {
        guard steps.count <= 64 else { return nil }
        for (index, step) in steps.enumerated() {
            let bit = UInt64(1) << UInt64(index)
            switch step {
            case .page(let name):
                sources[Source(kind: .pageViews, key: name), default: Steps()].onAnyPage |= bit
            case .event(let name):
                sources[Source(kind: .trackEvents, key: name), default: Steps()].onAnyPage |= bit
            case .defined(let definition):
                guard RollupReports.canAnswer(definition) else { return nil }
                let selectors = RollupReports.match(definition, counts: counts).people
                // A page's `$element_click` row holds all its clicks: the path rows of that
                // page would read some of them again.
                let allClicksOn = Set(selectors.filter(Self.isAllClicks).map(\.page))
                for selector in selectors {
                    switch selector.kind {
                    case .pageViews, .trackEvents: break
                    case .elementClicks, .similarElementClicks:
                        if allClicksOn.contains(selector.page) { continue }
                    default: return nil
                    }
                    sources[Source(kind: selector.kind, key: selector.key), default: Steps()]
                        .onPage[selector.page, default: 0] |= bit
                }
            }
        }
        guard !readsAClickTwice, stepSets.count <= Self.maximumStepSets else { return nil }
    }

    private static func isAllClicks(_ selector: RollupReports.PeopleSelector) -> Bool {
        selector.kind == .trackEvents && selector.key == "$element_click"
    }

    /// Whether clicks are read under two kinds (all clicks, exact paths, similar paths) on a page
    /// they share.
    private var readsAClickTwice: Bool {
        var pagesByKind: [RollupKind: (anyPage: Bool, pages: Set<String>)] = [:]
        for (source, steps) in sources {
            let kind: RollupKind
            switch source.kind {
            case .trackEvents where source.key == "$element_click": kind = .trackEvents
            case .elementClicks, .similarElementClicks: kind = source.kind
            default: continue
            }
            var entry = pagesByKind[kind] ?? (false, [])
            entry.anyPage = entry.anyPage || steps.onAnyPage != 0
            entry.pages.formUnion(steps.onPage.filter { $0.value != 0 }.keys)
            pagesByKind[kind] = entry
        }
        let kinds = Array(pagesByKind.values)
        for (index, first) in kinds.enumerated() {
            for second in kinds[(index + 1)...] {
                if first.anyPage && (second.anyPage || !second.pages.isEmpty) { return true }
                if second.anyPage && !first.pages.isEmpty { return true }
                if !first.pages.isDisjoint(with: second.pages) { return true }
            }
        }
        return false
    }
}
