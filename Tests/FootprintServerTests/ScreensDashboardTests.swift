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
}
