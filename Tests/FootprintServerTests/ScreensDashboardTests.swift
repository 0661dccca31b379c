import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The Screens page over HTTP: defining an event from a snapshot's box, publishing it, and the
/// definitions and config pages showing it.
@Suite(.serialized) struct ScreensDashboardTests {
    static let buyPath = "#buy:#UIButton#Detail"

    @Test func defineFromAScreenCountsTheStoredClicksSavesAndPublishes() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let browser = try DashboardTests.signIn(fixture)
        let query = HTML.query([
            ("from", "2026-11-01"), ("to", "2026-11-03"), ("path", Self.buyPath), ("match", "exact"),
            ("name", "Buy"), ("snapshot", "snap-1"),
        ])
        let form = try browser.get("/screens/define" + query)
        #expect(form.status == 200)
        #expect(form.text.contains("<strong id=\"define-matches\">1</strong>"))
        #expect(form.text.contains("<strong id=\"define-people\">1</strong>"))
        #expect(form.text.contains(HTML.escape(Self.buyPath)))
        // The same count as the definitions report gives a definition with this path.
        let elements = try fixture.json("/v1/reports/elements?\(ReportFixture.range)")
        #expect(elements.arrayValue?.first?["clicks"]?.int64Value == 1)

        let saved = try browser.post(
            "/screens/define",
            ["id": "buy", "name": "Buy", "path1": Self.buyPath, "match1": "exact", "snapshot": "snap-1"])
        #expect(saved.status == 303)
        let location = try #require(saved.headers["location"])
        #expect(location.hasPrefix("/screens/define?"))
        #expect(location.contains("saved=buy"))
        let offer = try browser.get(location)
        #expect(offer.text.contains("id=\"define-saved\""))
        #expect(offer.text.contains("action=\"/definitions/publish\""))

