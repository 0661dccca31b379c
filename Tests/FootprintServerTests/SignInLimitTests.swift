import Footprint
import FootprintSimulation
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// Wrong admin and read tokens over real HTTP: per client address (the tests connect from
/// several loopback addresses) and overall, on the dashboard's sign-in and the report API.
@Suite(.serialized) struct SignInLimitTests {
    let fixture: TestServer
    let clock = SimulatedClock(start: Timestamp(iso8601: "2026-11-29T08:00:00.000Z")!)

    /// 3 wrong tokens per address at once, then one a minute; 5 overall, then one every 10 s.
    init() throws {
        let clock = self.clock
        fixture = try TestServer { configuration in
            configuration.http.clock = clock
            configuration.access.failedSignInsPerAddress = RateLimiter.Rate(
                requestsPerSecond: 1.0 / 60, burst: 3)
            configuration.access.failedSignInsOverall = RateLimiter.Rate(requestsPerSecond: 0.1, burst: 5)
        }
    }

    var access: AccessConfiguration { fixture.server.access }

    /// Opens the sign-in form from `address` and posts `token` with it.
    func signIn(from address: String, token: String) throws -> LoopbackClient.Response {
        let client = fixture.client.from(address)
        let form = try client.send("GET", "/signin")
        #expect(form.status == 200)
        let cookie = form.headers["set-cookie"]?.split(separator: ";").first.map(String.init) ?? ""
        let csrf = DashboardTests.csrfToken(in: form.text) ?? ""
        return try client.send(
            "POST", "/signin",
            headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"],
            body: Array("token=\(HTML.percentEncode(token))&csrf=\(csrf)".utf8))
    }

    /// GETs the traffic report from `address` with `token` as the bearer token.
    func report(from address: String, token: String?) throws -> LoopbackClient.Response {
        try fixture.client.from(address).send(
            "GET", "/v1/reports/traffic", headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
    }

    @Test func theHandlerSeesTheClientAddress() throws {
        let server = try HTTPServer(configuration: HTTPServer.Configuration()) { request in
            ServerResponse(status: 200, body: Array((request.clientAddress ?? "unknown").utf8))
        }
        defer {
            server.stop()
            fixture.shutDown()
        }
        let client = LoopbackClient(port: server.port)
        #expect(try client.send("GET", "/").text == "127.0.0.1")
        #expect(try client.from("127.0.0.5").send("GET", "/").text == "127.0.0.5")
    }

    @Test func addressesAreNumericAndIPv4MappedOnesReadAsIPv4() throws {
        defer { fixture.shutDown() }
        func text(ipv6 bytes: [UInt8]) -> String? {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: bytes) }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { HTTPServer.numericHost($0) }
            }
        }
        #expect(text(ipv6: Array(repeating: 0, count: 15) + [1]) == "::1")
        #expect(text(ipv6: Array(repeating: 0, count: 10) + [0xff, 0xff, 192, 0, 2, 7]) == "192.0.2.7")
        #expect(text(ipv6: [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [9]) == "2001:db8::9")
        var ipv4 = sockaddr_in()
        ipv4.sin_family = sa_family_t(AF_INET)
        ipv4.sin_addr.s_addr = inet_addr("10.1.2.3")
        let text4 = withUnsafePointer(to: &ipv4) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { HTTPServer.numericHost($0) }
        }
        #expect(text4 == "10.1.2.3")
        #expect(HTTPServer.numericHost(nil) == nil)
    }

    @Test func anAddressPastItsFailuresWaitsWhileOthersSignIn() throws {
        defer { fixture.shutDown() }
        for _ in 0..<3 {
            #expect(try signIn(from: "127.0.0.2", token: "wrong").status == 401)
        }
        let refused = try signIn(from: "127.0.0.2", token: "wrong")
        #expect(refused.status == 429)
        #expect(refused.headers["retry-after"] == "60")
        #expect(refused.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(refused.text.contains("Too many wrong tokens from your address. Try again in 60 seconds."))
        #expect(refused.text.contains("<form class=\"signin\""))
        let rightButRefused = try signIn(from: "127.0.0.2", token: access.adminToken)
        #expect(rightButRefused.status == 429, "while refused, no token is compared")
        #expect(rightButRefused.headers["set-cookie"]?.hasPrefix("fp_session") != true)

        let elsewhere = try signIn(from: "127.0.0.3", token: access.adminToken)
        #expect(elsewhere.status == 303, "another address's failures do not block this one")
        #expect(elsewhere.headers["set-cookie"]?.hasPrefix("fp_session") == true)

        clock.advance(milliseconds: 60_000)
        #expect(try signIn(from: "127.0.0.2", token: access.adminToken).status == 303)
    }

    @Test func theOverallCapPausesEverySignIn() throws {
        defer { fixture.shutDown() }
        for _ in 0..<3 { #expect(try signIn(from: "127.0.0.2", token: "wrong").status == 401) }
        for _ in 0..<2 { #expect(try signIn(from: "127.0.0.3", token: "wrong").status == 401) }
        let paused = try signIn(from: "127.0.0.4", token: access.adminToken)
        #expect(paused.status == 429)
        #expect(paused.headers["retry-after"] == "10")
        #expect(paused.text.contains("Sign-in is paused for everyone; try again in 10 seconds."))
        clock.advance(milliseconds: 10_000)
        #expect(try signIn(from: "127.0.0.4", token: access.adminToken).status == 303)
    }

    @Test func wrongBearerTokensShareTheSameAllowance() throws {
        defer { fixture.shutDown() }
        #expect(try report(from: "127.0.0.2", token: access.readToken).status == 200)
        #expect(try report(from: "127.0.0.2", token: nil).status == 401, "no token: not a guess")
        #expect(try report(from: "127.0.0.2", token: fixture.writeKey).status == 401)
        #expect(try report(from: "127.0.0.2", token: "fpr_wrong").status == 401)
        #expect(try signIn(from: "127.0.0.2", token: "wrong").status == 401)

        let refused = try report(from: "127.0.0.2", token: "fpr_wrong")
        #expect(refused.status == 429)
        #expect(refused.headers["retry-after"] == "60")
        #expect(try JSONParser().parse(refused.body)["error"] == "too_many_failures")
        #expect(try report(from: "127.0.0.2", token: access.readToken).status == 429)
        #expect(try signIn(from: "127.0.0.2", token: access.adminToken).status == 429)
        #expect(try report(from: "127.0.0.3", token: access.readToken).status == 200)

        clock.advance(milliseconds: 60_000)
        #expect(try report(from: "127.0.0.2", token: access.readToken).status == 200)
    }
}
