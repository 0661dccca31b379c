import Foundation
import Testing

@testable import Footprint

/// The device's connect-session rules, pure: when snapshots are taken, how often, and when the
/// session ends.
struct ConnectSessionTests {
    let start = Timestamp(millisecondsSince1970: 1_795_981_800_000)
    let link = ConnectLink(token: "token-0123456789abcdef")

    func at(_ milliseconds: Int64) -> Timestamp { start.adding(milliseconds: milliseconds) }

    @Test func nothingIsCapturedWithoutASession() {
        var session = ConnectSession()
        #expect(session.request(.pageAppear, now: start) == .none)
        #expect(session.request(.onDemand, now: start) == .none)
        #expect(session.wake(now: start) == .none)
        #expect(session.uploadFinished(.stored, now: start) == .none)
        #expect(!session.isActive(at: start))
    }

    @Test func aSessionSnapshotsAtOnceThenOnEveryRequest() {
        var session = ConnectSession()
        #expect(session.start(link, now: start) == .capture(.pageAppear))
        #expect(session.isActive(at: start))
        #expect(session.uploadFinished(.stored, now: at(200)) == .none)
        #expect(session.request(.onDemand, now: at(1_200)) == .capture(.onDemand))
        #expect(session.uploadFinished(.stored, now: at(1_300)) == .none)
        #expect(session.request(.pageAppear, now: at(2_300)) == .capture(.pageAppear))
    }

    @Test func requestsWhileInFlightOrTooSoonAreMergedIntoOne() {
        var session = ConnectSession()
        _ = session.start(link, now: start)
        #expect(session.request(.onDemand, now: at(10)) == .none)
        #expect(session.request(.pageAppear, now: at(20)) == .none)
        #expect(session.request(.onDemand, now: at(30)) == .none)
        // Finished at 100: the merged request waits for the minimum interval, then runs once.
        #expect(session.uploadFinished(.stored, now: at(100)) == .wake(at: at(1_100)))
        #expect(session.wake(now: at(900)) == .wake(at: at(1_100)))
        #expect(session.wake(now: at(1_100)) == .capture(.pageAppear))
        #expect(session.wake(now: at(1_200)) == .none)
    }

    @Test(arguments: [(403, 403), (410, 410)])
    func theServerEndsTheSession(status: Int, expected: Int) {
        var session = ConnectSession()
        _ = session.start(link, now: start)
        let outcome = ConnectSession.UploadOutcome(response: HTTPResponse(status: status))
        #expect(session.uploadFinished(outcome, now: at(100)) == .ended(.endedByServer(status: expected)))
        #expect(!session.isActive(at: at(100)))
        #expect(session.request(.onDemand, now: at(5_000)) == .none)
        #expect(session.endReason == .endedByServer(status: expected))
    }

