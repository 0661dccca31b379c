import FootprintLoopback
import FootprintSQLite
import Foundation
import Testing

@testable import Footprint

/// The uploader against a real HTTP server on a loopback socket, through `URLSessionTransport`.
struct DeliveryTests {
    let directory = ScratchFolder()
    let activity = LockedBox<[TrackerActivity]>([])

    func configuration(_ receiver: LoopbackReceiver) -> Tracker.Configuration {
        var configuration = Tracker.Configuration.sending(to: receiver.url, storedIn: directory)
        configuration.minimumRetryDelaySeconds = 0.02
        configuration.maximumRetryDelaySeconds = 0.1
        let activity = activity
        configuration.observer = { event in activity.withLock { $0.append(event) } }
        return configuration
    }

    var deadLettered: [String] {
        activity.current.compactMap {
            if case .deadLettered(let messageId, _) = $0 { return messageId }
            return nil
        }
    }

    var capturedIds: [String] {
        activity.current.compactMap {
            if case .captured(let message) = $0 { return message.messageId }
            return nil
        }
    }

    func queuedCount() throws -> Int {
        let database = try SQLiteDatabase(path: directory.path + "/queue.sqlite")
        let statement = try database.prepare("SELECT count(*) FROM events")
        _ = try statement.step()
        return Int(statement.int64(at: 0))
    }

    func delivered(_ receiver: LoopbackReceiver, status: Int = 200) -> [JSONValue] {
        receiver.requests.flatMap(\.batch)
    }

    /// The distinct message ids received: a request the client gave up on (its time-out passed on
    /// a busy machine) is sent again with the same ids, so waits count ids, not deliveries.
    func deliveredIds(_ receiver: LoopbackReceiver) -> Set<JSONValue> {
        Set(delivered(receiver).compactMap { $0["messageId"] })
    }

    func track(_ tracker: Tracker, _ count: Int, _ properties: (Int) -> JSONObject = { _ in [:] }) {
        for index in 0..<count {
            tracker.track(
                "Event \(index)",
                properties: properties(index).merging(["i": .int(Int64(index))]) { a, _ in a })
        }
    }

    @Test func sendsAGzipBatchWithTheWriteKeyAndSentAt() async throws {
        let receiver = try LoopbackReceiver { _ in HTTPResponse(status: 200) }
        let tracker = Tracker(configuration: configuration(receiver))
        track(tracker, 5)
        await tracker.flushAndWait()
        let request = try #require(receiver.requests.first)
        #expect(receiver.requests.count == 1)
        #expect(request.method == "POST" && request.path == "/v1/batch")
        #expect(request.headers["content-encoding"] == "gzip")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["authorization"] == "Basic " + Data("key:".utf8).base64EncodedString())
        #expect(request.rawBody.count < request.body.count)
        let json = try #require(request.json)
        let sentAt = try #require(json["sentAt"]?.stringValue.flatMap(Timestamp.init(iso8601:)))
        #expect(json["context"] == nil)
        #expect(request.batch.map { $0["messageId"]!.stringValue! } == capturedIds)
        for event in request.batch {
            #expect(event["sentAt"]?.stringValue == sentAt.iso8601)
            let message = try Message(validating: event, receivedAt: sentAt, makeMessageId: { "" })
            #expect(message.type == .track)
        }
        #expect(try queuedCount() == 0)
    }

    @Test func reachingFlushAtSendsWithoutBeingAsked() async throws {
        let receiver = try LoopbackReceiver { _ in HTTPResponse(status: 200) }
        var configuration = configuration(receiver)
        configuration.flushAt = 5
        let tracker = Tracker(configuration: configuration)
        track(tracker, 4)
        #expect(tracker.waitUntilStored())
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(receiver.requests.isEmpty)
        track(tracker, 1)
        await waitUntil("the fifth event to trigger an upload") { deliveredIds(receiver).count == 5 }
    }

    @Test func theIntervalSendsWhatIsQueued() async throws {
        let receiver = try LoopbackReceiver { _ in HTTPResponse(status: 200) }
        var configuration = configuration(receiver)
        configuration.flushIntervalSeconds = 0.1
        let tracker = Tracker(configuration: configuration)
        track(tracker, 3)
        await waitUntil("the interval to upload") { deliveredIds(receiver).count == 3 }
    }

    @Test func goingToTheBackgroundFlushes() async throws {
        let receiver = try LoopbackReceiver { _ in HTTPResponse(status: 200) }
        let tracker = Tracker(configuration: configuration(receiver))
        track(tracker, 2)
        await withCheckedContinuation { continuation in
            tracker.applicationDidEnterBackground { continuation.resume() }
        }
        #expect(delivered(receiver).count == 2)
    }

