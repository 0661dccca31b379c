import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The dashboard over HTTP: sign-in, every page on known data, CSRF and auth failures.
@Suite(.serialized) struct DashboardTests {
    /// A signed-in browser: the session cookie and the page's CSRF token.
    struct Browser {
        let fixture: ReportFixture
        let cookie: String
        let csrf: String

        func get(_ path: String) throws -> LoopbackClient.Response {
            try fixture.client.send("GET", path, headers: ["Cookie": cookie])
        }

        func post(_ path: String, _ fields: [String: String], csrf: String? = nil) throws
            -> LoopbackClient.Response
        {
            var fields = fields
            fields["csrf"] = csrf ?? self.csrf
            let body = fields.map { "\($0.key)=\(HTML.percentEncode($0.value))" }.joined(separator: "&")
            return try fixture.client.send(
                "POST", path,
                headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"],
                body: Array(body.utf8))
        }
    }

    static func csrfToken(in html: String) -> String? {
        guard let range = html.range(of: "name=\"csrf\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    static func cookie(_ response: LoopbackClient.Response) -> String? {
        response.headers["set-cookie"]?.split(separator: ";").first.map(String.init)
    }

    static func signIn(_ fixture: ReportFixture, token: String? = nil) throws -> Browser {
        let (session, csrf) = try signIn(fixture.client, token: token ?? fixture.access.adminToken)
        return Browser(fixture: fixture, cookie: session, csrf: csrf)
    }

    /// Signs in through the form with `token`; returns the session cookie (`fp_session=…`) and
    /// the CSRF token of the overview page.
    static func signIn(_ client: LoopbackClient, token: String) throws -> (cookie: String, csrf: String) {
        let form = try client.send("GET", "/signin")
        #expect(form.status == 200)
        let signInCookie = try #require(cookie(form))
        let csrf = try #require(csrfToken(in: form.text))
        let body = "token=\(token)&csrf=\(csrf)"
        let answer = try client.send(
            "POST", "/signin",
            headers: ["Cookie": signInCookie, "Content-Type": "application/x-www-form-urlencoded"],
            body: Array(body.utf8))
        #expect(answer.status == 303)
        #expect(answer.headers["location"] == "/")
        let session = try #require(cookie(answer))
        #expect(answer.headers["set-cookie"]?.contains("HttpOnly") == true)
        #expect(answer.headers["set-cookie"]?.contains("SameSite=Strict") == true)
        let overview = try client.send("GET", "/", headers: ["Cookie": session])
        return (session, try #require(csrfToken(in: overview.text)))
    }

    @Test func everyPageShowsTheKnownNumbers() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let browser = try Self.signIn(fixture)
        let range = ReportFixture.range
        let expectations: [(String, [String])] = [
            ("/?\(range)", ["Overview", "<svg", "Page views", ">5<", "Visitors (UV)"]),
            ("/pages?\(range)", ["Home", "17.5 s", "Most common paths"]),
            ("/pages?\(range)&from_page=Home", ["After Home (3 visits)", "(session ended)"]),
            ("/events?\(range)", ["$item_exposure", "$element_click"]),
            ("/elements?\(range)", ["#buy:#UIButton#Detail", "Buy", "Define an event"]),
            ("/elements?\(range)&grouping=similar", ["#buy:#UIButton#Detail"]),
            ("/items?\(range)", ["sku-1", "50.0%"]),
            ("/funnels?\(range)&step1=page:Home&step2=page:Detail", ["People per step", "100.0%"]),
            ("/funnels", ["Give at least two steps"]),
            ("/retention?\(range)&days=2", ["2026-11-01", "Day 2"]),
            ("/live", ["/assets/live.js", "id=\"live\""]),
            (
                "/definitions?path=%23buy%3A%23UIButton%23Detail&name=Buy",
                ["Save definition", "#buy:#UIButton#Detail"]
            ),
            ("/config", ["Publish as a new version", "Name a page"]),
        ]
        for (path, texts) in expectations {
            let response = try browser.get(path)
            #expect(response.status == 200, "\(path): \(response.status)")
            #expect(response.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(response.headers["content-security-policy"]?.contains("script-src 'self'") == true)
            for text in texts {
                #expect(
                    response.text.contains(HTML.escape(text)) || response.text.contains(text),
                    "\(path) lacks \(text)")
            }
        }
        let live = try browser.get("/live.json")
        #expect(try JSONParser().parse(live.body)["events"]?.arrayValue?.count == 10)
        #expect(try browser.get("/assets/live.js").status == 200)
        #expect(try browser.get("/assets/dashboard.css").status == 200)
        #expect(try browser.get("/no-such-page").status == 404)
        let badRange = try browser.get("/?from=2026-12-01&to=2026-11-01")
        #expect(badRange.status == 400)
        #expect(badRange.text.contains("from: must not be after to"))
    }