        let published = try browser.post("/definitions/publish", [:])
        #expect(published.status == 303)
        #expect(published.headers["location"]?.hasPrefix("/config") == true)
        let definitions = try browser.get("/definitions?\(ReportFixture.range)")
        #expect(definitions.text.contains("<code>buy</code>"))
        #expect(definitions.text.contains(HTML.escape(Self.buyPath)))
        let config = try browser.get("/config")
        #expect(config.text.contains("&quot;buy&quot;"))
        #expect(config.text.contains(HTML.escape(Self.buyPath)))
    }

    @Test func theSimilarPathCountsEveryRowAndHostileTextIsEscaped() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let browser = try DashboardTests.signIn(fixture)
        let hostile = "<script>alert(1)</script>\"'&"
        let query = HTML.query([
            ("from", "2026-11-01"), ("to", "2026-11-03"), ("path", Self.buyPath), ("match", "similar"),
            ("name", hostile), ("snapshot", hostile),
        ])
        let form = try browser.get("/screens/define" + query)
        #expect(form.status == 200)
        #expect(form.text.contains("<strong id=\"define-matches\">1</strong>"))
        #expect(!form.text.contains("<script>alert"))
        #expect(form.text.contains(HTML.escape(hostile)))
        #expect(form.text.contains("<option value=\"similar\" selected>"))

        let refused = try browser.post(
            "/screens/define", ["id": "no spaces allowed", "name": hostile, "path1": Self.buyPath])
        #expect(refused.status == 400)
        #expect(!refused.text.contains("<script>alert"))
        #expect(try browser.get("/screens/define?path=").status == 400)
        #expect(try browser.get("/screens/define?path=x&match=pattern").status == 400)
    }

    /// A snapshot of the fixture's Detail page: the Buy button, a list row and an ignored field.
    static func snapshot(token: String, device: String = "a9", image: ScreenSnapshot.Image? = nil)
        -> ScreenSnapshot
    {
        ScreenSnapshot(
            connectToken: token, snapshotID: UUIDv7.make(at: ReportFixture.now), anonymousID: device,
            page: "Detail", appVersion: "2.0", build: "7", osVersion: "17.2", deviceModel: "iPhone15,2",
            screen: ScreenSnapshot.Screen(width: 390, height: 844, scale: 3), takenAt: ReportFixture.now,
            trigger: .pageAppear,
            elements: [
                ScreenSnapshot.Element(
                    path: buyPath, similarPath: buyPath, kind: "button",
                    frame: ScreenSnapshot.Frame(x: 16, y: 700, width: 358, height: 50), text: "Buy"),
                ScreenSnapshot.Element(
                    path: "#row:#Cell[0:3]#Detail", similarPath: "#row:#Cell[0:*]#Detail", kind: "cell",
                    frame: ScreenSnapshot.Frame(x: 0, y: 100, width: 390, height: 80), text: "<b>Row</b>"),
                ScreenSnapshot.Element(
                    path: "#pin:#UITextField#Detail", similarPath: "#pin:#UITextField#Detail",
                    kind: "text_field",
                    frame: ScreenSnapshot.Frame(x: 16, y: 300, width: 200, height: 30), ignored: true),
            ], image: image)
    }

    /// Starts a connect session through the dashboard; returns the page and the link's token.
    static func startSession(_ browser: DashboardTests.Browser) throws -> (page: String, token: String) {
        let started = try browser.post("/screens/connect", [:])
        #expect(started.status == 200)
        let text = started.text
        let link = try #require(
            text.range(of: "id=\"connect-link\">").map { String(text[$0.upperBound...].prefix { $0 != "<" }) }
        )
        let token = try #require(
            link.range(of: "token=").map { String(link[$0.upperBound...].prefix { $0 != "&" }) })
        return (text, token)
    }

    static func upload(_ fixture: ReportFixture, _ snapshot: ScreenSnapshot) throws -> LoopbackClient.Response
    {
        try fixture.client.post(
            "/v1/snapshots", json: String(decoding: snapshot.jsonBytes, as: UTF8.self),
            writeKey: fixture.fixture.writeKey)
    }

    @Test func aConnectSessionShowsItsLinkOnceAndTheLiveViewFollowsTheDevice() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let browser = try DashboardTests.signIn(fixture)
        let empty = try browser.get("/screens")
        #expect(empty.status == 200)
        #expect(empty.text.contains("id=\"no-screens\""))
        #expect(empty.text.contains("<script src=\"/assets/screens.js\"></script>"))

        let (page, token) = try Self.startSession(browser)
        #expect(token.hasPrefix("fpc_"))
        #expect(page.contains("footprint/connect?token="))
        #expect(page.contains("aria-label=\"QR code"))
        #expect(page.contains("id=\"live-snapshot\""))
        #expect(page.contains("id=\"connect-sessions\""))
        let session = try #require(
            page.range(of: "data-session=\"").map { String(page[$0.upperBound...].prefix { $0 != "\"" }) })
        // The token is shown once: the page of the open sessions never has it.
        let later = try browser.get("/screens")
        #expect(!later.text.contains(token))
        #expect(later.text.contains(String(token.prefix(8))))

        let waiting = try JSONParser().parse(try browser.get("/screens/live.json?session=\(session)").body)
        #expect(waiting["open"]?.boolValue == true)
        #expect(waiting["snapshot"]?.int64Value == 0)
        #expect(waiting["html"] == nil)
        let upload = try Self.upload(fixture, Self.snapshot(token: token))
        #expect(upload.status == 201, "\(upload.text)")
        let live = try JSONParser().parse(
            try browser.get("/screens/live.json?session=\(session)&\(ReportFixture.range)").body)
        let shown = try #require(live["snapshot"]?.int64Value)
        let cursor = try #require(live["cursor"]?.int64Value)
        #expect(shown > 0)
        let html = try #require(live["html"]?.stringValue)
        #expect(html.contains("data-path=\"\(HTML.escape(Self.buyPath))\""))
        #expect(html.contains("data-clicks=\"1\""))
        #expect(!html.contains("<b>Row</b>"))
        #expect(!html.contains("data-taps"))
        // Nothing new: no drawing, no taps, the same place.
        let poll = "/screens/live.json?session=\(session)&snapshot=\(shown)&\(ReportFixture.range)&after="
        let same = try JSONParser().parse(try browser.get(poll + String(cursor)).body)
        #expect(same["html"] == nil)
        #expect(same["taps"]?.arrayValue?.isEmpty == true)
        #expect(same["snapshot"]?.int64Value == shown)

        // A tap by the device during the session: its path for the script to mark; a page
        // opened later draws it.
        let tap = ReportFixture.message(
            "track", "tap-1", anon: "a9", session: "s9", at: "2026-11-03T11:59:00.000Z",
            extra:
                ##""event":"$element_click","properties":{"$page_name":"Detail","$element_path":"#buy:#UIButton#Detail","$element_similar_path":"#buy:#UIButton#Detail"}"##
        )
        let stored = try fixture.client.post(
            "/v1/batch", json: Payloads.batch([tap], sentAt: "2026-11-03T12:00:00.000Z"),
            writeKey: fixture.fixture.writeKey)
        #expect(stored.status == 200)
        let tapped = try JSONParser().parse(try browser.get(poll + String(cursor)).body)
        #expect(tapped["taps"]?.arrayValue == [.string(Self.buyPath)])
        let moved = try #require(tapped["cursor"]?.int64Value)
        #expect(moved > cursor)
        let again = try JSONParser().parse(try browser.get(poll + String(moved)).body)
        #expect(again["taps"]?.arrayValue?.isEmpty == true)
        let reopened = try browser.get("/screens?session=\(session)&\(ReportFixture.range)")
        #expect(reopened.text.contains("data-taps=\"1\""))
        #expect(reopened.text.contains("data-clicks=\"2\""))
        #expect(reopened.text.contains("<text class=\"tap-count\""))
        #expect(try browser.get(poll + "-1").status == 400)

        let ended = try browser.post("/screens/connect/end", ["session": session])
        #expect(ended.status == 303)
        let after = try JSONParser().parse(try browser.get("/screens/live.json?session=\(session)").body)
        #expect(after["open"]?.boolValue == false)
        #expect(try Self.upload(fixture, Self.snapshot(token: token)).status == 410)
        #expect(try browser.get("/screens/live.json?session=999").status == 404)
        #expect(try fixture.client.send("GET", "/screens/live.json?session=\(session)").status == 401)
    }

    @Test func theScreensPageListsPagesAndVersionsAndDrawsTheClickMap() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let browser = try DashboardTests.signIn(fixture)
        let (_, token) = try Self.startSession(browser)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4]
        let upload = try Self.upload(
            fixture,
            Self.snapshot(
                token: token, image: ScreenSnapshot.Image(format: .png, width: 1170, height: 2532, data: png))
        )
        #expect(upload.status == 201, "\(upload.text)")
        let page = try browser.get("/screens?\(ReportFixture.range)")
        #expect(page.status == 200)
        #expect(page.text.contains("id=\"screens\""))
        #expect(page.text.contains(">Detail</a>"))
        #expect(page.text.contains("<td>2.0</td>"))
        #expect(page.text.contains("screenshot"))
        #expect(page.text.contains("data-path=\"\(HTML.escape(Self.buyPath))\""))
        #expect(page.text.contains("class=\"box m9\""))
        #expect(page.text.contains("class=\"box ignored\""))
        #expect(!page.text.contains("<b>Row</b>"))
        let image = try #require(
            page.text.range(of: "<image href=\"").map {
                String(page.text[$0.upperBound...].prefix { $0 != "\"" })
            })
        let served = try browser.get(image.replacingOccurrences(of: "&amp;", with: "&"))
        #expect(served.status == 200)
        #expect(served.headers["content-type"] == "image/png")
        #expect(served.body == png)
        #expect(try browser.get("/screens/image?id=424242").status == 404)
        #expect(try browser.get("/screens?snapshot=424242").status == 400)
        // A second snapshot of the same page and version: the newest is shown, the first linked.
        #expect(try Self.upload(fixture, Self.snapshot(token: token)).status == 201)
        let newest = try browser.get("/screens?\(ReportFixture.range)")
        #expect(newest.text.contains("<td class=\"num\">2</td>"))
        #expect(newest.text.contains("id=\"other-snapshots\""))
        #expect(!newest.text.contains("<image href"))
        let similar = try browser.get("/screens?\(ReportFixture.range)&grouping=similar")
        #expect(similar.text.contains("data-grouping=\"similar\""))
        #expect(similar.text.contains("match=similar"))
    }

    @Test func planHealthShowsAppliedEntriesWithTheirMatchesAndWhyOthersFailed() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let browser = try DashboardTests.signIn(fixture)
        let plan = """
            {"version": 1, "events": [
              {"id": "buy", "name": "Buy", "triggers": [{"path": "#buy:#UIButton#Detail"}]},
              {"id": "share", "name": "Share", "triggers": [{"target": "DetailViewController", "method": "goShare"}]}]}
            """
        #expect(try browser.post("/config/publish", ["document": plan, "action": "publish"]).status == 303)
        let messages = [
            ReportFixture.message(
                "track", "health-1", anon: "a1", session: "s1", at: "2026-11-02T10:00:00.000Z",
                extra:
                    ##""event":"$plan_health","properties":{"plan_version":1,"entries":[{"id":"buy","status":"applied"},{"id":"share","status":"missing_selector","reason":"no <script>goShare</script>"}]}"##
            ),
            ReportFixture.message(
                "track", "named-1", anon: "a1", session: "s1", at: "2026-11-02T10:00:01.000Z",
                extra:
                    ##""event":"$element_click","properties":{"$page_name":"Detail","$element_path":"#buy:#UIButton#Detail","$event_id":"buy","$event_name":"Buy"}"##
            ),
        ]
        let stored = try fixture.client.post(
            "/v1/batch", json: Payloads.batch(messages, sentAt: "2026-11-03T12:00:00.000Z"),
            writeKey: fixture.fixture.writeKey)
        #expect(stored.status == 200)
        let config = try browser.get("/config?\(ReportFixture.range)")
        #expect(config.status == 200)
        #expect(config.text.contains("id=\"plan-health\""))
        #expect(config.text.contains("<span class=\"good\">applied</span>, matched 1 times"))
        #expect(config.text.contains("<span class=\"bad\">missing_selector</span>: no &lt;script&gt;goShare"))
        #expect(!config.text.contains("<script>goShare"))
    }
}