    @Test func batchesAreBoundedByCountAndBytes() async throws {
        let receiver = try LoopbackReceiver { _ in HTTPResponse(status: 200) }
        var configuration = configuration(receiver)
        configuration.maximumBatchCount = 10
        let tracker = Tracker(configuration: configuration)
        track(tracker, 35)
        await tracker.flushAndWait()
        #expect(receiver.requests.map(\.batch.count) == [10, 10, 10, 5])

        let bytesReceiver = try LoopbackReceiver { _ in HTTPResponse(status: 200) }
        var bytesConfiguration = self.configuration(bytesReceiver)
        bytesConfiguration.storageDirectory = directory.path + "/bytes"
        bytesConfiguration.maximumBatchBytes = 5000
        let bytesTracker = Tracker(configuration: bytesConfiguration)
        track(bytesTracker, 20) { _ in ["pad": .string(String(repeating: "x", count: 1000))] }
        await bytesTracker.flushAndWait()
        #expect(bytesReceiver.requests.allSatisfy { $0.batch.count <= 4 && $0.body.count < 5000 + 2000 })
        #expect(bytesReceiver.requests.flatMap(\.batch).count == 20)
    }

    @Test(arguments: [(503, nil), (429, "0"), (500, nil), (408, nil)] as [(Int, String?)])
    func retriesAfterAFailureWithTheSameMessageIds(status: Int, retryAfter: String?) async throws {
        let attempts = LockedBox(0)
        let receiver = try LoopbackReceiver { _ in
            let attempt = attempts.withLock { count -> Int in
                count += 1
                return count
            }
            return attempt <= 2
                ? HTTPResponse(status: status, headers: retryAfter.map { ["Retry-After": $0] } ?? [:])
                : HTTPResponse(status: 200)
        }
        let tracker = Tracker(configuration: configuration(receiver))
        track(tracker, 3)
        tracker.flush()
        try #require(await waitUntil("a successful retry") { receiver.requests.count == 3 })
        let ids = receiver.requests.map { $0.batch.map { $0["messageId"]! } }
        #expect(ids[0] == ids[1] && ids[1] == ids[2])
        let sentAts = Set(receiver.requests.compactMap { $0.json?["sentAt"] })
        #expect(sentAts.count == 3)
        await waitUntil("the queue to empty") { (try? queuedCount()) == 0 }
    }

    @Test func aNetworkFailureKeepsTheEvents() async throws {
        var configuration = configuration(try LoopbackReceiver { _ in HTTPResponse(status: 200) })
        configuration.serverURL = "http://127.0.0.1:1"
        let tracker = Tracker(configuration: configuration)
        track(tracker, 4)
        await tracker.flushAndWait()
        let statuses = activity.current.compactMap { event -> Int?? in
            if case .sent(_, let status) = event { return status }
            return nil
        }
        #expect(statuses.first == .some(nil))
        #expect(try queuedCount() == 4)
    }

    @Test(arguments: [400, 422]) func aBadEventIsIsolatedAndDeadLettered(status: Int) async throws {
        let receiver = try LoopbackReceiver { request in
            let poisoned = request.batch.contains { $0["properties"]?["poison"] == true }
            return poisoned
                ? HTTPResponse(status: status, body: Array("bad event".utf8)) : HTTPResponse(status: 200)
        }
        let tracker = Tracker(configuration: configuration(receiver))
        track(tracker, 9) { index in index == 6 ? ["poison": true] : [:] }
        await tracker.flushAndWait()
        await waitUntil("the queue to empty") { (try? queuedCount()) == 0 }
        let accepted = receiver.requests.filter { !$0.batch.contains { $0["properties"]?["poison"] == true } }
        let deliveredIndexes = accepted.flatMap(\.batch).map { $0["properties"]!["i"]!.int64Value! }
        #expect(deliveredIndexes.sorted() == [0, 1, 2, 3, 4, 5, 7, 8])
        #expect(deadLettered == [capturedIds[6]])
        // Isolating one bad event among 9 takes about log2(9) splits, not one request per event.
        #expect(receiver.requests.count <= 9)
    }

    @Test func eventsRejectedInsideASuccessAreNotResent() async throws {
        let receiver = try LoopbackReceiver { request in
            let rejected = request.batch.filter { $0["properties"]?["reject"] == true }.map {
                JSONValue.object(["messageId": $0["messageId"]!, "code": "invalid_field", "reason": "no"])
            }
            return HTTPResponse(status: 200, body: JSONWriter.bytes(["rejected": .array(rejected)]))
        }
        let tracker = Tracker(configuration: configuration(receiver))
        track(tracker, 4) { index in index == 1 ? ["reject": true] : [:] }
        await tracker.flushAndWait()
        await tracker.flushAndWait()
        #expect(receiver.requests.count == 1)
        #expect(deadLettered == [capturedIds[1]])
        #expect(try queuedCount() == 0)
    }

