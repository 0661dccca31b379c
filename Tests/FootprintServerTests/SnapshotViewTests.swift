import FootprintWire
import Testing

@testable import FootprintServer

/// The Screens page's drawing of one snapshot: boxes, figures, click-map colours, ignored
/// elements, wireframe or screenshot, taps, and escaping of every client text.
struct SnapshotViewTests {
    static let hostile = "\"><script>alert('x')</script>&amp;<svg onload=alert(1)>"

    let snapshot: ScreenSnapshot

    init() {
        snapshot = ScreenSnapshot(
            connectToken: "token", snapshotID: "9b0a1c3e-0000-4000-8000-000000000001",
            anonymousID: "device-1",
            page: "Product List", appVersion: "2.0", build: "45", osVersion: "17.4",
            deviceModel: "iPhone15,2",
            screen: ScreenSnapshot.Screen(width: 393, height: 852, scale: 3),
            takenAt: Timestamp(iso8601: "2026-11-02T10:00:00.000Z")!, trigger: .pageAppear,
            elements: [
                Self.element("#cart:#UIButton#Bar", x: 300, y: 50, width: 80, height: 40, text: "Cart"),
                Self.element(
                    "#select:#ProductCell[0:0]#List", similar: "#select:#ProductCell[0:*]#List", x: 0, y: 103,
                    width: 393, height: 120, text: "Sneakers"),
                Self.element(
                    "#select:#ProductCell[0:1]#List", similar: "#select:#ProductCell[0:*]#List", x: 0, y: 223,
                    width: 393, height: 120, text: "Boots"),
                Self.element("#pin:#UITextField#Form", x: 20, y: 400, width: 200, height: 30, ignored: true),
                Self.element(
                    "#evil:\(Self.hostile)", similar: "#evil:\(Self.hostile)*", x: -10.25, y: 700, width: 50,
                    height: 50, text: Self.hostile),
            ])
    }

    static func element(
        _ path: String, similar: String? = nil, x: Double, y: Double, width: Double, height: Double,
        text: String? = nil, ignored: Bool = false
    ) -> ScreenSnapshot.Element {
        ScreenSnapshot.Element(
            path: path, similarPath: similar ?? path, kind: ignored ? "text_field" : "button",
            frame: ScreenSnapshot.Frame(x: x, y: y, width: width, height: height), text: ignored ? nil : text,
            ignored: ignored)
    }

    func view(grouping: ElementGrouping = .exact, image: Bool = false, taps: [String: Int] = [:])
        -> SnapshotView
    {
        SnapshotView(
            snapshot: snapshot, id: "s1", hasImage: image,
            exact: [
                "#cart:#UIButton#Bar": .init(clicks: 10, people: 4),
                "#select:#ProductCell[0:0]#List": .init(clicks: 5, people: 3),
                "#select:#ProductCell[0:1]#List": .init(clicks: 1, people: 1),
                "#pin:#UITextField#Form": .init(clicks: 99, people: 9),
            ],
            similar: [
                "#cart:#UIButton#Bar": .init(clicks: 10, people: 4),
                "#select:#ProductCell[0:*]#List": .init(clicks: 20, people: 6),
            ],
            grouping: grouping, taps: taps, linkQuery: "?project=shop&from=2026-11-01")
    }

    /// Every `<rect class="box …" …>` with its attributes, unescaped.
    static func boxes(_ html: String) -> [[String: String]] {
        html.components(separatedBy: "<rect class=\"box ").dropFirst().map { tail in
            let tag = String(tail.prefix { $0 != ">" })
            var attributes: [String: String] = ["class": "box " + String(tag.prefix { $0 != "\"" })]
            for part in tag.components(separatedBy: "\" ").dropFirst() {
                let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2 else { continue }
                attributes[pair[0]] = unescape(String(pair[1].dropFirst().prefix { $0 != "\"" }))
            }
            return attributes
        }
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test(arguments: [
        (0, 10, 0), (-3, 10, 0), (1, 10, 1), (5, 10, 5), (9, 10, 9), (10, 10, 9), (11, 10, 9), (3, 0, 0),
        (1, 1_000_000, 1), (Int.max, Int.max, 9), (Int.max / 2, Int.max, 5),
    ])
    func theColourScaleIsTheShareOfTheMostClickedBoxInNineSteps(clicks: Int, most: Int, level: Int) {
        #expect(SnapshotView.level(clicks: clicks, most: most) == level)
    }

    @Test func everyElementHasABoxWithItsFiguresAndTheClickMapColour() throws {
        let html = view().html
        let boxes = Self.boxes(html)
        #expect(boxes.count == snapshot.elements.count)
        let byPath = Dictionary(boxes.compactMap { box in box["data-path"].map { ($0, box) } }) { $1 }
        let cart = try #require(byPath["#cart:#UIButton#Bar"])
        #expect(cart["data-clicks"] == "10")
        #expect(cart["data-people"] == "4")
        #expect(cart["data-text"] == "Cart")
        #expect(cart["class"] == "box m9")
        let second = try #require(byPath["#select:#ProductCell[0:1]#List"])
        #expect(second["data-similar-path"] == "#select:#ProductCell[0:*]#List")
        #expect(second["data-similar-clicks"] == "20")
        #expect(second["class"] == "box m1")
        #expect(byPath["#select:#ProductCell[0:0]#List"]?["class"] == "box m5")
        // Wireframe without a screenshot; the viewBox is the screen in points.
        #expect(html.contains("viewBox=\"0 0 393.0 852.0\""))
        #expect(html.contains("<g class=\"wireframe\">"))
        #expect(!html.contains("<image"))
        #expect(html.contains(">Sneakers</text>"))
        // Each box links to the define form with the exact path and the range kept.
        #expect(
            html.contains(
                "href=\"/screens/define?snapshot=s1&amp;path=%23cart%3A%23UIButton%23Bar&amp;match=exact&amp;name=Cart&amp;project=shop&amp;from=2026-11-01\""
            ))
    }

