/// Which events the next request carries.
enum BatchSelection: Sendable, Hashable {
    /// The oldest queued events, at most `limit` of them.
    case oldest(limit: Int)
    /// Exactly these rows (a half of a batch being split to isolate a bad event).
    case rows([Int64])
}

/// What the response to one request says, as the response policy sees it.
enum DeliveryOutcome: Sendable, Hashable {
    /// 2xx. `rejected` names the rows the server refused inside the batch, with its reason.
    case accepted(rejected: [Int64: String])
    /// 400 or 422: something in the batch is malformed.
    case badRequest(status: Int, reason: String)
    /// 413: the request is too large.
    case payloadTooLarge
    /// 401 or 403: the write key is refused.
    case unauthorized(status: Int)
    /// 408, 429, 5xx, any other status, or no response at all (`status` `nil`). `retryAfter`
    /// is the server's `Retry-After`, in milliseconds.
    case retryable(status: Int?, retryAfterMilliseconds: Int64?)
}

/// A change to the queue decided by the response policy.
enum DeliveryEffect: Sendable, Hashable {
    /// Delivered (or refused for good and logged): remove from the queue.
    case delete([Int64])
    /// A single event the server refuses: move to the dead-letter table, never resend.
    case deadLetter(row: Int64, reason: String)
}

/// The response policy: what to send next and what each response means for the queue, as a pure
/// state machine. Time and randomness are passed in.
///
/// - 2xx: delete the batch; events the server refused inside it go to the dead-letter table.
/// - 400/422: split the batch in halves and send each, to isolate the bad event; a single event
///   that still fails goes to the dead-letter table.
/// - 413: halve the batch size (a single event goes to the dead-letter table).
/// - 401/403: stop until ``resume()`` (a new start or a configuration change); keep the events.
/// - 408/429/5xx/other/network: exponential backoff with full jitter between the minimum and
///   maximum delay, or the server's `Retry-After` when it asks for longer (up to an hour);
///   nothing is dropped.
struct DeliveryPolicy: Sendable, Hashable {
    /// What the uploader does next.
    enum Step: Sendable, Hashable {
        /// Send the selected events now.
        case send(BatchSelection)
        /// Wait until then before sending anything.
        case wait(until: Timestamp)
        /// Send nothing until ``DeliveryPolicy/resume()``.
        case halted
    }

    /// The largest batch, in events; halved by 413 down to 1.
    private(set) var batchLimit: Int
    /// Failures in a row that called for backoff.
    private(set) var consecutiveFailures = 0
    /// No request before this time.
    private(set) var retryAt: Timestamp?
    /// Whether the write key was refused.
    private(set) var isHalted = false
    /// Halves still to send to isolate a bad event; the last is sent first.
    private(set) var isolationStack: [[Int64]] = []

    let minimumDelayMilliseconds: Int64
    let maximumDelayMilliseconds: Int64
    /// The longest `Retry-After` honoured: one hour.
    static let maximumRetryAfterMilliseconds: Int64 = 3_600_000

    /// Creates the policy.
    /// - Parameters:
    ///   - batchLimit: the largest batch, in events.
    ///   - minimumDelayMilliseconds: the shortest backoff (1 s by default in the tracker).
    ///   - maximumDelayMilliseconds: the longest backoff (5 min by default in the tracker).
    init(batchLimit: Int, minimumDelayMilliseconds: Int64, maximumDelayMilliseconds: Int64) {
        self.batchLimit = max(1, batchLimit)
        self.minimumDelayMilliseconds = max(0, minimumDelayMilliseconds)
        self.maximumDelayMilliseconds = max(minimumDelayMilliseconds, maximumDelayMilliseconds)
    }

    /// What to do at `now`.
    func nextStep(now: Timestamp) -> Step {
        if isHalted { return .halted }
        if let retryAt, now < retryAt { return .wait(until: retryAt) }
        if let rows = isolationStack.last { return .send(.rows(rows)) }
        return .send(.oldest(limit: batchLimit))
    }

    /// Takes the response to the batch `rows` (as sent) into account.
    /// - Returns: the changes to make to the queue.
    mutating func record(
        _ outcome: DeliveryOutcome, for rows: [Int64], now: Timestamp,
        random: inout some RandomNumberGenerator
    ) -> [DeliveryEffect] {
        switch outcome {
        case .accepted(let rejected):
            finishIsolationStep(rows)
            consecutiveFailures = 0
            retryAt = nil
            var effects: [DeliveryEffect] = rejected.keys.sorted().map {
                .deadLetter(row: $0, reason: rejected[$0]!)
            }
            let delivered = rows.filter { rejected[$0] == nil }
            if !delivered.isEmpty { effects.append(.delete(delivered)) }
            return effects
        case .badRequest(let status, let reason):
            return split(rows, deadLetterReason: "HTTP \(status): \(reason)")
        case .payloadTooLarge:
            batchLimit = max(1, min(batchLimit, rows.count) / 2)
            if rows.count > 1 && isolationStack.last != rows { return [] }
            return split(rows, deadLetterReason: "HTTP 413: a single event is too large for the server")
        case .unauthorized:
            isHalted = true
            return []
        case .retryable(_, let retryAfter):
            consecutiveFailures += 1
            var delay = backoffDelay(random: &random)
            if let retryAfter {
                delay = max(delay, min(retryAfter, Self.maximumRetryAfterMilliseconds))
            }
            retryAt = now.adding(milliseconds: delay)
            return []
        }
    }

    /// Lifts a halt after a new start or a configuration change.
    mutating func resume() {
        isHalted = false
        retryAt = nil
        consecutiveFailures = 0
    }

    /// The selected rows no longer exist (evicted meanwhile): forget them.
    mutating func discard(_ rows: [Int64]) {
        finishIsolationStep(rows)
    }

    /// The backoff for the current failure count: uniformly random ("full jitter") between the
    /// minimum delay and `minimum × 2^(failures − 1)`, capped at the maximum delay.
    func backoffDelay(random: inout some RandomNumberGenerator) -> Int64 {
        let exponent = min(consecutiveFailures - 1, 40)
        let ceiling = min(maximumDelayMilliseconds, minimumDelayMilliseconds << Int64(max(0, exponent)))
        guard ceiling > minimumDelayMilliseconds else { return minimumDelayMilliseconds }
        return Int64.random(in: minimumDelayMilliseconds...ceiling, using: &random)
    }

    private mutating func split(_ rows: [Int64], deadLetterReason: String) -> [DeliveryEffect] {
        finishIsolationStep(rows)
        if rows.count == 1 { return [.deadLetter(row: rows[0], reason: deadLetterReason)] }
        guard rows.count > 1 else { return [] }
        let middle = rows.count / 2
        isolationStack.append(Array(rows[middle...]))
        isolationStack.append(Array(rows[..<middle]))
        return []
    }

    private mutating func finishIsolationStep(_ rows: [Int64]) {
        if let last = isolationStack.last, last == rows { isolationStack.removeLast() }
    }
}