    @Test func payloadTooLargeHalvesTheBatch() async throws {
        let receiver = try LoopbackReceiver { request in
            HTTPResponse(status: request.batch.count > 4 ? 413 : 200)
        }
        var configuration = configuration(receiver)
        configuration.maximumBatchCount = 16
        let tracker = Tracker(configuration: configuration)
        track(tracker, 16)
        await tracker.flushAndWait()
        #expect(receiver.requests.map(\.batch.count) == [16, 8, 4, 4, 4, 4])
        #expect(try queuedCount() == 0)
    }

    @Test(arguments: [401, 403]) func refusedCredentialsStopSendingUntilANewKey(status: Int) async throws {
        let goodKey = "Basic " + Data("good:".utf8).base64EncodedString()
        let receiver = try LoopbackReceiver { request in
            HTTPResponse(status: request.headers["authorization"] == goodKey ? 200 : status)
        }
        let tracker = Tracker(configuration: configuration(receiver))
        track(tracker, 3)
        await tracker.flushAndWait()
        await tracker.flushAndWait()
        #expect(receiver.requests.count == 1)
        #expect(activity.current.contains { if case .deliveryHalted(status) = $0 { true } else { false } })
        #expect(try queuedCount() == 3)
        tracker.updateWriteKey("good")
        await waitUntil("delivery with the new key") { (try? queuedCount()) == 0 }
        #expect(receiver.requests.count == 2)
    }

    @Test func evictionsAreReportedOnceInTheNextBatch() async throws {
        let receiver = try LoopbackReceiver { _ in HTTPResponse(status: 200) }
        var configuration = configuration(receiver)
        configuration.maximumQueuedEvents = 5
        let tracker = Tracker(configuration: configuration)
        track(tracker, 12)
        await tracker.flushAndWait()
        track(tracker, 1)
        await tracker.flushAndWait()
        let contexts = receiver.requests.map { $0.json?["context"] }
        try #require(contexts.count == 2)
        #expect(contexts[0] == ["footprint": ["evicted": 7]])
        #expect(contexts[1] == nil)
        #expect(receiver.requests[0].batch.map { $0["event"] } == (7..<12).map { .string("Event \($0)") })
    }

    @Test func neverMoreThanOneRequestInFlight() async throws {
        let receiver = try LoopbackReceiver { _ in HTTPResponse(status: 200) }
        var configuration = configuration(receiver)
        let transport = InFlightCountingTransport(wrapping: URLSessionTransport(timeoutSeconds: 60))
        configuration.transport = transport
        configuration.flushAt = 3
        configuration.maximumBatchCount = 5
        configuration.flushIntervalSeconds = 0.05
        let tracker = Tracker(configuration: configuration)
        for round in 0..<10 {
            track(tracker, 7)
            tracker.flush()
            if round % 3 == 0 { tracker.applicationDidEnterBackground() }
        }
        await tracker.flushAndWait()
        await waitUntil("every event delivered") { deliveredIds(receiver).count == 70 }
        #expect(transport.maximumInFlight.current == 1)
    }

    @Test func theTransportReportsStatusHeadersAndBody() async throws {
        let receiver = try LoopbackReceiver { request in
            HTTPResponse(status: 202, headers: ["X-Echo": request.path], body: request.body)
        }
        let transport = URLSessionTransport(timeoutSeconds: 60)
        let response = try await transport.send(
            HTTPRequest(method: "POST", url: receiver.url + "/echo", body: Array("hello".utf8)))
        #expect(response.status == 202)
        #expect(response.headers["x-echo"] == "/echo")
        #expect(response.body == Array("hello".utf8))
        await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(method: "GET", url: "not a url"))
        }
        await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(method: "GET", url: "http://127.0.0.1:1/"))
        }
    }
}

/// The real transport, counting how many requests it has in flight at once.
final class InFlightCountingTransport: HTTPTransport {
    let wrapped: URLSessionTransport
    let inFlight = LockedBox(0)
    let maximumInFlight = LockedBox(0)

    init(wrapping wrapped: URLSessionTransport) { self.wrapped = wrapped }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let now = inFlight.withLock { count -> Int in
            count += 1
            return count
        }
        maximumInFlight.withLock { $0 = max($0, now) }
        defer { inFlight.withLock { $0 -= 1 } }
        return try await wrapped.send(request)
    }
}
