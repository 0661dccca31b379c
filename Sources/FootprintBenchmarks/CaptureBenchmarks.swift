import Footprint
import FootprintWire

/// Auto-capture on the main thread at every tap: building a deep element path and matching it
/// against a large plan.
let captureSuite = BenchmarkSuite(name: "capture") {
    let element = CaptureBenchmarkData.deepButton()
    let action = ActionDescription(selector: "addToCart:", senderType: "UIButton")
    var path = ElementPath(element: element, action: action)
    let build = Measure.samples(iterations: 20_000) { path = ElementPath(element: element, action: action) }

    let mixed = PlanMatcher(plan: CaptureBenchmarkData.plan(rules: 1_000, patternShare: 0.1, matching: path))
    let patterns = PlanMatcher(plan: CaptureBenchmarkData.plan(rules: 1_000, patternShare: 1, matching: nil))
    let missPath = ElementPath(
        element: element, action: ActionDescription(selector: "other:", senderType: "UIButton"))
    func matchSamples(_ matcher: PlanMatcher, _ path: ElementPath) -> [Double] {
        Measure.samples(iterations: 20_000) {
            _ = matcher.event(exactPath: path.exact, similarPath: path.similar) {
                element.conditionValue(named: $0)
            }
        }
    }
    let hit = matchSamples(mixed, path)
    let miss = matchSamples(mixed, missPath)
    let patternMiss = matchSamples(patterns, path)

    let sink = CountingSink()
    let capture = AutoCapture(plans: PlanStore(bundled: mixed.plan), deviceID: "bench", sink: sink)
    let tap = Measure.samples(iterations: 20_000) { capture.controlActed(element, action: action) }

    func rows(_ metric: String, _ samples: [Double], _ note: String) -> [BenchmarkRow] {
        [
            BenchmarkRow(
                metric: "\(metric) (median)", value: Measure.duration(Measure.quantile(samples, 0.5)),
                note: note),
            BenchmarkRow(metric: "\(metric) (p99)", value: Measure.duration(Measure.quantile(samples, 0.99))),
        ]
    }
    return rows(
        "path of a 25-level chain", build, "\(path.exact.utf8.count) bytes, button attributes, one cell")
        + rows("match, 1,000 rules, hit", hit, "700 exact, 200 similar, 100 pattern rules")
        + rows("match, 1,000 rules, miss", miss, "same plan, no rule matches")
        + rows("match, 1,000 pattern rules, miss", patternMiss, "worst case: every rule scanned")
        + rows("tap end to end", tap, "path + match + event to the sink (\(sink.count) events)")
}

/// The chains and plans the capture benchmarks use.
enum CaptureBenchmarkData {
    /// A button 25 responders deep, inside a cell, with every button attribute.
    static func deepButton() -> ElementDescription {
        var chain: [ResponderDescription] = [
            .view("UIButton", 1), .view("UIStackView", 0), .view("UIView", 2),
        ]
        chain.append(ResponderDescription("ProductCell", cellIndexPath: CellIndexPath(section: 1, row: 12)))
        for level in 0..<15 {
            chain.append(.view(level.isMultiple(of: 2) ? "UIView" : "ContainerView", level % 3))
        }
        chain += [
            .view("UITableView", 0), .view("UIView", 0), .controller("CatalogViewController"),
            .view("UIWindow", 0),
            .other("UIWindowScene"), .other("UIApplication"), .other("AppDelegate"),
        ]
        return ElementDescription(
            chain: chain, kind: .button,
            attributes: ElementAttributes(title: "Add to cart", state: 0, isEnabled: true, isSelected: false))
    }

    /// A plan of `rules` element rules over `rules / 4` events; the last event matches `path`.
    static func plan(rules: Int, patternShare: Double, matching path: ElementPath?) -> TrackingPlan {
        let patterns = Int(Double(rules) * patternShare)
        let similar = (rules - patterns) * 2 / 9
        var triggers: [PlanTrigger] = []
        for index in 0..<rules {
            let segment = "#UIButton#UIButton[\(index % 7)]#UIView[0]#Screen\(index)ViewController"
            if index < patterns {
                triggers.append(
                    .element(
                        ElementRule(
                            match: .pattern, path: "#tap\(index):#UIButton#**#Screen\(index)ViewController#**"
                        )))
            } else if index < patterns + similar {
                triggers.append(
                    .element(
                        ElementRule(
                            match: .similar,
                            path: "#tap\(index):\(segment)#Cell[0:*]#UIApplication#AppDelegate")))
            } else {
                triggers.append(
                    .element(ElementRule(path: "#tap\(index):\(segment)#UIApplication#AppDelegate")))
            }
        }
        if let path, !triggers.isEmpty {
            triggers[triggers.count - 1] = .element(ElementRule(path: path.exact))
        }
        var events: [PlanEvent] = []
        for start in stride(from: 0, to: triggers.count, by: 4) {
            let id = "\(start / 4)"
            events.append(
                PlanEvent(
                    id: id, name: "event_\(id)",
                    triggers: Array(triggers[start..<min(start + 4, triggers.count)])))
        }
        return TrackingPlan(uploadMode: .all, events: events)
    }
}