    @Test func aRefusedWriteKeyEndsTheSession() {
        var session = ConnectSession()
        _ = session.start(link, now: start)
        #expect(
            session.uploadFinished(.init(response: HTTPResponse(status: 401)), now: at(1))
                == .ended(.refusedWriteKey))
    }

    @Test func theSessionExpiresLocally() {
        var configuration = ConnectSession.Configuration()
        configuration.maximumDurationSeconds = 60
        var session = ConnectSession(configuration: configuration)
        _ = session.start(link, now: start)
        #expect(session.uploadFinished(.stored, now: at(1_000)) == .none)
        #expect(session.isActive(at: at(59_999)))
        #expect(!session.isActive(at: at(60_000)))
        #expect(session.request(.onDemand, now: at(60_000)) == .ended(.expired))
        #expect(session.request(.onDemand, now: at(60_001)) == .none)
    }

    @Test func aRefusedSnapshotIsDroppedAndTheSessionGoesOn() {
        var session = ConnectSession()
        _ = session.start(link, now: start)
        #expect(session.uploadFinished(.init(response: HTTPResponse(status: 413)), now: at(10)) == .none)
        #expect(session.request(.onDemand, now: at(1_010)) == .capture(.onDemand))
    }

    @Test func tooManyRequestsWaitsForRetryAfter() {
        var session = ConnectSession()
        _ = session.start(link, now: start)
        let limited = ConnectSession.UploadOutcome(
            response: HTTPResponse(status: 429, headers: ["Retry-After": "7"]))
        #expect(limited == .rateLimited(retryAfterSeconds: 7))
        #expect(session.uploadFinished(limited, now: at(0)) == .none)
        #expect(session.request(.onDemand, now: at(1_000)) == .wake(at: at(7_000)))
        #expect(session.wake(now: at(7_000)) == .capture(.onDemand))
    }

    @Test func failuresBackOffRetakeTheScreenAndEndTheSessionAfterAFew() {
        var session = ConnectSession()
        _ = session.start(link, now: start)
        var now = at(0)
        for failure in 1..<5 {
            // A failed upload is retried, by a fresh capture, after a doubling delay.
            let wait = Int64(1_000) << failure
            #expect(session.uploadFinished(.failed, now: now) == .wake(at: now.adding(milliseconds: wait)))
            now = now.adding(milliseconds: wait)
            #expect(session.wake(now: now) == .capture(.onDemand))
        }
        #expect(session.uploadFinished(.failed, now: now) == .ended(.tooManyFailures))
    }

    @Test func responsesAreReadAsOutcomes() {
        #expect(ConnectSession.UploadOutcome(response: nil) == .failed)
        #expect(ConnectSession.UploadOutcome(response: HTTPResponse(status: 201)) == .stored)
        #expect(ConnectSession.UploadOutcome(response: HTTPResponse(status: 400)) == .refused(status: 400))
        #expect(ConnectSession.UploadOutcome(response: HTTPResponse(status: 503)) == .failed)
        #expect(
            ConnectSession.UploadOutcome(response: HTTPResponse(status: 429, headers: ["retry-after": "-3"]))
                == .rateLimited(retryAfterSeconds: nil))
    }
}

/// Which URLs are connect links.
struct ConnectLinkTests {
    @Test(arguments: [
        "myshop://footprint/connect?token=abcdefghijklmnop0123",
        "MyShop://FOOTPRINT/connect?token=abcdefghijklmnop0123&server=https%3A%2F%2Fcollect.example.com",
        "https://links.example.com/footprint/connect?token=abcdefghijklmnop0123",
        "https://links.example.com/app/footprint/connect?other=1&token=abcdefghijklmnop0123",
    ])
    func recognisesBothForms(text: String) throws {
        let url = try #require(URL(string: text))
        let link = try #require(ConnectLink(url: url))
        #expect(link.token == "abcdefghijklmnop0123")
    }

    @Test(arguments: [
        "myshop://product/42",
        "myshop://footprint/connect",
        "myshop://footprint/connect?token=short",
        "myshop://footprint/connect?token=has%20a%20space%20inside%20it",
        "myshop://footprint/other?token=abcdefghijklmnop0123",
        "http://links.example.com/footprint/connect?token=abcdefghijklmnop0123",
        "https://links.example.com/connect?token=abcdefghijklmnop0123",
    ])
    func refusesEverythingElse(text: String) throws {
        let url = try #require(URL(string: text))
        #expect(ConnectLink(url: url) == nil)
    }

    @Test func isOnlyForTheConfiguredServer() throws {
        let url = try #require(
            URL(
                string:
                    "shop://footprint/connect?token=abcdefghijklmnop0123&server=https://Collect.example.com/")
        )
        let named = try #require(ConnectLink(url: url))
        #expect(named.server == "https://Collect.example.com/")
        #expect(named.isFor(serverURL: "https://collect.example.com"))
        #expect(!named.isFor(serverURL: "https://evil.example.net"))
        #expect(ConnectLink(token: "abcdefghijklmnop0123").isFor(serverURL: "https://any.example.com"))
    }

    @Test(arguments: ["tok_0123456789abcdef~.-", "token+with/odd=chars&more?x#y"])
    func readsTheLinksTheServerWrites(token: String) throws {
        let server = "https://collect.example.com/base?x=1&y=#"
        for text in [
            ConnectLinkFormat.customSchemeLink(scheme: "myshop", token: token, server: server),
            ConnectLinkFormat.universalLink(
                base: "https://links.example.com/app/", token: token, server: server),
            ConnectLinkFormat.customSchemeLink(scheme: "footprint-ab12", token: token, server: nil),
        ] {
            let url = try #require(URL(string: text))
            let link = try #require(ConnectLink(url: url))
            #expect(link.token == token)
            #expect(link.server == (text.contains("server=") ? server : nil))
        }
    }
}
