import FootprintServer
import FootprintWire
import Foundation
import Testing

/// Every route that takes a path or query parameter, over real HTTP on loopback: a `%00`, an
/// overlong UTF-8 form, a `%` at the end and a repeated parameter are read exactly or refused
/// with 400 naming the part, never cut short; `+` and `%20` are both a space in a query.
struct ExactURLTests {
    /// `DELETE /v1/people/a1%00x` deleted every event of `a1`'s person: a NUL ended the id.
    @Test func aPersonIdWithANULIsRefusedAndNobodyIsDeleted() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let admin = ["Authorization": "Bearer \(fixture.access.adminToken)"]
        let before = try fixture.client.send("GET", "/v1/people/a1/export", headers: admin)
        try #require(before.status == 200)
        for path in ["/v1/people/a1%00x", "/v1/people/u1%00", "/v1/people/%00u1"] {
            let deleted = try fixture.client.send("DELETE", path, headers: admin)
            #expect(deleted.status == 400, "\(path): \(deleted.text)")
            #expect(try JSONParser().parse(deleted.body)["error"] == "invalid_path")
            #expect(deleted.text.contains("person id"), "the refusal names the parameter")
        }
        let exported = try fixture.client.send("GET", "/v1/people/a1%00x/export", headers: admin)
        #expect(exported.status == 400)
        let after = try fixture.client.send("GET", "/v1/people/a1/export", headers: admin)
        #expect(after.body == before.body, "nothing of a1's person was deleted")
        #expect(try JSONParser().parse(after.body)["events"]?.arrayValue?.count == 8)
    }

    @Test(arguments: [
        ("DELETE", "/v1/people/a1%"), ("DELETE", "/v1/people/%C0%80"), ("GET", "/v1/people/%E0%80%80/export"),
        ("DELETE", "/v1/definitions/d%00x"), ("DELETE", "/v1/definitions/%"),
        ("GET", "/v1/reports/traffic?from=2026-11-01&from=2026-11-02"), ("GET", "/v1/reports/traffic?page=%"),
        ("GET", "/v1/reports/traffic?page=%C0%AF"),
        ("GET", "/v1/screens/snapshots?page=A&page=B&app_version=1"),
        ("GET", "/v1/screens/snapshots?page=A%&app_version=1"), ("GET", "/v1/events/recent?limit=5&limit=6"),
        ("GET", "/v1/configs?project=default&project=default"),
        ("GET", "/v1/reports/traffic?project=default%"),
    ])
    func whatCannotBeReadExactlyIsAnsweredWith400(_ method: String, _ path: String) throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let admin = ["Authorization": "Bearer \(fixture.access.adminToken)"]
        let response = try fixture.client.send(method, path, headers: admin)
        #expect(response.status == 400, "\(method) \(path): \(response.text)")
        let code = try JSONParser().parse(response.body)["error"]?.stringValue
        #expect(code == "invalid_path" || code == "invalid_query", "\(response.text)")
        let traffic = try fixture.json("/v1/reports/traffic?\(ReportFixture.range)")
        #expect(traffic["pageViews"] == 5, "nothing was deleted")
    }

    /// `GET /v1/reports/events?page=A%00B` answered page `A`'s counts; a page name may hold a
    /// NUL (HTTP-API.md), so the filter matches it exactly.
    @Test func aPageFilterWithANULMatchesThatPageExactly() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        func buy(_ id: String, page: String) -> String {
            ReportFixture.message(
                "track", id, anon: "n1", session: "n", at: "2026-11-02T12:00:00.000Z",
                extra: #""event":"Buy","properties":{"$page_name":"\#(page)"}"#)
        }
        let sent = try fixture.client.post(
            "/v1/batch",
            json: Payloads.batch(
                [buy("n1", page: "A"), buy("n2", page: #"A\u0000B"#), buy("n3", page: #"A\u0000B"#)],
                sentAt: "2026-11-03T12:00:00.000Z"),
            writeKey: fixture.fixture.writeKey)
        #expect(sent.status == 200, "\(sent.text)")
        func buys(_ page: String) throws -> JSONValue? {
            let events = try fixture.json("/v1/reports/events?\(ReportFixture.range)&page=\(page)")["events"]
            return events?.arrayValue?.first { $0["event"] == "Buy" }?["count"]
        }
        #expect(try buys("A%00B") == 2)
        #expect(try buys("A") == 1)
        #expect(try buys("A%00") == nil)
    }

    /// A snapshot whose page holds a NUL was stored (201) but `?page=Cart%00Promo` listed page
    /// `Cart`'s: now each page lists its own.
    @Test func aSnapshotOfAPageWithANULIsListedByItsExactName() throws {
        let fixture = try SnapshotUploadTests.Fixture()
        defer { fixture.server.shutDown() }
        let session = try fixture.startSession()
        for page in ["Cart", "Cart\u{0}Promo", "Cart Promo", "Cart+Promo"] {
            let stored = try fixture.upload(
                SnapshotSamples.snapshot(token: session.token, page: page, appVersion: "2.4.1"))
            #expect(stored.status == 201, "\(stored.text)")
        }
        func listed(_ query: String) throws -> [String] {
            let json = try fixture.json("/v1/screens/snapshots?\(query)&app_version=2.4.1")
            return json["snapshots"]?.arrayValue?.compactMap { $0["page"]?.stringValue } ?? []
        }
        #expect(try listed("page=Cart%00Promo") == ["Cart\u{0}Promo"])
        #expect(try listed("page=Cart") == ["Cart"])
        #expect(try listed("page=Cart+Promo") == ["Cart Promo"], "+ is a space in a query")
        #expect(try listed("page=Cart%20Promo") == ["Cart Promo"])
        #expect(try listed("page=Cart%2BPromo") == ["Cart+Promo"])
    }

    /// A raw NUL byte in the request line (only `%00` is legal) is refused rather than read up
    /// to the NUL; so is a target with a malformed escape, before any route sees it.
    @Test func aRawNULByteInTheRequestLineIsRefused() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let admin = "Authorization: Bearer \(fixture.access.adminToken)\r\n"
        for line in [
            Array("DELETE /v1/people/a1".utf8) + [0] + Array("x HTTP/1.1".utf8),
            Array("GET /v1/reports/events?page=A".utf8) + [0] + Array("B HTTP/1.1".utf8),
            Array("GET /health".utf8) + [0] + Array(" HTTP/1.1".utf8),
        ] {
            let connection = try fixture.client.connect()
            defer { close(connection) }
            try fixture.client.write(
                line + Array("\r\nHost: 127.0.0.1\r\n\(admin)Connection: close\r\n\r\n".utf8), to: connection)
            let response = try fixture.client.readResponse(from: connection)
            #expect(response.status == 400, "\(response.text)")
            #expect(response.text.contains("invalid_path"))
        }
        let admin2 = ["Authorization": "Bearer \(fixture.access.adminToken)"]
        #expect(try fixture.client.send("GET", "/v1/people/a1/export", headers: admin2).status == 200)
    }

    @Test func theDashboardRefusesAQueryItCannotReadExactly() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let response = try fixture.client.send("GET", "/pages?page=%&from=2026-11-01")
        #expect(response.status == 400, "\(response.text)")
    }
}
