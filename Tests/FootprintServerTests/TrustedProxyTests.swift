import Footprint
import FootprintSimulation
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The client address behind proxies: `X-Forwarded-For` is believed only from listed proxies,
/// and then its rightmost address that is not a listed proxy is the client.
struct TrustedProxyTests {
    @Test func addressesAndBlocksAreParsedAndMatched() throws {
        let block = try AddressRange("10.0.0.0/8")
        #expect(block.contains("10.200.3.4"))
        #expect(!block.contains("11.0.0.1"))
        #expect(!block.contains("::1"))
        #expect(block.description == "10.0.0.0/8")
        let single = try AddressRange("192.0.2.7")
        #expect(single.contains("192.0.2.7"))
        #expect(single.contains("::ffff:192.0.2.7"))
        #expect(!single.contains("192.0.2.8"))
        let ipv6 = try AddressRange("2001:db8::/32")
        #expect(ipv6.contains("2001:db8:ffff::1"))
        #expect(!ipv6.contains("2001:db9::1"))
        #expect(try AddressRange("0.0.0.0/0").contains("203.0.113.1"))
        #expect(try AddressRange("10.1.2.3/31").contains("10.1.2.2"))
        #expect(try !AddressRange("10.1.2.3/31").contains("10.1.2.4"))
        for bad in ["", "10.0.0.0/33", "::1/129", "10.0.0.0/-1", "example.com", "10.0.0/8", "1.2.3.4/8/8"] {
            #expect(throws: ServerError.self, "\(bad)") { try AddressRange(bad) }
        }
    }

    @Test(arguments: [
        // peer, header, expected client
        ("127.0.0.2", "203.0.113.9", "203.0.113.9"),
        ("127.0.0.2", "198.51.100.1, 203.0.113.9, 10.0.0.1", "203.0.113.9"),
        ("127.0.0.2", "spoofed, 203.0.113.9", "203.0.113.9"),
        ("127.0.0.2", "10.0.0.5, 10.0.0.1", "10.0.0.5"),
        ("127.0.0.2", "203.0.113.9, not-an-address", "127.0.0.2"),
        ("127.0.0.2", "", "127.0.0.2"),
        ("127.0.0.3", "203.0.113.9", "127.0.0.3"),
    ])
    func theRightmostUntrustedHopIsTheClient(peer: String, header: String, expected: String) throws {
        let trusted = [try AddressRange("127.0.0.2"), try AddressRange("10.0.0.0/8")]
        #expect(AddressRange.clientAddress(peer: peer, forwardedFor: header, trusted: trusted) == expected)
        #expect(AddressRange.clientAddress(peer: peer, forwardedFor: nil, trusted: trusted) == peer)
        #expect(AddressRange.clientAddress(peer: peer, forwardedFor: header, trusted: []) == peer)
    }

    func echoServer(trusting proxies: [String]) throws -> HTTPServer {
        var configuration = HTTPServer.Configuration()
        configuration.trustedProxies = try proxies.map { try AddressRange($0) }
        return try HTTPServer(configuration: configuration) { request in
            ServerResponse(status: 200, body: Array((request.clientAddress ?? "unknown").utf8))
        }
    }

    @Test func aListedProxyForwardsItsClientsAddress() throws {
        let server = try echoServer(trusting: ["127.0.0.2"])
        defer { server.stop() }
        let client = LoopbackClient(port: server.port)
        let forwarded = ["X-Forwarded-For": "198.51.100.1, 203.0.113.9"]
        #expect(try client.from("127.0.0.2").send("GET", "/", headers: forwarded).text == "203.0.113.9")
        #expect(try client.from("127.0.0.3").send("GET", "/", headers: forwarded).text == "127.0.0.3")
        #expect(try client.from("127.0.0.2").send("GET", "/").text == "127.0.0.2")
    }

    @Test func withoutAListedProxyTheHeaderIsIgnored() throws {
        let server = try echoServer(trusting: [])
        defer { server.stop() }
        let client = LoopbackClient(port: server.port)
        #expect(
            try client.from("127.0.0.2").send("GET", "/", headers: ["X-Forwarded-For": "203.0.113.9"]).text
                == "127.0.0.2")
    }

    /// Wrong read tokens from two clients behind one proxy: with the proxy listed each client
    /// has its own allowance; without, they share the proxy's.
    @Test(arguments: [true, false])
    func wrongTokensAreCountedPerForwardedClient(proxyListed: Bool) throws {
        let clock = SimulatedClock(start: Timestamp(iso8601: "2026-11-29T08:00:00.000Z")!)
        let fixture = try TestServer { configuration in
            configuration.http.clock = clock
            configuration.access.failedSignInsPerAddress = RateLimiter.Rate(
                requestsPerSecond: 1.0 / 60, burst: 3)
            if proxyListed { configuration.http.trustedProxies = [try! AddressRange("127.0.0.2")] }
        }
        defer { fixture.shutDown() }
        let proxy = fixture.client.from("127.0.0.2")
        func report(for client: String, token: String) throws -> Int {
            try proxy.send(
                "GET", "/v1/reports/traffic",
                headers: ["Authorization": "Bearer \(token)", "X-Forwarded-For": client]
            ).status
        }
        for _ in 0..<3 { #expect(try report(for: "203.0.113.1", token: "fpr_wrong") == 401) }
        #expect(try report(for: "203.0.113.1", token: "fpr_wrong") == 429)
        let other = try report(for: "203.0.113.2", token: fixture.server.access.readToken)
        #expect(other == (proxyListed ? 200 : 429))
    }
}
