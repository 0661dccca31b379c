import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The report API over HTTP on a hand-made data set with known answers.
@Suite(.serialized) struct ReportAPITests {
    @Test func trafficCountsViewsAndPeopleAcrossTheIdentifyMerge() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let traffic = try fixture.json("/v1/reports/traffic?\(ReportFixture.range)")
        #expect(traffic["pageViews"] == 5)
        #expect(traffic["people"] == 2, "a1 and a2 are both u1")
        let pages = try #require(traffic["pages"]?.arrayValue)
        let home = try #require(pages.first { $0["page"] == "Home" })
        #expect(home["pageViews"] == 3)
        #expect(home["visitors"] == 2)
        #expect(home["averageDwellMilliseconds"] == 17500, "a1's leave (5 s) and a3's gap to Detail (30 s)")
        #expect(home["dwellSamples"] == 2)
        let detail = try #require(pages.first { $0["page"] == "Detail" })
        #expect(
            detail["averageDwellMilliseconds"] == nil, "the last screens have no leave and no next screen")
        let days = try #require(traffic["days"]?.arrayValue)
        #expect(days.map { $0["day"]?.stringValue } == ["2026-11-01", "2026-11-02", "2026-11-03"])
        #expect(days.map { $0["dailyActive"]?.int64Value } == [1, 2, 0])
        #expect(days[1]["weeklyActive"] == 2)
    }

    @Test func filtersNarrowEveryReport() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let secondDay = try fixture.json("/v1/reports/traffic?from=2026-11-02&to=2026-11-02")
        #expect(secondDay["pageViews"] == 3)
        let otherVersion = try fixture.json("/v1/reports/traffic?\(ReportFixture.range)&app_version=1.0")
        #expect(otherVersion["pageViews"] == 0)
        let ios = try fixture.json("/v1/reports/traffic?\(ReportFixture.range)&os=iOS%2017.2&page=Detail")
        #expect(ios["pageViews"] == 2)
    }

    /// With a page filter, sessions and paths count each session's events on that page: on
    /// Detail, s1 has its view, two exposures and the click (3 s, one screen), s3 its view.
    @Test func aPageFilterNarrowsSessionsPathsAndFunnels() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let onDetail = "\(ReportFixture.range)&page=Detail"
        let sessions = try fixture.json("/v1/reports/sessions?\(onDetail)")
        #expect(sessions["sessions"] == 2)
        #expect(sessions["averageLengthMilliseconds"] == 1500)
        #expect(sessions["screensPerSession"]?.doubleValue == 1)
        #expect(sessions["bounces"] == 2)
        let paths = try fixture.json("/v1/reports/paths?\(onDetail)&from_page=Detail")
        #expect(paths["visits"] == 2)
        let next = try #require(paths["next"]?.arrayValue)
        #expect(
            next.count == 1 && next[0]["next"] == nil && next[0]["count"] == 2, "each session ended there")
        let fromHome = try fixture.json("/v1/reports/paths?\(onDetail)&from_page=Home")
        #expect(fromHome["visits"] == 0, "Home's views are not on Detail")
        let funnel = try fixture.json(
            "/v1/reports/funnel?\(onDetail)&step1=page:Detail&step2=event:$element_click")
        #expect(funnel["steps"]?.arrayValue?.map { $0["people"]?.int64Value } == [2, 1])
        let elsewhere = try fixture.json(
            "/v1/reports/funnel?\(ReportFixture.range)&page=Home&step1=page:Home&step2=event:$element_click")
        #expect(elsewhere["steps"]?.arrayValue?.map { $0["people"]?.int64Value } == [2, 0])
    }

    @Test func elementsItemsFunnelAndRetention() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let elements = try #require(fixture.json("/v1/reports/elements?\(ReportFixture.range)").arrayValue)
        #expect(elements.first?["path"] == "#buy:#UIButton#Detail")
        #expect(elements.first?["text"] == "Buy")
        #expect(elements.first?["clicks"] == 1)
        let items = try #require(fixture.json("/v1/reports/items?\(ReportFixture.range)").arrayValue)
        #expect(items.first?["itemId"] == "sku-1")
        #expect(items.first?["clickThroughRate"] == .double(0.5))
        let funnel = try fixture.json(
            "/v1/reports/funnel?\(ReportFixture.range)&step1=page:Home&step2=page:Detail&step3=event:$element_click"
        )
        #expect(funnel["steps"]?.arrayValue?.map { $0["people"]?.int64Value } == [2, 2, 1])
        let retention = try fixture.json("/v1/reports/retention?\(ReportFixture.range)&days=2")
        let cohorts = try #require(retention["cohorts"]?.arrayValue)
        #expect(cohorts.map { $0["people"]?.int64Value } == [1, 1])
        #expect(cohorts[0]["returned"] == [1, 1, 0])
        let sessions = try fixture.json("/v1/reports/sessions?\(ReportFixture.range)")
        #expect(sessions["sessions"] == 3)
        let paths = try fixture.json("/v1/reports/paths?\(ReportFixture.range)&from_page=Home")
        #expect(paths["visits"] == 3)
    }

    @Test func writeKeysAndUnknownTokensReadNothing() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        #expect(try fixture.get("/v1/reports/traffic", token: nil).status == 401)
        #expect(try fixture.get("/v1/reports/traffic", token: fixture.fixture.writeKey).status == 401)
        let basic = try fixture.client.send(
            "GET", "/v1/reports/traffic",
            headers: ["Authorization": LoopbackClient.basic(fixture.fixture.writeKey)])
        #expect(basic.status == 401)
        #expect(try fixture.get("/v1/reports/traffic", token: "fpr_wrong").status == 401)
        #expect(try fixture.get("/v1/reports/traffic", token: fixture.access.adminToken).status == 200)
    }

    @Test func readTokenCannotChangeAnything() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let response = try fixture.client.send(
            "POST", "/v1/definitions", headers: ["Authorization": "Bearer \(fixture.access.readToken)"],
            body: Array(#"{"id":"buy","name":"Buy","matchers":[{"event":"$element_click"}]}"#.utf8))
        #expect(response.status == 403)
    }

    @Test(arguments: [
        "/v1/reports/traffic?from=yesterday", "/v1/reports/traffic?from=2026-11-05&to=2026-11-01",
        "/v1/reports/elements?grouping=fuzzy", "/v1/reports/funnel?step1=page:Home",
        "/v1/reports/funnel?step1=click:x&step2=page:Home",
        "/v1/reports/funnel?step1=page:A&step2=defined:none",
        "/v1/reports/retention?days=0", "/v1/reports/items?limit=-1",
    ])
    func badParametersGet400WithTheParameterNamed(_ path: String) throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let response = try fixture.get(path, token: fixture.access.readToken)
        #expect(response.status == 400, "\(path): \(response.text)")
        #expect(try JSONParser().parse(response.body)["error"] == "invalid_query")
    }

    @Test func unknownReportsAndProjectsGet404() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        #expect(try fixture.get("/v1/reports/nothing", token: fixture.access.readToken).status == 404)
        #expect(
            try fixture.get("/v1/reports/traffic?project=other", token: fixture.access.readToken).status
                == 404)
    }

    @Test func definitionsArePublishedIntoThePlanAndConfigRollsBack() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let admin = ["Authorization": "Bearer \(fixture.access.adminToken)"]
        let definition = ##"{"id":"buy","name":"Buy","matchers":[{"path":"#buy:#UIButton#Detail"}]}"##
        #expect(
            try fixture.client.send("POST", "/v1/definitions", headers: admin, body: Array(definition.utf8))
                .status == 200)
        let bad = try fixture.client.send(
            "POST", "/v1/definitions", headers: admin, body: Array(#"{"id":"x"}"#.utf8))
        #expect(bad.status == 400)
        let events = try fixture.json("/v1/reports/events?\(ReportFixture.range)")
        #expect(events["defined"]?[0]?["count"] == 1, "the stored click matches retroactively")
        let funnel = try fixture.json(
            "/v1/reports/funnel?\(ReportFixture.range)&step1=page:Home&step2=defined:buy")
        #expect(funnel["steps"]?[1]?["people"] == 1)

        let first = try fixture.client.send(
            "POST", "/v1/configs", headers: admin, body: Array(#"{"version":1}"#.utf8))
        #expect(first.status == 200)
        let published = try fixture.client.send("POST", "/v1/definitions/publish", headers: admin)
        #expect(published.status == 200, "\(published.text)")
        let plan = try JSONParser().parse(published.body)
        #expect(plan["version"] == 2)
        #expect(plan["document"]?["events"]?[0]?["id"] == "buy")
        let sdkConfig = try fixture.client.send(
            "GET", "/v1/config", headers: ["Authorization": LoopbackClient.basic(fixture.fixture.writeKey)])
        #expect(try JSONParser().parse(sdkConfig.body)["events"]?[0]?["name"] == "Buy")

        let invalid = try fixture.client.send(
            "POST", "/v1/configs", headers: admin, body: Array(#"{"version":99}"#.utf8))
        #expect(invalid.status == 400)
        let rolledBack = try fixture.client.send("POST", "/v1/configs/1/rollback", headers: admin)
        #expect(try JSONParser().parse(rolledBack.body)["version"] == 3)
        let versions = try fixture.json("/v1/configs")
        #expect(versions["versions"]?.arrayValue?.count == 3)
        #expect(versions["versions"]?[0]?["document"] == ["version": 1])
        #expect(try fixture.client.send("DELETE", "/v1/definitions/buy", headers: admin).status == 200)
        #expect(try fixture.client.send("DELETE", "/v1/definitions/buy", headers: admin).status == 404)
    }

    @Test func recentEventsAreNewestFirstAndPollable() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let recent = try #require(fixture.json("/v1/events/recent?limit=3")["events"]?.arrayValue)
        #expect(recent.count == 3)
        let newest = try #require(recent.first?["sequence"]?.int64Value)
        #expect(recent.first?["name"] == "Detail")
        let none = try fixture.json("/v1/events/recent?after=\(newest)")
        #expect(none["events"]?.arrayValue?.isEmpty == true)
    }
}

extension ReportAPITests {
    @Test func definitionAttributeConditionsReadTheStoredProperties() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let admin = ["Authorization": "Bearer \(fixture.access.adminToken)"]
        let matching =
            ##"{"id":"buy","name":"Buy","matchers":[{"path":"#buy:#UIButton#**","match":"pattern","attributes":{"$element_text":"Buy"}}]}"##
        let other =
            ##"{"id":"buy2","name":"Buy later","matchers":[{"path":"#buy:#UIButton#**","match":"pattern","attributes":{"element_text":"Later"}}]}"##
        for body in [matching, other] {
            #expect(
                try fixture.client.send("POST", "/v1/definitions", headers: admin, body: Array(body.utf8))
                    .status == 200)
        }
        let defined = try #require(
            fixture.json("/v1/reports/events?\(ReportFixture.range)")["defined"]?.arrayValue)
        let counts = Dictionary(
            uniqueKeysWithValues: defined.map {
                ($0["event"]?.stringValue ?? "", $0["count"]?.int64Value ?? -1)
            })
        #expect(counts == ["Buy": 1, "Buy later": 0])
    }
}
