import Footprint
import FootprintSQLite
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// A list that one side appends to and the other awaits a condition on: a tracker's activity,
/// a transport's exchanges. Waiting ends as soon as the condition holds (or at a timeout, so a
/// broken test fails instead of hanging).
final class AwaitableLog<Entry: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [Entry] = []
    private var waiters:
        [(id: Int, condition: ([Entry]) -> Bool, continuation: CheckedContinuation<Bool, Never>)] =
            []
    private var nextWaiter = 0

    /// Everything appended so far.
    var all: [Entry] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    func append(_ entry: Entry) {
        lock.lock()
        entries.append(entry)
        let snapshot = entries
        let ready = waiters.filter { $0.condition(snapshot) }
        waiters.removeAll { waiter in ready.contains { $0.id == waiter.id } }
        lock.unlock()
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    /// Waits until `condition` holds for the entries.
    /// - Returns: whether it held before `timeoutSeconds`.
    func wait(timeoutSeconds: Double = 300, until condition: @escaping @Sendable ([Entry]) -> Bool) async
        -> Bool
    {
        await withCheckedContinuation { continuation in
            lock.lock()
            if condition(entries) {
                lock.unlock()
                continuation.resume(returning: true)
                return
            }
            let id = nextWaiter
            nextWaiter += 1
            waiters.append((id, condition, continuation))
            lock.unlock()
            Task {
                try? await Task.sleep(nanoseconds: UInt64(timeoutSeconds * 1e9))
                self.expire(id)
            }
        }
    }

    private func expire(_ id: Int) {
        lock.lock()
        let expired = waiters.first { $0.id == id }
        waiters.removeAll { $0.id == id }
        lock.unlock()
        expired?.continuation.resume(returning: false)
    }
}

/// The SDK's real transport (`URLSessionTransport`), recording each exchange; it can lose the
/// answers to the first batches after the server has handled them, as a dropped connection does.
final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    /// One request and its answer (`status` `nil` when none reached the SDK).
    struct Exchange: Sendable {
        var request: HTTPRequest
        var status: Int?
    }

    let exchanges = AwaitableLog<Exchange>()
    private let transport = URLSessionTransport(timeoutSeconds: 60)
    private let lock = NSLock()
    private var batchAnswersToLose: Int

    /// - Parameter losingBatchAnswers: how many `/v1/batch` answers to lose after the server
    ///   answered them.
    init(losingBatchAnswers: Int = 0) {
        batchAnswersToLose = losingBatchAnswers
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await transport.send(request)
        let loses = takeLoss(for: request)
        exchanges.append(Exchange(request: request, status: loses ? nil : response.status))
        if loses { throw TransportError(code: .network, message: "the connection dropped before the answer") }
        return response
    }

    /// Whether to lose this request's answer (counts it when so).
    private func takeLoss(for request: HTTPRequest) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard request.url.hasSuffix("/v1/batch"), batchAnswersToLose > 0 else { return false }
        batchAnswersToLose -= 1
        return true
    }

    /// The batch requests sent.
    var batches: [Exchange] { exchanges.all.filter { $0.request.url.hasSuffix("/v1/batch") } }
}

/// A real server on a free loopback port and trackers pointed at it, each with its own queue
/// folder, all deleted by ``shutDown()``.
final class EndToEndHarness {
    let fixture: TestServer
    let activity = AwaitableLog<TrackerActivity>()

    init(configure: (inout AnalyticsServer.Configuration) -> Void = { _ in }) throws {
        fixture = try TestServer(configure: configure)
    }

    var server: AnalyticsServer { fixture.server }

    /// A tracker configuration for this server: its own folder, remote config off, every
    /// activity into ``activity``, retries after 1 ms.
    func configuration(device: String, writeKey: String? = nil, transport: any HTTPTransport)
        -> Tracker.Configuration
    {
        var configuration = Tracker.Configuration(
            writeKey: writeKey ?? fixture.writeKey, serverURL: server.baseURL)
        configuration.storageDirectory = fixture.directory + "/devices/" + device
        configuration.remoteConfigRefreshSeconds = nil
        configuration.transport = transport
        configuration.minimumRetryDelaySeconds = 0.001
        configuration.maximumRetryDelaySeconds = 0.01
        configuration.context.appVersion = "3.1"
        configuration.context.osName = "iOS"
        let activity = activity
        configuration.observer = { activity.append($0) }
        configuration.log = { _ in }
        return configuration
    }

    /// The message ids the tracker queued (its `captured` activity), in order.
    var capturedMessageIds: [String] {
        activity.all.compactMap { if case .captured(let message) = $0 { message.messageId } else { nil } }
    }

    /// Every stored event's message id, read from the server's database file.
    func storedMessageIds() throws -> [String] {
        var options = SQLiteDatabase.Options()
        options.readOnly = true
        let database = try SQLiteDatabase(path: fixture.directory + "/events.sqlite", options: options)
        return try database.prepare("SELECT message_id FROM events ORDER BY id").rows { $0.text(at: 0) ?? "" }
    }

    /// The stored events' `properties.<key>` values, read from the database file.
    func storedProperty(_ key: String, event: String) throws -> [String?] {
        var options = SQLiteDatabase.Options()
        options.readOnly = true
        let database = try SQLiteDatabase(path: fixture.directory + "/events.sqlite", options: options)
        return try database.prepare("SELECT \(StoredPayload.columns) FROM events WHERE name = ?1 ORDER BY id")
            .rows([
                .text(event)
            ]) { row in
                // As `json_extract` answers: a string's text, other values' JSON, SQL NULL for null.
                try StoredPayload.message(row, at: 0)["properties"]?[key].flatMap { value in
                    value == .null ? nil : value.stringValue ?? JSONWriter.string(value)
                }
            }
    }

    func shutDown(sourceLocation: SourceLocation = #_sourceLocation) {
        fixture.shutDown(sourceLocation: sourceLocation)
    }
}

extension Tracker {
    /// Flushes and waits until that flush is over.
    func flushed() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            flush { done.resume() }
        }
    }
}
