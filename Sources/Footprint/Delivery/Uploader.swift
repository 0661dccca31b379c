import Foundation

/// Sends the queue to the server, one request at a time, as the ``DeliveryPolicy`` decides.
///
/// Triggers: the queue reaching `flushAt`, the flush interval, `flush()` (also on going to the
/// background). The storage thread owns the queue; the uploader asks it for batches and tells it
/// what to delete.
actor Uploader {
    /// What the uploader is doing.
    enum State {
        /// Nothing to do until a trigger.
        case idle
        /// A drain loop is running (one request in flight at most).
        case sending
        /// Backing off until a timer fires.
        case waiting(Task<Void, Never>)
        /// The write key was refused; nothing is sent until ``updateWriteKey(_:)``.
        case halted
        /// Stopped for good.
        case stopped
    }

    private var state = State.idle
    private var policy: DeliveryPolicy
    private var writeKey: String
    private let configuration: Tracker.Configuration
    private let storage: CommandInbox
    private var queuedCount = 0
    /// Counts ``queueChanged(count:flushCompletions:)`` calls: a drain that read an empty queue
    /// knows from it whether a commit was reported while its read was out.
    private var queueChanges = 0
    private var flushRequestedWhileSending = false
    private var completions: [@Sendable () -> Void] = []
    private var random = SystemRandomNumberGenerator()
    private var intervalTask: Task<Void, Never>?

    /// Creates the uploader; it reads and changes the queue through the storage thread's `storage`
    /// inbox.
    init(configuration: Tracker.Configuration, storage: CommandInbox) {
        self.configuration = configuration
        self.storage = storage
        self.writeKey = configuration.writeKey
        policy = DeliveryPolicy(
            batchLimit: configuration.maximumBatchCount,
            minimumDelayMilliseconds: Int64(configuration.minimumRetryDelaySeconds * 1000),
            maximumDelayMilliseconds: Int64(configuration.maximumRetryDelaySeconds * 1000))
    }

    /// Starts the interval timer.
    func start() {
        let nanoseconds = UInt64(max(0.05, configuration.flushIntervalSeconds) * 1e9)
        intervalTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: nanoseconds)
                guard let self, !Task.isCancelled else { return }
                await self.intervalElapsed()
            }
        }
    }

    /// Stops timers and sending.
    func stop() {
        intervalTask?.cancel()
        if case .waiting(let task) = state { task.cancel() }
        state = .stopped
        finishCompletions()
    }

    /// The storage thread committed; `count` events are queued.
    func queueChanged(count: Int, flushCompletions: [(@Sendable () -> Void)?]) {
        queuedCount = count
        queueChanges &+= 1
        completions += flushCompletions.compactMap { $0 }
        if !flushCompletions.isEmpty || count >= configuration.flushAt {
            trigger()
        }
    }

    /// A new write key: lifts a halt caused by 401/403.
    func updateWriteKey(_ key: String) {
        writeKey = key
        policy.resume()
        if case .halted = state { state = .idle }
        if case .waiting(let task) = state {
            task.cancel()
            state = .idle
        }
        trigger()
    }

    private func intervalElapsed() {
        if queuedCount > 0 { trigger() }
    }

    private func trigger() {
        switch state {
        case .idle:
            state = .sending
            Task { await self.drain() }
        case .sending:
            flushRequestedWhileSending = true
        case .waiting, .halted, .stopped:
            finishCompletions()
        }
    }

    private func finishCompletions() {
        let done = completions
        completions = []
        for completion in done { completion() }
    }

    /// Sends batches until the queue is empty or the policy says to wait or stop.
    private func drain() async {
        while case .sending = state {
            switch policy.nextStep(now: configuration.clock.now()) {
            case .halted:
                state = .halted
            case .wait(let until):
                let delay = max(
                    0, until.millisecondsSince1970 - configuration.clock.now().millisecondsSince1970)
                state = .waiting(
                    Task { [weak self] in
                        try? await Task.sleep(nanoseconds: UInt64(delay) * 1_000_000)
                        guard !Task.isCancelled else { return }
                        await self?.backoffElapsed()
                    })
            case .send(let selection):
                let changesBeforeRead = queueChanges
                let batch = await read(selection)
                guard !batch.rowIds.isEmpty else {
                    if case .rows(let rows) = selection {
                        policy.discard(rows)
                        continue
                    }
                    // Events committed after this read was answered asked for a send, or were
                    // reported, meanwhile: read again rather than forget them (setting the count
                    // to 0 below would leave them for the next commit or flush).
                    if flushRequestedWhileSending || queueChanges != changesBeforeRead {
                        flushRequestedWhileSending = false
                        continue
                    }
                    queuedCount = 0
                    if case .sending = state { state = .idle }
                    break
                }
                await send(batch, selection: selection)
            }
        }
        finishCompletions()
    }

    private func backoffElapsed() {
        guard case .waiting = state else { return }
        state = .sending
        Task { await self.drain() }
    }

    private func send(_ batch: StoredBatch, selection: BatchSelection) async {
        let sentAt = configuration.clock.now()
        let body = BatchBody.encode(batch, sentAt: sentAt)
        var headers = [
            "Content-Type": "application/json",
            "Authorization": HTTPRequest.basicAuthorization(writeKey: writeKey),
            "User-Agent":
                "\(configuration.context.libraryName)/\(configuration.context.libraryVersionString)",
        ]
        var payload = body
        if configuration.compressesRequests {
            let compressed = Gzip.compress(body)
            if !compressed.isEmpty {
                payload = compressed
                headers["Content-Encoding"] = "gzip"
            }
        }
        let request = HTTPRequest(
            method: "POST", url: configuration.batchURL, headers: headers, body: payload)
        let response = try? await configuration.transport.send(request)
        configuration.observer?(.sent(eventCount: batch.rowIds.count, status: response?.status))

        let rowsByMessageId = Dictionary(
            zip(batch.messageIds, batch.rowIds).map { ($0, $1) }, uniquingKeysWith: { first, _ in first })
        let outcome = DeliveryOutcome(
            response: response, rowsByMessageId: rowsByMessageId, now: configuration.clock.now())
        let sentRows: [Int64]
        if case .rows(let rows) = selection { sentRows = rows } else { sentRows = batch.rowIds }
        let effects = policy.record(outcome, for: sentRows, now: configuration.clock.now(), random: &random)
        if case .unauthorized(let status) = outcome {
            configuration.log(
                "the server refused the write key (HTTP \(status)); sending stops until a new key")
            configuration.observer?(.deliveryHalted(status: status))
        }
        var acknowledged: Int64 = 0
        if case .accepted = outcome { acknowledged = batch.unreportedEvictions }
        if !effects.isEmpty || acknowledged > 0 {
            await apply(effects, acknowledged: acknowledged)
        }
    }

    private func read(_ selection: BatchSelection) async -> StoredBatch {
        let maximumBytes = configuration.maximumBatchBytes
        return await withCheckedContinuation { continuation in
            storage.submit(
                .storage(
                    .readBatch(
                        selection, maximumBytes: maximumBytes, reply: { continuation.resume(returning: $0) }))
            )
        }
    }

    private func apply(_ effects: [DeliveryEffect], acknowledged: Int64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            storage.submit(
                .storage(
                    .apply(effects, acknowledgedEvictions: acknowledged, reply: { continuation.resume() })))
        }
    }
}
