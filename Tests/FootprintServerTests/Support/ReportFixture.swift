import FootprintServer
import FootprintWire
import Foundation
import Testing

/// A clock that always reads the same instant.
struct FixedClock: Clock {
    let time: Timestamp
    func now() -> Timestamp { time }
}

/// A server holding a small hand-made data set with known answers, sent over HTTP:
///
/// - 2026-11-01: device a1 views Home (leaves after 5 s), then Detail, clicks Buy on sku-1
///   (exposed twice), then identifies as u1.
/// - 2026-11-02: u1 on device a2 views Home; device a3 views Home and Detail.
///
/// So Home has 3 views by 2 people (a1 and a2 are u1), and sku-1's click rate is 50%.
final class ReportFixture {
    let fixture: TestServer
    var client: LoopbackClient { fixture.client }
    var access: AccessConfiguration { fixture.server.access }
    static let now = Timestamp(iso8601: "2026-11-03T12:00:00.000Z")!
    static let range = "from=2026-11-01&to=2026-11-03"

    /// - Parameters:
    ///   - maximumReportEvents: the most events a report may read (the store's default when
    ///     `nil`).
    ///   - now: the server's clock, also the batch's `sentAt` (so the events keep their days).
    init(maximumReportEvents: Int? = nil, now: Timestamp = ReportFixture.now) throws {
        fixture = try TestServer { configuration in
            configuration.http.clock = FixedClock(time: now)
            if let maximumReportEvents { configuration.store.maximumReportEvents = maximumReportEvents }
        }
        let response = try fixture.client.post(
            "/v1/batch", json: Payloads.batch(Self.messages, sentAt: now.iso8601),
            writeKey: fixture.writeKey)
        #expect(response.status == 200, "\(response.text)")
    }

    /// The data set's messages (see the type's description).
    static let messages = [
        ReportFixture.message(
            "screen", "m1", anon: "a1", session: "s1", at: "2026-11-01T10:00:00.000Z",
            extra: #""name":"Home""#),
        ReportFixture.message(
            "track", "m2", anon: "a1", session: "s1", at: "2026-11-01T10:00:05.000Z",
            extra: #""event":"$screen_leave","properties":{"$page_name":"Home","duration_ms":5000}"#),
        ReportFixture.message(
            "screen", "m3", anon: "a1", session: "s1", at: "2026-11-01T10:00:06.000Z",
            extra: #""name":"Detail""#),
        ReportFixture.message(
            "track", "m4", anon: "a1", session: "s1", at: "2026-11-01T10:00:07.000Z",
            extra: #""event":"$item_exposure","properties":{"$page_name":"Detail","$item_id":"sku-1"}"#),
        ReportFixture.message(
            "track", "m5", anon: "a1", session: "s1", at: "2026-11-01T10:00:08.000Z",
            extra: #""event":"$item_exposure","properties":{"$page_name":"Detail","$item_id":"sku-1"}"#),
        ReportFixture.message(
            "track", "m6", anon: "a1", session: "s1", at: "2026-11-01T10:00:09.000Z",
            extra:
                ##""event":"$element_click","properties":{"$page_name":"Detail","$item_id":"sku-1","$element_path":"#buy:#UIButton#Detail","$element_similar_path":"#buy:#UIButton#Detail","$element_text":"Buy"}"##
        ),
        ReportFixture.message(
            "identify", "m7", anon: "a1", session: "s1", at: "2026-11-01T10:00:10.000Z",
            extra: #""userId":"u1""#),
        ReportFixture.message(
            "screen", "m8", anon: "a2", session: "s2", at: "2026-11-02T09:00:00.000Z",
            extra: #""name":"Home","userId":"u1""#),
        ReportFixture.message(
            "screen", "m9", anon: "a3", session: "s3", at: "2026-11-02T11:00:00.000Z",
            extra: #""name":"Home""#),
        ReportFixture.message(
            "screen", "m10", anon: "a3", session: "s3", at: "2026-11-02T11:00:30.000Z",
            extra: #""name":"Detail""#),
    ]

    static func message(
        _ type: String, _ id: String, anon: String, session: String, at time: String, extra: String
    ) -> String {
        """
        {"type":"\(type)","messageId":"\(id)","anonymousId":"\(anon)","timestamp":"\(time)",\
        "context":{"sessionId":"\(session)","app":{"version":"2.0"},"os":{"name":"iOS","version":"17.2"}},\(extra)}
        """
    }

    /// GETs `path` with a bearer token.
    func get(_ path: String, token: String?) throws -> LoopbackClient.Response {
        try client.send("GET", path, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
    }

    /// GETs `path` with the read token and parses the JSON answer.
    func json(_ path: String) throws -> JSONValue {
        let response = try get(path, token: access.readToken)
        #expect(response.status == 200, "\(path): \(response.text)")
        return try JSONParser().parse(response.body)
    }

    func shutDown() { fixture.shutDown() }
}
