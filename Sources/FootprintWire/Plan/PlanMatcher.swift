/// A tracking plan compiled for the hot path: finds the plan event an element action or a
/// method call raises. Exact and similar paths are looked up in hash tables, patterns are
/// scanned only while they could still beat the best match found; the first event in plan order
/// wins.
public struct PlanMatcher: Sendable {
    /// The plan it was compiled from.
    public let plan: TrackingPlan
    private var exactRules: [String: [IndexedRule]] = [:]
    private var similarRules: [String: [IndexedRule]] = [:]
    private var patternRules: [PatternRule] = []
    private var methodEvents: [String: Int] = [:]
    /// Whether any element rule exists: when none does, matching is skipped at once.
    public let hasElementRules: Bool

    private struct IndexedRule: Sendable {
        var eventIndex: Int
        var attributes: [String: String]
    }

    private struct PatternRule: Sendable {
        var eventIndex: Int
        var pattern: PathPattern
        var attributes: [String: String]
    }

    /// Compiles `plan` (already validated: patterns compile).
    public init(plan: TrackingPlan) {
        self.plan = plan
        for (eventIndex, event) in plan.events.enumerated() {
            for trigger in event.triggers {
                switch trigger {
                case .method(let target, let method):
                    let key = PlanTrigger.methodKey(target: target, method: method)
                    if methodEvents[key] == nil { methodEvents[key] = eventIndex }
                case .element(let rule):
                    let indexed = IndexedRule(eventIndex: eventIndex, attributes: rule.attributes)
                    switch rule.match {
                    case .exact: exactRules[rule.path, default: []].append(indexed)
                    case .similar: similarRules[rule.path, default: []].append(indexed)
                    case .pattern:
                        guard let pattern = try? PathPattern(rule.path) else { continue }
                        patternRules.append(
                            PatternRule(eventIndex: eventIndex, pattern: pattern, attributes: rule.attributes)
                        )
                    }
                }
            }
        }
        hasElementRules = !exactRules.isEmpty || !similarRules.isEmpty || !patternRules.isEmpty
    }

    /// The first plan event (in plan order) that an element action raises.
    /// - Parameters:
    ///   - exactPath: the element's exact path.
    ///   - similarPath: its path with cell rows written `*` (equal to `exactPath` outside cells).
    ///   - attribute: the element's attribute or business property by name, as text (Booleans
    ///     `1`/`0`); called only for rules with conditions.
    public func event(
        exactPath: String, similarPath: String, attribute: (String) -> String?
    ) -> PlanEvent? {
        guard hasElementRules else { return nil }
        var best = Int.max
        func consider(_ rules: [IndexedRule]?) {
            for rule in rules ?? [] where rule.eventIndex < best {
                if Self.holds(rule.attributes, attribute) {
                    best = rule.eventIndex
                    return
                }
            }
        }
        consider(exactRules[exactPath])
        consider(similarRules[similarPath])
        if !patternRules.isEmpty {
            var path = exactPath
            path.withUTF8 { bytes in
                for rule in patternRules {
                    guard rule.eventIndex < best else { break }
                    if rule.pattern.matches(utf8: bytes), Self.holds(rule.attributes, attribute) {
                        best = rule.eventIndex
                    }
                }
            }
        }
        return best == Int.max ? nil : plan.events[best]
    }

    /// The plan event raised by a call of `method` on an object of type `target`.
    public func event(target: String, method: String) -> PlanEvent? {
        methodEvents[PlanTrigger.methodKey(target: target, method: method)].map { plan.events[$0] }
    }

    private static func holds(_ conditions: [String: String], _ attribute: (String) -> String?) -> Bool {
        conditions.allSatisfy { attribute($0.key) == $0.value }
    }
}
