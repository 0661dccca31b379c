import Dispatch
import FootprintServer
import FootprintWire
import Foundation
import Testing

/// A batch whose dwell durations are `Int64.max` (or sum past it) used to trap while the
/// rollups were summed, taking every request of the same group commit with it. Now such
/// events are refused one by one at ingest, and the sums saturate even for records that
/// reach the store some other way.
struct RollupOverflowTests {
    static let hugeDurations = ["9223372036854775807", "9223372036854775807", "9223372036854775000", "1000"]

    /// One session per duration that views Home and leaves it after that duration: on the same
    /// day, page and bucket, so the first two (and the first with the third) sum past
    /// `Int64.max`. The last is in range.
    static func hostileBatch(_ tag: String) -> String {
        var messages: [String] = []
        for (index, duration) in hugeDurations.enumerated() {
            let session = "\(tag)-s\(index)"
            messages.append(
                ReportFixture.message(
                    "screen", "\(tag)-view-\(index)", anon: "\(tag)-a", session: session,
                    at: "2026-11-29T10:00:0\(index).000Z", extra: #""name":"Home""#))
            messages.append(
                ReportFixture.message(
                    "track", "\(tag)-leave-\(index)", anon: "\(tag)-a", session: session,
                    at: "2026-11-29T10:00:0\(index).500Z",
                    extra:
                        #""event":"$screen_leave","properties":{"$page_name":"Home","duration_ms":\#(duration)}"#
                ))
        }
        return Payloads.batch(messages)
    }

    @Test func hugeDurationsOverHTTPAreRefusedAndEveryRequestOfTheGroupCommitIsAnswered() throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let client = fixture.client
        let writeKey = fixture.writeKey
        let requests = 16
        let answers = LockedResults<LoopbackClient.Response>()
        DispatchQueue.concurrentPerform(iterations: requests) { index in
            let body =
                index % 4 == 0
                ? Self.hostileBatch("h\(index)")
                : Payloads.batch((0..<20).map { Payloads.track("n\(index)-\($0)") })
            let response = try? client.post("/v1/batch", json: body, writeKey: writeKey)
            answers.set(index, response)
        }
        for index in 0..<requests {
            let response = try #require(answers.get(index), "request \(index) got no answer")
            #expect(response.status == 200, "request \(index): \(response.text)")
            let answer = try JSONParser().parse(response.body)
            if index % 4 == 0 {
                #expect(answer["stored"] == 5, "the views and the leave in range are stored")
                let rejected = answer["rejected"]?.arrayValue ?? []
                #expect(rejected.map { $0["index"] } == [1, 3, 5])
                #expect(rejected.allSatisfy { $0["code"] == "number_out_of_range" })
            } else {
                #expect(answer["stored"] == 20)
            }
        }
        #expect(try fixture.storedCount() == 12 * 20 + 4 * 5)
        let project = try #require(fixture.server.defaultProject)
        let traffic = try ReportService(stores: fixture.server.stores).traffic(
            project: project,
            parameters: ReportParameters(query: [:], now: SystemClock().now()))
        let home = try #require(traffic.pages.first { $0.page == "Home" })
        #expect(home.dwellSamples == 4)
        #expect(home.averageDwellMilliseconds == 1000)
    }

    static func record(
        _ id: String, _ type: MessageType, _ name: String, session: String, at time: Timestamp,
        duration: Int64? = nil
    ) -> EventRecord {
        var record = EventRecord(
            message: Message(
                type: type, messageId: id, anonymousId: "a", event: type == .track ? name : nil,
                name: type == .screen ? name : nil, timestamp: time,
                context: ["sessionId": .string(session)], properties: ["$page_name": .string("Home")]),
            time: time, receivedAt: time)
        record.durationMilliseconds = duration
        return record
    }

    @Test func recordsWithHugeDurationsThatReachTheStoreSaturateTheDwellSums() throws {
        try withTemporaryStore("rollup-overflow") { store, project in
            let time = Timestamp(iso8601: "2026-11-29T10:00:00.000Z")!
            // Several writers at once, so that the hostile batch shares group commits with others.
            let outcomes = LockedResults<WriteOutcome>()
            DispatchQueue.concurrentPerform(iterations: 8) { writer in
                var events: [EventRecord] = []
                for (index, duration) in [Int64.max, .max, .max - 1000, 2000].enumerated() where writer == 0 {
                    let viewed = time.adding(milliseconds: Int64(index) * 10)
                    events.append(Self.record("v\(index)", .screen, "Home", session: "s\(index)", at: viewed))
                    events.append(
                        Self.record(
                            "l\(index)", .track, "$screen_leave", session: "s\(index)",
                            at: viewed.adding(milliseconds: 1), duration: duration))
                }
                if writer != 0 {
                    events = (0..<10).map {
                        Self.record("w\(writer)-\($0)", .track, "Tapped", session: "w", at: time)
                    }
                }
                let outcome = try? store.write(
                    IngestBatch(projectId: project.id, events: events, receivedAt: time))
                outcomes.set(writer, outcome)
            }
            for writer in 0..<8 {
                #expect(outcomes.get(writer)?.stored == (writer == 0 ? 8 : 10), "writer \(writer)")
            }
            let dwell = try store.rollupDwell(
                projectId: project.id,
                filter: ReportFilter(from: time.adding(milliseconds: -36_000_000), to: nil))
            let home = try #require(dwell["Home"])
            #expect(home.count == 4)
            // The total holds at Int64.max: the mean is a quarter of it.
            #expect(abs(try #require(home.average) - Int(Int64.max / 4)) <= 1)
            #expect(try #require(home.median) > 0)
        }
    }
}

/// Results collected from several threads, by index.
final class LockedResults<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Int: Value] = [:]

    func set(_ index: Int, _ result: Value?) {
        lock.withLock { results[index] = result }
    }

    func get(_ index: Int) -> Value? {
        lock.withLock { results[index] }
    }
}