    @Test func theSimilarToggleColoursByTheSimilarPathsAndLinksThem() throws {
        let html = view(grouping: .similar).html
        let byPath = Dictionary(Self.boxes(html).compactMap { box in box["data-path"].map { ($0, box) } }) {
            $1
        }
        // The list's rows share 20 clicks, the most on the screen; the cart's 10 is half.
        #expect(byPath["#select:#ProductCell[0:1]#List"]?["class"] == "box m9")
        #expect(byPath["#cart:#UIButton#Bar"]?["class"] == "box m5")
        #expect(html.contains("data-grouping=\"similar\""))
        #expect(html.contains("path=%23select%3A%23ProductCell%5B0%3A%2A%5D%23List&amp;match=similar"))
    }

    @Test func ignoredElementsAreHatchedWithoutFiguresOrLink() throws {
        let html = view().html
        let ignored = try #require(Self.boxes(html).first { $0["data-ignored"] == "1" })
        #expect(ignored["class"] == "box ignored")
        #expect(ignored["fill"] == "url(#hatch)")
        #expect(ignored["data-path"] == nil)
        #expect(ignored["data-clicks"] == nil)
        #expect(!html.contains("UITextField"))
        // Its 99 clicks do not make it the most clicked box: the cart stays level 9, not less.
        #expect(Self.boxes(html).first { $0["data-path"] == "#cart:#UIButton#Bar" }?["class"] == "box m9")
    }

    @Test func hostileTextsAndPathsAreEscapedEverywhere() throws {
        let html = view().html + view(grouping: .similar, image: true).html
        #expect(!html.contains("<script"))
        #expect(!html.contains("<svg onload"))
        #expect(!html.contains("'x'"))
        let evil = try #require(
            Self.boxes(view().html).first { $0["data-path"]?.hasPrefix("#evil:") == true })
        #expect(evil["data-path"] == "#evil:\(Self.hostile)")
        #expect(evil["data-similar-path"] == "#evil:\(Self.hostile)*")
        #expect(evil["data-text"] == Self.hostile)
        #expect(evil["x"] == "-10.2" || evil["x"] == "-10.3")
        var page = snapshot
        page.page = Self.hostile
        page.deviceModel = Self.hostile
        let caption = SnapshotView(
            snapshot: page, id: Self.hostile, hasImage: true, exact: [:], similar: [:], grouping: .exact
        ).html
        #expect(!caption.contains("<script"))
        #expect(caption.contains("data-snapshot=\"\(HTML.escape(Self.hostile))\""))
        #expect(caption.contains("<image href=\"/screens/image?id=%22%3E%3Cscript%3E"))
    }

    @Test func theScreenshotReplacesTheWireframe() {
        let html = view(image: true).html
        #expect(
            html.contains(
                "<image href=\"/screens/image?id=s1\" x=\"0\" y=\"0\" width=\"393.0\" height=\"852.0\" preserveAspectRatio=\"none\"/>"
            ))
        #expect(!html.contains("class=\"wireframe\""))
        // Another project's screenshot is looked up in that project.
        var other = view(image: true)
        other.project = "second shop"
        #expect(other.html.contains("<image href=\"/screens/image?id=s1&amp;project=second%20shop\""))
    }

    @Test func smallerBoxesAreDrawnAboveLargerOnesAndTapsAreMarked() throws {
        let html = view(taps: ["#cart:#UIButton#Bar": 2]).html
        let order = Self.boxes(html).map { $0["data-path"] ?? "ignored" }
        let list = try #require(order.firstIndex(of: "#select:#ProductCell[0:0]#List"))
        let cart = try #require(order.firstIndex(of: "#cart:#UIButton#Bar"))
        #expect(list < cart)
        let tapped = try #require(Self.boxes(html).first { $0["data-path"] == "#cart:#UIButton#Bar" })
        #expect(tapped["data-taps"] == "2")
        #expect(tapped["class"] == "box m9 tapped")
        #expect(
            html.contains("<text class=\"tap-count\" x=\"340.0\" y=\"74.0\" text-anchor=\"middle\">2</text>"))
    }
}