    /// The attributes of every `<name …>` element in `html`, in order.
    static func elements(_ name: String, in html: String) throws -> [[String: String]] {
        let attribute = try Regex(#"([a-z][a-z-]*)="([^"]*)""#)
        return html.components(separatedBy: "<\(name) ").dropFirst().map { tail in
            let head = String(tail.prefix { $0 != ">" })
            var attributes: [String: String] = [:]
            for match in head.matches(of: attribute) {
                if let key = match.output[1].substring, let value = match.output[2].substring {
                    attributes[String(key)] = String(value)
                }
            }
            return attributes
        }
    }

    /// The figure of the chart called `title` on `page`.
    static func chart(_ title: String, on page: String) throws -> String {
        let start = try #require(page.range(of: "<figure><figcaption>\(title) "))
        let end = try #require(page.range(of: "</figure>", range: start.upperBound..<page.endIndex))
        return String(page[start.lowerBound..<end.upperBound])
    }

    /// Without a `from`, the overview's range starts at the first day with data within the
    /// default 30 days, and spans at least a week; with a `from`, or without data in the 30
    /// days, it is the one given or the default. The filter form and the chart show that range.
    @Test(arguments: [
        ("2026-11-20T12:00:00.000Z", "", "2026-11-01", 20, 5),  // data 19 and 18 days back
        ("2026-11-03T12:00:00.000Z", "", "2026-10-28", 7, 5),  // two days of data: a week
        ("2026-12-15T12:00:00.000Z", "", "2026-11-16", 30, 0),  // no data in the 30 days
        ("2026-11-20T12:00:00.000Z", "?from=2026-10-25", "2026-10-25", 27, 5),  // as given
    ])
    func theOverviewsDefaultRangeFitsTheData(
        now: String, query: String, from: String, days: Int, pageViews: Int
    ) throws {
        let fixture = try ReportFixture(now: try #require(Timestamp(iso8601: now)))
        defer { fixture.shutDown() }
        let browser = try Self.signIn(fixture)
        let page = try browser.get("/\(query)")
        #expect(page.status == 200)
        let fields = try Self.elements("input", in: page.text)
        #expect(fields.first { $0["name"] == "from" }?["value"] == from, "\(now) \(query)")
        #expect(fields.first { $0["name"] == "to" }?["value"] == String(now.prefix(10)))
        let lines = try Self.elements("polyline", in: try Self.chart("Per day", on: page.text))
        #expect(lines.count == 3)
        for line in lines {
            #expect(line["points"]?.split(separator: " ").count == days, "\(now) \(query)")
        }
        #expect(try Self.chart("Per day", on: page.text).contains(">\(from)</text>"), "the first day's label")
        #expect(
            page.text.contains("<div class=\"value\">\(pageViews)</div><div class=\"label\">Page views</div>")
        )
    }

    /// Visitors and Daily active have the same values on every day of the data set, so their
    /// lines lie on each other: each line has its own dash pattern and point shape, drawn the
    /// same way beside its name in the legend.
    @Test func linesWithEqualValuesStayDistinguishable() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let browser = try Self.signIn(fixture)
        let chart = try Self.chart("Per day", on: try browser.get("/?\(ReportFixture.range)").text)
        let lines = try Self.elements("polyline", in: chart)
        #expect(lines.map { $0["class"] } == ["line s1", "line s2", "line s3"])
        #expect(
            lines[1]["points"] != nil && lines[1]["points"] == lines[2]["points"], "Visitors = Daily active")
        #expect(Set(lines.map { $0["stroke-dasharray"] ?? "solid" }).count == 3, "\(lines)")
        let shapes = try ["circle", "rect", "polygon"].map { shape in
            Set(try Self.elements(shape, in: chart).compactMap { $0["class"] })
        }
        #expect(shapes == [["dot s1"], ["dot s2"], ["dot s3"]])
        for (index, name) in ["Page views", "Visitors", "Daily active"].enumerated() {
            let key = try #require(
                chart.components(separatedBy: "<span class=\"key s\(index + 1)\">").dropFirst().first,
                "no legend key for \(name)")
            let entry = key.components(separatedBy: "</span>")[0]
            #expect(entry.hasSuffix("</svg>\(name)"), "\(entry)")
            let sample = try Self.elements("line", in: entry).first
            #expect(sample?["class"] == "line s\(index + 1)")
            #expect(sample?["stroke-dasharray"] == lines[index]["stroke-dasharray"])
            #expect(entry.contains("<\(["circle", "rect", "polygon"][index]) class=\"dot s\(index + 1)\""))
        }
    }

    @Test func withoutASessionPagesRedirectToSignInAndFormsAreRefused() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        for path in ["/", "/pages", "/config", "/definitions"] {
            let response = try fixture.client.send("GET", path)
            #expect(response.status == 303)
            #expect(response.headers["location"] == "/signin")
        }
        #expect(try fixture.client.send("GET", "/live.json").status == 401)
        let forged = try fixture.client.send(
            "POST", "/config/publish", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Array("document=%7B%7D&csrf=x".utf8))
        #expect(forged.status == 403)
        let stolenCookie = try fixture.client.send("GET", "/", headers: ["Cookie": "fp_session=made-up"])
        #expect(stolenCookie.status == 303)
    }

    @Test func signInRefusesAWrongTokenAWriteKeyAndAMissingFormToken() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        for token in ["wrong", fixture.fixture.writeKey, fixture.access.readToken] {
            let form = try fixture.client.send("GET", "/signin")
            let body = "token=\(token)&csrf=\(Self.csrfToken(in: form.text) ?? "")"
            let answer = try fixture.client.send(
                "POST", "/signin",
                headers: [
                    "Cookie": Self.cookie(form) ?? "", "Content-Type": "application/x-www-form-urlencoded",
                ],
                body: Array(body.utf8))
            #expect(answer.status == 401)
            #expect(answer.headers["set-cookie"]?.hasPrefix("fp_session") != true)
        }
        let noCookie = try fixture.client.send(
            "POST", "/signin", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Array("token=\(fixture.access.adminToken)&csrf=abc".utf8))
        #expect(noCookie.status == 403, "a sign-in form from another site has no matching cookie")
    }

    @Test func formsWithoutTheSessionsCSRFTokenAreRefused() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let browser = try Self.signIn(fixture)
        let fields = ["id": "buy", "name": "Buy", "path1": "#buy:#UIButton#Detail", "match1": "exact"]
        #expect(try browser.post("/definitions", fields, csrf: "forged").status == 403)
        #expect(try browser.post("/definitions", fields, csrf: "").status == 403)
        #expect(
            try fixture.fixture.server.stores.metadata.eventDefinitions(projectId: fixture.fixture.projectId)
                .isEmpty)
        let other = try Self.signIn(fixture)
        #expect(
            try browser.post("/definitions", fields, csrf: other.csrf).status == 403,
            "another session's token")
    }

    /// A definition with attribute conditions over a range with more events than a report may
    /// read: the API refuses, the dashboard shows why and every other definition's figures.
    @Test func definitionPagesStayUsableWhenAttributeConditionsCannotBeMatched() throws {
        let fixture = try ReportFixture(maximumReportEvents: 5)
        defer { fixture.shutDown() }
        let browser = try Self.signIn(fixture)
        for fields in [
            ["id": "buy", "name": "Buy", "path1": "#buy:#UIButton#Detail", "match1": "exact"],
            [
                "id": "typed", "name": "Typed buy", "path1": "#buy:#**", "match1": "pattern",
                "attributes1": "$element_text=Buy",
            ],
        ] {
            #expect(try browser.post("/definitions", fields).status == 303)
        }
        let api = try fixture.get(
            "/v1/reports/events?\(ReportFixture.range)", token: fixture.access.readToken)
        #expect(api.status == 400 && api.text.contains("invalid_query"), "\(api.text)")
        for path in ["/events", "/definitions"] {
            let page = try browser.get("\(path)?\(ReportFixture.range)")
            #expect(page.status == 200)
            #expect(
                page.text.contains("Definitions with attribute conditions have no figures here"), "\(path)")
            #expect(page.text.contains("more than 5 events"), "\(path)")
        }
        let events = try browser.get("/events?\(ReportFixture.range)").text
        #expect(events.contains("<td>Buy</td><td class=\"num\">1</td>"), "\(events)")
        #expect(!events.contains("Typed buy"))
        let definitions = try browser.get("/definitions?\(ReportFixture.range)").text
        #expect(definitions.contains("<code>typed</code>") && definitions.contains("–"))
    }

    @Test func definitionsAndConfigAreManagedFromTheDashboard() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let browser = try Self.signIn(fixture)
        let saved = try browser.post(
            "/definitions", ["id": "buy", "name": "Buy", "path1": "#buy:#UIButton#Detail", "match1": "exact"])
        #expect(saved.status == 303)
        let list = try browser.get("/definitions?\(ReportFixture.range)")
        #expect(list.text.contains("<code>buy</code>"))
        let refused = try browser.post("/definitions", ["id": "bad id", "name": "x", "event1": "a"])
        #expect(refused.status == 400)
        #expect(refused.text.contains("id: 1 to 64"))

        let invalid = try browser.post(
            "/config/publish", ["document": #"{"version": 7}"#, "action": "publish"])
        #expect(invalid.status == 400)
        #expect(invalid.text.contains("not a valid tracking plan"))
        let validated = try browser.post(
            "/config/publish", ["document": #"{"version": 1}"#, "action": "validate"])
        #expect(validated.text.contains("valid tracking plan"))
        #expect(
            try fixture.fixture.server.stores.metadata.latestConfig(projectId: fixture.fixture.projectId)
                == nil)
        #expect(
            try browser.post("/config/publish", ["document": #"{"version": 1}"#, "action": "publish"]).status
                == 303)
        #expect(try browser.post("/definitions/publish", [:]).status == 303)
        #expect(
            try browser.post("/config/page-name", ["controller": "DetailViewController", "name": "Detail"])
                .status == 303)
        let latest = try #require(
            try fixture.fixture.server.stores.metadata.latestConfig(projectId: fixture.fixture.projectId))
        #expect(latest.version == 3)
        let plan = try RemoteConfigValidator.validate(Array(latest.document.utf8)).plan
        #expect(plan.events.map(\.id) == ["buy"])
        #expect(plan.pages["DetailViewController"]?.name == "Detail")
        #expect(try browser.post("/config/rollback", ["version": "1"]).status == 303)
        let rolledBack = try #require(
            try fixture.fixture.server.stores.metadata.latestConfig(projectId: fixture.fixture.projectId))
        #expect(rolledBack.version == 4)
        #expect(try RemoteConfigValidator.validate(Array(rolledBack.document.utf8)).plan.events.isEmpty)
        #expect(try browser.post("/definitions/delete", ["id": "buy"]).status == 303)
        #expect(try browser.post("/definitions/delete", ["id": "buy"]).status == 404)
        let signedOut = try browser.post("/signout", [:])
        #expect(signedOut.status == 303)
        #expect(try browser.get("/").status == 303, "the session ended")
    }

    @Test func htmlEscapesCapturedText() throws {
        #expect(
            HTML.escape(#"<script>alert("x")</script>&'"#)
                == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;")
        #expect(HTML.number(1_234_567) == "1,234,567")
        #expect(HTML.number(-1000) == "-1,000")
        #expect(HTML.percent(0.1234) == "12.3%")
        #expect(HTML.duration(milliseconds: 185_000) == "3 min 05 s")
        #expect(HTML.duration(milliseconds: 17_500) == "17.5 s")
        #expect(SVGChart.niceCeiling(5) == 8)
        #expect(SVGChart.niceCeiling(21) == 40)
        #expect(SVGChart.niceCeiling(1) == 4)
    }
}
