import FootprintServer
import FootprintWire
import Foundation
import Testing

/// Runs every report the server answers over one project, in process, and checks that each
/// answer is sane: every number in it is finite and not negative, and shares and conversions
/// are at most 1 (a click-through rate may pass 1: clicks without an exposure count).
enum EveryReport {
    /// The definitions ``run(_:project:parameters:pages:events:)`` saves first: two rollups can
    /// answer (one of two pages, whose people count once however many they viewed) and one with
    /// an attribute condition that only the events can.
    static let definitions = [
        EventDefinition(id: "viewed-home", name: "Viewed Home", matchers: [EventMatcher(event: "Home")]),
        EventDefinition(
            id: "browsed", name: "Browsed",
            matchers: [EventMatcher(event: "Home"), EventMatcher(event: "ProductList")]),
        EventDefinition(
            id: "bought", name: "Bought",
            matchers: [
                EventMatcher(path: ElementRule(match: .pattern, path: "#buy*", attributes: ["state": "1"]))
            ]),
    ]

    /// Every report of the shop's data sets (pages Home and ProductList, event Product Viewed)
    /// over each filter, as lines of text to compare between two stores.
    static func answers(_ store: any EventStore, _ project: Project, filters: [ReportFilter], now: Timestamp)
        throws -> [String]
    {
        var answers: [String] = []
        for filter in filters {
            var parameters = try ReportParameters(query: [:], now: now)
            parameters.filter = filter
            let reports = try run(
                ReportService(stores: Stores(testing: store)), project: project, parameters: parameters,
                pages: ["Home", "ProductList"], events: ["Product Viewed"])
            answers += reports.map { "\(filter) \($0.0): \(JSONWriter.string($0.1))" }
        }
        return answers
    }

    /// Each report's name and answer, as the JSON API encodes it.
    /// - Parameters:
    ///   - pages: pages to ask paths and funnels about.
    ///   - events: track events to ask funnels and retention about.
    static func run(
        _ service: ReportService, project: Project, parameters: ReportParameters, pages: [String],
        events: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [(String, JSONValue)] {
        for definition in definitions {
            try service.metadata.saveEventDefinition(
                definition, projectId: project.id, at: Timestamp(millisecondsSince1970: 0))
        }
        var answers: [(String, JSONValue)] = []
        func add(_ name: String, _ report: some Encodable) throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let json = try JSONParser().parse(Array(try encoder.encode(report)))
            answers.append((name, json))
            expectSane(json, at: name, sourceLocation: sourceLocation)
        }
        let stored = try service.metadata.eventDefinitions(projectId: project.id)
        try add("overview", service.overview(project: project, parameters: parameters))
        try add("traffic", service.traffic(project: project, parameters: parameters))
        try add("events", service.topEvents(project: project, parameters: parameters, limit: 50))
        try add(
            "defined", service.definedEvents(project: project, parameters: parameters, definitions: stored))
        for grouping in [ElementGrouping.exact, .similar] {
            try add(
                "elements-\(grouping)",
                service.elements(project: project, parameters: parameters, grouping: grouping, limit: 50))
        }
        try add("items", service.items(project: project, parameters: parameters, limit: 50))
        try add("sessions", service.sessions(project: project, parameters: parameters))
        try add("transitions", service.transitions(project: project, parameters: parameters, limit: 50))
        var steps = ["defined:viewed-home", "defined:bought"]
        steps += pages.map { "page:\($0)" } + events.map { "event:\($0)" }
        for page in pages {
            try add(
                "paths-\(page)",
                service.paths(project: project, parameters: parameters, after: page, limit: 50))
        }
        for (offset, first) in steps.enumerated() {
            let second = steps[(offset + 1) % steps.count]
            var funnel = parameters
            funnel.query["step1"] = first
            funnel.query["step2"] = second
            funnel.query["step3"] = steps[(offset + 2) % steps.count]
            try add("funnel-\(first)-\(second)", service.funnel(project: project, parameters: funnel))
        }
        for event in [nil] + events {
            var retention = parameters
            retention.query["return_event"] = event
            retention.query["days"] = "7"
            try add("retention-\(event ?? "any")", service.retention(project: project, parameters: retention))
        }
        return answers
    }

    /// Records an issue for each number in `json` that is not finite, is negative, or (a share
    /// or a conversion) is above 1.
    static func expectSane(
        _ json: JSONValue, at path: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch json {
        case .int(let value):
            #expect(value >= 0, "\(path) is \(value)", sourceLocation: sourceLocation)
        case .double(let value):
            #expect(value.isFinite && value >= 0, "\(path) is \(value)", sourceLocation: sourceLocation)
            let key = path.split(separator: ".").last.map(String.init) ?? ""
            if ["share", "conversion"].contains(key) {
                #expect(value <= 1, "\(path) is \(value)", sourceLocation: sourceLocation)
            }
        case .array(let items):
            for (index, item) in items.enumerated() {
                expectSane(item, at: "\(path)[\(index)]", sourceLocation: sourceLocation)
            }
        case .object(let members):
            for (key, value) in members {
                expectSane(value, at: "\(path).\(key)", sourceLocation: sourceLocation)
            }
        case .null, .bool, .string:
            break
        }
    }
}
