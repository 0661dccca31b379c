import Foundation
import Testing

@testable import Footprint

/// Reading, validating and matching tracking plans.
struct TrackingPlanTests {
    let plan: TrackingPlan

    init() throws {
        plan = try CaptureFixtures.plan()
    }

    @Test func fixtureReadsEveryKey() throws {
        #expect(plan.version == 1)
        #expect(plan.uploadMode == .matched)
        #expect(plan.pageMode == .configured)
        #expect(plan.sampleRate == 1)
        #expect(plan.blockedEvents == ["debug_event"])
        #expect(plan.capture.gestures == false)
        #expect(plan.capture.exposures && plan.capture.controls && plan.capture.pages)
        #expect(plan.ignoredPages == ["DebugMenuViewController"])
        #expect(plan.pages["HomeViewController"] == PageRule(name: "Home", properties: ["tab": "home"]))
        #expect(plan.events.map(\.id) == ["1001", "1002", "1003", "1004"])
        #expect(
            plan.events[0].triggers == [
                .method(target: "ArticleViewController", method: "goShare"),
                .method(target: "ProductViewController", method: "goShare"),
            ])
        #expect(plan.events[0].properties["article_url"]?.components == ["target", "article", "url"])
        let banner = try #require(plan.events.last?.triggers.first)
        #expect(
            banner
                == .element(
                    ElementRule(
                        match: .pattern, path: "#bannerTapped:#UIButton#**#HomeViewController#**",
                        attributes: ["slot": "top"])))
    }

    @Test func propertyListReadsTheSamePlan() throws {
        let fromPlist = try TrackingPlan(propertyList: CaptureFixtures.data("plan.plist"))
        #expect(fromPlist == plan)
        let fromFile = try TrackingPlan(
            contentsOf: CaptureFixtures.folder.appendingPathComponent("plan.plist"))
        #expect(fromFile == plan)
    }

    @Test func aBundledPlanIsFoundByName() throws {
        let bundle = try #require(Bundle(path: CaptureFixtures.folder.path))
        #expect(try TrackingPlan.bundled(named: "plan", in: bundle) == plan)
        #expect(try TrackingPlan.bundled(named: "absent", in: bundle) == nil)
    }

    @Test func aMinimalPlanTakesTheDefaults() throws {
        let minimal = try TrackingPlan(jsonBytes: Array(#"{"version": 1}"#.utf8))
        #expect(minimal == TrackingPlan())
        #expect(minimal.uploadMode == .all && minimal.pageMode == .all && minimal.sampleRate == 1)
    }

    static let invalidPlans: [(String, String, PlanError.Code)] = [
        (##"[]"##, "", .invalidValue),
        (##"{"##, "", .unreadable),
        (##"{}"##, "version", .missingKey),
        (##"{"version": "1"}"##, "version", .invalidValue),
        (##"{"version": 0}"##, "version", .invalidValue),
        (##"{"version": 2}"##, "version", .unsupportedVersion),
        (##"{"version": 1, "evnts": []}"##, "evnts", .unknownKey),
        (##"{"version": 1, "uploadMode": "some"}"##, "uploadMode", .invalidValue),
        (##"{"version": 1, "pageMode": 1}"##, "pageMode", .invalidValue),
        (##"{"version": 1, "sampleRate": 1.5}"##, "sampleRate", .invalidValue),
        (##"{"version": 1, "blockedEvents": ["a", ""]}"##, "blockedEvents[1]", .invalidValue),
        (##"{"version": 1, "capture": {"pages": "no"}}"##, "capture.pages", .invalidValue),
        (##"{"version": 1, "capture": {"clicks": false}}"##, "capture.clicks", .unknownKey),
        (##"{"version": 1, "pages": {"Home": {}}}"##, "pages.Home.name", .missingKey),
        (
            ##"{"version": 1, "pages": {"Home": {"name": "H", "properties": 3}}}"##, "pages.Home.properties",
            .invalidValue
        ),
        (##"{"version": 1, "pages": {"A#B": {"name": "H"}}}"##, "pages.A#B", .invalidValue),
        (##"{"version": 1, "events": {}}"##, "events", .invalidValue),
        (
            ##"{"version": 1, "events": [{"name": "a", "triggers": [{"target": "T", "method": "m"}]}]}"##,
            "events[0].id", .missingKey
        ),
        (
            ##"{"version": 1, "events": [{"id": "", "name": "a", "triggers": []}]}"##, "events[0].id",
            .invalidValue
        ),
        (
            ##"{"version": 1, "events": [{"id": 1, "triggers": [{"target": "T", "method": "m"}]}]}"##,
            "events[0].name", .missingKey
        ),
        (##"{"version": 1, "events": [{"id": 1, "name": "a"}]}"##, "events[0].triggers", .missingKey),
        (
            ##"{"version": 1, "events": [{"id": 1, "name": "a", "triggers": []}]}"##, "events[0].triggers",
            .invalidValue
        ),
        (
            ##"{"version": 1, "events": [{"id": 1, "name": "a", "triggers": [{}]}]}"##,
            "events[0].triggers[0].path", .missingKey
        ),
        (
            ##"{"version": 1, "events": [{"id": 1, "name": "a", "triggers": [{"target": "T"}]}]}"##,
            "events[0].triggers[0].method", .missingKey
        ),
        (
            ##"{"version": 1, "events": [{"id": 1, "name": "a", "triggers": [{"target": "T", "method": "m", "path": "#x"}]}]}"##,
            "events[0].triggers[0].path", .unknownKey
        ),
        (
            ##"{"version": 1, "events": [{"id": 1, "name": "a", "triggers": [{"path": "x"}]}]}"##,
            "events[0].triggers[0].path", .invalidValue
        ),
        (
            ##"{"version": 1, "events": [{"id": 1, "name": "a", "triggers": [{"path": "#x", "match": "fuzzy"}]}]}"##,
            "events[0].triggers[0].match", .invalidValue
        ),
        (
            ##"{"version": 1, "events": [{"id": 1, "name": "a", "triggers": [{"path": "#***", "match": "pattern"}]}]}"##,
            "events[0].triggers[0].path", .invalidValue
        ),
        (
            ##"{"version": 1, "events": [{"id": 1, "name": "a", "triggers": [{"path": "#x", "attributes": {"on": [1]}}]}]}"##,
            "events[0].triggers[0].attributes.on", .invalidValue
        ),
        (
            ##"{"version": 1, "events": [{"id": 1, "name": "a", "triggers": [{"path": "#x"}], "properties": {"u": "a..b"}}]}"##,
            "events[0].properties.u", .invalidValue
        ),
        (
            ##"{"version": 1, "events": [{"id": 1, "name": "a", "triggers": [{"path": "#x"}]}, {"id": "1", "name": "b", "triggers": [{"path": "#y"}]}]}"##,
            "events[1].id", .duplicateId
        ),
    ]

    @Test(arguments: invalidPlans)
    func invalidPlansNameTheKeyAtFault(json: String, keyPath: String, code: PlanError.Code) {
        #expect {
            try TrackingPlan(jsonBytes: Array(json.utf8))
        } throws: { error in
            guard let error = error as? PlanError else { return false }
            return error.keyPath == keyPath && error.code == code && !error.message.isEmpty
        }
    }

    @Test func theFourthTriggerOfTheFourthEventIsNamed() throws {
        var events: [String] = []
        for index in 0..<4 {
            let path = index == 3 ? "no-hash" : "#p\(index)"
            events.append(
                ##"{"id": \##(index), "name": "e\##(index)", "triggers": [{"path": "#a"}, {"path": "#b"}, {"path": "#c"}, {"path": "\##(path)"}]}"##
            )
        }
        let json = ##"{"version": 1, "events": [\##(events.joined(separator: ","))]}"##
        let error = try #require(throws: PlanError.self) { try TrackingPlan(jsonBytes: Array(json.utf8)) }
        #expect(error.keyPath == "events[3].triggers[3].path")
        #expect(error.description.contains("events[3].triggers[3].path"))
    }

    @Test func plistErrorsNameTheKeyToo() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>version</key><integer>1</integer>
            <key>events</key><array><dict><key>id</key><integer>7</integer><key>name</key><string>x</string>
            <key>triggers</key><array><dict><key>path</key><date>2024-01-01T00:00:00Z</date></dict></array></dict></array>
            </dict></plist>
            """
        let error = try #require(throws: PlanError.self) { try TrackingPlan(propertyList: Data(xml.utf8)) }
        #expect(error.keyPath == "events[0].triggers[0].path")
        #expect(throws: PlanError.self) { try TrackingPlan(propertyList: Data("not a plist".utf8)) }
    }

    /// Random damage to the fixture either still reads or fails with a `PlanError`: never a crash.
    @Test func damagedPlansFailCleanly() throws {
        let original = try [UInt8](CaptureFixtures.data("plan.json"))
        var generator = SystemRandomNumberGenerator()
        let noise = Array("{}[]\",:#*0123456789abtrue".utf8)
        var accepted = 0
        for _ in 0..<400 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[position] = noise.randomElement(using: &generator)!
                case 1: bytes.remove(at: position)
                default: bytes.insert(noise.randomElement(using: &generator)!, at: position)
                }
            }
            do {
                let damaged = try TrackingPlan(jsonBytes: bytes)
                accepted += 1
                _ = PlanMatcher(plan: damaged)
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
        #expect(accepted < 400)
    }
}

/// Path patterns.
struct PathPatternTests {
    @Test(arguments: [
        (
            "#buy:#UIButton#**#CartViewController#**",
            "#buy:#UIButton#UIButton[0]#UIView[0]#CartViewController#UIApplication#AppDelegate", true
        ),
        (
            "#buy:#UIButton#**#CartViewController#**",
            "#buy:#UIButton#UIButton[0]#UIView[0]#HomeViewController#UIApplication#AppDelegate", false
        ),
        ("#buy:#UIButton#UIButton[*]#**", "#buy:#UIButton#UIButton[3]#UIView[0]#X", true),
        ("#buy:#UIButton#UIButton[*]#UIView[0]", "#buy:#UIButton#UIButton[3]#UIView[0]", true),
        ("#buy:#UIButton#*#UIView[0]", "#buy:#UIButton#UIButton[0]#UIStackView[0]#UIView[0]", false),
        ("#buy:#UIButton#**#UIView[0]", "#buy:#UIButton#UIButton[0]#UIStackView[0]#UIView[0]", true),
        ("#**", "#anything#at#all", true),
        ("**#AppDelegate", "#x#AppDelegate", true),
        ("#a#*", "#a#", true),
        ("#a#*", "#a#b#c", false),
        ("#a", "#ab", false),
        ("#a", "#a", true),
        ("#x#**#currentTitle=Buy#**", "#x#y#currentTitle=Buy#state=0", true),
        ("#x#**#currentTitle=Buy#**", "#x#y#currentTitle=Buy now#state=0", false),
    ])
    func matches(pattern: String, path: String, expected: Bool) throws {
        #expect(try PathPattern(pattern).matches(path) == expected)
    }

    @Test func refusesBadPatterns() {
        #expect(throws: PathPattern.Error.self) { try PathPattern("buy") }
        #expect(throws: PathPattern.Error.self) { try PathPattern("#***") }
        #expect(throws: PathPattern.Error.self) { try PathPattern("#" + String(repeating: "*#", count: 9)) }
    }

    /// A pattern made from a path by replacing segments with `*` or runs with `**` matches it.
    @Test func patternsMadeFromAPathMatchIt() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let segments = (0..<Int.random(in: 2...10, using: &generator)).map { _ in
                "S\(Int.random(in: 0...5, using: &generator))[\(Int.random(in: 0...2, using: &generator))]"
            }
            let path = "#" + segments.joined(separator: "#")
            var patternSegments = segments
            var wildcards = 0
            for index in patternSegments.indices where Bool.random(using: &generator) && wildcards < 8 {
                patternSegments[index] = Bool.random(using: &generator) ? "*" : "**"
                wildcards += 1
            }
            let pattern = try PathPattern("#" + patternSegments.joined(separator: "#"))
            #expect(pattern.matches(path), "\(pattern) should match \(path)")
            if !patternSegments.contains("**") {
                #expect(!pattern.matches(path + "#Extra[0]"), "without ** the segment count is fixed")
            }
        }
    }
}

/// Matching element actions and method calls against a plan.
struct PlanMatcherTests {
    let matcher: PlanMatcher

    init() throws {
        matcher = PlanMatcher(plan: try CaptureFixtures.plan())
    }

    func event(_ element: ElementDescription, _ action: ActionDescription) -> PlanEvent? {
        let path = ElementPath(element: element, action: action)
        return matcher.event(exactPath: path.exact, similarPath: path.similar) {
            element.conditionValue(named: $0)
        }
    }

    @Test func severalTriggersAndPathVariantsAcrossVersionsRaiseOneEvent() {
        let version1 = Chains.button(0, in: "ProductViewController", title: "Buy")
        var version2 = version1
        version2.chain =
            [
                .view("UIButton", 1), .view("UIStackView", 0), .view("UIView", 0),
                .controller("ProductViewController"),
            ]
            + Chains.applicationTail
        #expect(event(version1, Chains.tap("buyTapped:"))?.name == "buy")
        #expect(event(version2, Chains.tap("buyTapped:"))?.name == "buy")
        var renamed = version1
        renamed.attributes.title = "Buy now"
        #expect(event(renamed, Chains.tap("buyTapped:")) == nil)
    }

    @Test func oneSimilarRuleMatchesEveryRow() {
        for row in [0, 1, 17] {
            #expect(event(Chains.cell(row: row), Chains.tableSelection)?.id == "1003")
        }
        #expect(event(Chains.cell(section: 1, row: 0), Chains.tableSelection) == nil)
    }

    @Test func exactRulesTellRowsApart() throws {
        let thirdRow = ElementPath(element: Chains.cell(row: 3), action: Chains.tableSelection).exact
        let plan = TrackingPlan(events: [
            PlanEvent(id: "9", name: "third", triggers: [.element(ElementRule(path: thirdRow))])
        ])
        let exact = PlanMatcher(plan: plan)
        for row in 0..<6 {
            let path = ElementPath(element: Chains.cell(row: row), action: Chains.tableSelection)
            let found = exact.event(exactPath: path.exact, similarPath: path.similar) { _ in nil }
            #expect((found != nil) == (row == 3))
        }
    }

    @Test func patternRulesCheckAttributeConditions() {
        var top = ElementDescription(
            chain: [
                .view("UIButton", 0, properties: ["slot": "top"]), .view("BannerView", 0), .view("UIView", 0),
                .controller("HomeViewController"),
            ] + Chains.applicationTail,
            kind: .button)
        #expect(event(top, Chains.tap("bannerTapped:"))?.name == "banner")
        top.chain[0].properties = ["slot": "bottom"]
        #expect(event(top, Chains.tap("bannerTapped:")) == nil)
        top.chain[0].properties = [:]
        top.chain[1].properties = ["slot": "top"]
        #expect(
            event(top, Chains.tap("bannerTapped:"))?.name == "banner",
            "an ancestor's business property counts")
    }

    @Test func methodTriggersFromSeveralTypesShareOneEvent() {
        #expect(matcher.event(target: "ArticleViewController", method: "goShare")?.id == "1001")
        #expect(matcher.event(target: "ProductViewController", method: "goShare")?.id == "1001")
        #expect(matcher.event(target: "ProductViewController", method: "goBack") == nil)
        #expect(matcher.event(target: "CartViewController", method: "goShare") == nil)
    }

    @Test func theFirstEventInPlanOrderWins() {
        let path = ElementPath(element: Chains.button(), action: Chains.tap())
        let plan = TrackingPlan(events: [
            PlanEvent(
                id: "a", name: "any-button",
                triggers: [.element(ElementRule(match: .pattern, path: "#buttonClick:#**"))]),
            PlanEvent(id: "b", name: "this-button", triggers: [.element(ElementRule(path: path.exact))]),
        ])
        #expect(
            PlanMatcher(plan: plan).event(exactPath: path.exact, similarPath: path.similar) { _ in nil }?.id
                == "a")
        let reversed = TrackingPlan(events: plan.events.reversed())
        #expect(
            PlanMatcher(plan: reversed).event(exactPath: path.exact, similarPath: path.similar) { _ in nil }?
                .id == "b")
    }

    @Test func attributeConditionsOnExactRules() {
        let path = ElementPath(element: Chains.button(), action: Chains.tap())
        let plan = TrackingPlan(events: [
            PlanEvent(
                id: "on", name: "enabled",
                triggers: [.element(ElementRule(path: path.exact, attributes: ["enabled": "0"]))]),
            PlanEvent(id: "any", name: "any", triggers: [.element(ElementRule(path: path.exact))]),
        ])
        let found = PlanMatcher(plan: plan).event(exactPath: path.exact, similarPath: path.similar) {
            Chains.button().conditionValue(named: $0)
        }
        #expect(found?.id == "any")
    }
}

/// Deterministic sampling per device.
struct DeviceSamplingTests {
    @Test func theDecisionIsStableAndMonotonicInTheRate() {
        for index in 0..<200 {
            let device = "device-\(index)"
            #expect(DeviceSampling.includes(deviceID: device, rate: 1))
            #expect(!DeviceSampling.includes(deviceID: device, rate: 0))
            let position = DeviceSampling.position(of: device)
            #expect(position >= 0 && position < 1)
            #expect(
                DeviceSampling.includes(deviceID: device, rate: 0.3)
                    == DeviceSampling.includes(deviceID: device, rate: 0.3))
            if DeviceSampling.includes(deviceID: device, rate: 0.3) {
                #expect(DeviceSampling.includes(deviceID: device, rate: 0.6))
            }
        }
    }

    @Test func aboutTheRateOfDevicesIsIncluded() {
        let included = (0..<10_000).count {
            DeviceSampling.includes(
                deviceID: UUIDv7.make(at: Timestamp(millisecondsSince1970: Int64($0))), rate: 0.25)
        }
        #expect((2_200...2_800).contains(included))
    }
}

/// Writing plans back to JSON.
struct TrackingPlanEncodingTests {
    @Test func theFixtureRoundTrips() throws {
        let plan = try CaptureFixtures.plan()
        #expect(try TrackingPlan(json: plan.jsonValue) == plan)
        #expect(try TrackingPlan(jsonBytes: JSONWriter.bytes(plan.jsonValue)) == plan)
        #expect(TrackingPlan().jsonValue == ["version": 1])
    }

    /// Random valid plans read back equal from their JSON.
    @Test func randomPlansRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        func word() -> String {
            ["Home", "Cart", "a.b", "x y", "ü", "#p", "*"].randomElement(using: &generator)!
        }
        for _ in 0..<200 {
            var plan = TrackingPlan()
            plan.uploadMode = TrackingPlan.UploadMode.allCases.randomElement(using: &generator)!
            plan.pageMode = TrackingPlan.PageMode.allCases.randomElement(using: &generator)!
            plan.sampleRate = [0, 0.25, 1].randomElement(using: &generator)!
            plan.blockedEvents = Set((0..<Int.random(in: 0...2, using: &generator)).map { _ in word() })
            plan.capture.cells = Bool.random(using: &generator)
            plan.pages = Dictionary(
                (0..<Int.random(in: 0...3, using: &generator)).map {
                    (
                        "Controller\($0)",
                        PageRule(name: word(), properties: Bool.random(using: &generator) ? ["k": 1] : [:])
                    )
                }, uniquingKeysWith: { first, _ in first })
            plan.events = (0..<Int.random(in: 0...4, using: &generator)).map { index in
                let triggers: [PlanTrigger] = (0..<Int.random(in: 1...3, using: &generator)).map { _ in
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0: return .method(target: "Type\(index)", method: "go\(index)")
                    case 1: return .element(ElementRule(path: "#tap:#\(word())"))
                    case 2:
                        return .element(
                            ElementRule(match: .similar, path: "#tap:#Cell[0:*]", attributes: ["on": "1"]))
                    default: return .element(ElementRule(match: .pattern, path: "#tap:#**#\(index)"))
                    }
                }
                return PlanEvent(
                    id: "e\(index)", name: word(), triggers: triggers,
                    properties: Bool.random(using: &generator)
                        ? ["u": PropertyKeyPath("view.banner.url")!] : [:])
            }
            #expect(try TrackingPlan(json: plan.jsonValue) == plan)
        }
    }
}
