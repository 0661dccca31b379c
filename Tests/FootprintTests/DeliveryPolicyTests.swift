import Testing

@testable import Footprint

struct DeliveryPolicyTests {
    let now = Timestamp(millisecondsSince1970: 1_795_981_800_000)
    var random = SeededRandom(seed: 7)
    var policy = DeliveryPolicy(
        batchLimit: 100, minimumDelayMilliseconds: 1000, maximumDelayMilliseconds: 300_000)

    @Test func startsBySendingTheOldestEvents() {
        #expect(policy.nextStep(now: now) == .send(.oldest(limit: 100)))
    }

    @Test mutating func successDeletesTheBatch() {
        let effects = policy.record(.accepted(rejected: [:]), for: [1, 2, 3], now: now, random: &random)
        #expect(effects == [.delete([1, 2, 3])])
        #expect(policy.nextStep(now: now) == .send(.oldest(limit: 100)))
    }

    @Test mutating func eventsRejectedInsideASuccessAreDeadLetteredNotResent() {
        let effects = policy.record(
            .accepted(rejected: [2: "string_too_long"]), for: [1, 2, 3], now: now, random: &random)
        #expect(effects == [.deadLetter(row: 2, reason: "string_too_long"), .delete([1, 3])])
        #expect(policy.nextStep(now: now) == .send(.oldest(limit: 100)))
    }

    @Test(arguments: [400, 422]) mutating func badRequestSplitsTheBatchInHalves(status: Int) {
        let effects = policy.record(
            .badRequest(status: status, reason: "bad"), for: [1, 2, 3, 4], now: now, random: &random)
        #expect(effects.isEmpty)
        #expect(policy.nextStep(now: now) == .send(.rows([1, 2])))
        // The good half goes through; then the other half is tried.
        let first = policy.record(.accepted(rejected: [:]), for: [1, 2], now: now, random: &random)
        #expect(first == [.delete([1, 2])])
        #expect(policy.nextStep(now: now) == .send(.rows([3, 4])))
        // The bad half is split again, down to the single bad event.
        _ = policy.record(.badRequest(status: status, reason: "bad"), for: [3, 4], now: now, random: &random)
        #expect(policy.nextStep(now: now) == .send(.rows([3])))
        let third = policy.record(.accepted(rejected: [:]), for: [3], now: now, random: &random)
        #expect(third == [.delete([3])])
        #expect(policy.nextStep(now: now) == .send(.rows([4])))
        let last = policy.record(
            .badRequest(status: status, reason: "bad"), for: [4], now: now, random: &random)
        #expect(last == [.deadLetter(row: 4, reason: "HTTP \(status): bad")])
        #expect(policy.nextStep(now: now) == .send(.oldest(limit: 100)))
        #expect(policy.consecutiveFailures == 0)
    }

    @Test mutating func payloadTooLargeHalvesTheBatchSize() {
        _ = policy.record(.payloadTooLarge, for: Array(1...100), now: now, random: &random)
        #expect(policy.batchLimit == 50)
        _ = policy.record(.payloadTooLarge, for: Array(1...50), now: now, random: &random)
        #expect(policy.batchLimit == 25)
        #expect(policy.retryAt == nil)
    }

    @Test mutating func payloadTooLargeWhileIsolatingSplitsTheHalfAgain() {
        _ = policy.record(
            .badRequest(status: 400, reason: "x"), for: [1, 2, 3, 4], now: now, random: &random)
        _ = policy.record(.payloadTooLarge, for: [1, 2], now: now, random: &random)
        #expect(policy.nextStep(now: now) == .send(.rows([1])))
        #expect(policy.isolationStack == [[3, 4], [2], [1]])
    }

    @Test mutating func payloadTooLargeForOneEventDeadLettersIt() {
        var small = DeliveryPolicy(
            batchLimit: 1, minimumDelayMilliseconds: 1000, maximumDelayMilliseconds: 300_000)
        let effects = small.record(.payloadTooLarge, for: [9], now: now, random: &random)
        #expect(effects.count == 1)
        #expect(small.batchLimit == 1)
    }

    @Test(arguments: [401, 403]) mutating func refusedCredentialsStopSendingAndKeepEvents(status: Int) {
        let effects = policy.record(.unauthorized(status: status), for: [1, 2], now: now, random: &random)
        #expect(effects.isEmpty)
        #expect(policy.nextStep(now: now.adding(milliseconds: 86_400_000)) == .halted)
        policy.resume()
        #expect(policy.nextStep(now: now) == .send(.oldest(limit: 100)))
    }

    @Test(arguments: [408, 429, 500, 502, 503, 504, nil] as [Int?])
    mutating func retryableFailuresBackOffAndKeepEvents(status: Int?) {
        let effects = policy.record(
            .retryable(status: status, retryAfterMilliseconds: nil), for: [1], now: now, random: &random)
        #expect(effects.isEmpty)
        let retryAt = try! #require(policy.retryAt)
        #expect(retryAt.millisecondsSince1970 - now.millisecondsSince1970 == 1000)
        #expect(policy.nextStep(now: now) == .wait(until: retryAt))
        #expect(policy.nextStep(now: retryAt) == .send(.oldest(limit: 100)))
    }

    @Test mutating func backoffGrowsExponentiallyWithFullJitterUpToTheMaximum() {
        var ceilings: [Int64] = []
        for failure in 1...15 {
            _ = policy.record(
                .retryable(status: 503, retryAfterMilliseconds: nil), for: [1], now: now, random: &random)
            let delay = policy.retryAt!.millisecondsSince1970 - now.millisecondsSince1970
            let ceiling = min(300_000, Int64(1000) << Int64(failure - 1))
            #expect(delay >= 1000 && delay <= ceiling)
            ceilings.append(delay)
        }
        #expect(ceilings.last! <= 300_000)
        // Success resets the backoff.
        _ = policy.record(.accepted(rejected: [:]), for: [1], now: now, random: &random)
        #expect(policy.consecutiveFailures == 0 && policy.retryAt == nil)
    }

    @Test mutating func jitterSpreadsDelays() {
        var delays: Set<Int64> = []
        for seed in 0..<50 {
            var local = DeliveryPolicy(
                batchLimit: 100, minimumDelayMilliseconds: 1000, maximumDelayMilliseconds: 300_000)
            var generator = SeededRandom(seed: UInt64(seed))
            for _ in 0..<5 {
                _ = local.record(
                    .retryable(status: 500, retryAfterMilliseconds: nil), for: [1], now: now,
                    random: &generator)
            }
            delays.insert(local.retryAt!.millisecondsSince1970)
        }
        #expect(delays.count > 40)
    }

    @Test mutating func retryAfterIsHonoured() {
        _ = policy.record(
            .retryable(status: 429, retryAfterMilliseconds: 120_000), for: [1], now: now, random: &random)
        #expect(policy.retryAt == now.adding(milliseconds: 120_000))
        // An absurd Retry-After is capped at an hour.
        _ = policy.record(
            .retryable(status: 429, retryAfterMilliseconds: 86_400_000), for: [1], now: now, random: &random)
        #expect(policy.retryAt == now.adding(milliseconds: 3_600_000))
    }

    @Test mutating func networkFailureDuringIsolationRetriesTheSameHalf() {
        _ = policy.record(.badRequest(status: 400, reason: "x"), for: [1, 2], now: now, random: &random)
        _ = policy.record(
            .retryable(status: nil, retryAfterMilliseconds: nil), for: [1], now: now, random: &random)
        #expect(policy.nextStep(now: policy.retryAt!) == .send(.rows([1])))
    }

    @Test mutating func vanishedRowsAreForgotten() {
        _ = policy.record(.badRequest(status: 400, reason: "x"), for: [1, 2], now: now, random: &random)
        policy.discard([1])
        #expect(policy.nextStep(now: now) == .send(.rows([2])))
    }

    /// Property: whatever the responses, no event is both deleted and dead-lettered, and an event
    /// leaves the queue only through a 2xx or as a single-event dead letter.
    @Test(arguments: 0..<30) func randomResponsesNeverLoseEventsSilently(seed: Int) {
        var generator = SeededRandom(seed: UInt64(seed))
        var policy = DeliveryPolicy(
            batchLimit: 16, minimumDelayMilliseconds: 10, maximumDelayMilliseconds: 1000)
        var queue = Array(Int64(1)...64)
        var delivered: Set<Int64> = []
        var deadLettered: Set<Int64> = []
        var time = now
        for _ in 0..<500 {
            guard !queue.isEmpty else { break }
            let rows: [Int64]
            switch policy.nextStep(now: time) {
            case .halted:
                policy.resume()
                continue
            case .wait(let until):
                time = until
                continue
            case .send(.oldest(let limit)): rows = Array(queue.prefix(limit))
            case .send(.rows(let selected)): rows = selected.filter(queue.contains)
            }
            let outcome: DeliveryOutcome
            switch Int.random(in: 0..<6, using: &generator) {
            case 0: outcome = .accepted(rejected: [:])
            case 1: outcome = .badRequest(status: 400, reason: "x")
            case 2: outcome = .payloadTooLarge
            case 3: outcome = .unauthorized(status: 401)
            case 4: outcome = .retryable(status: 503, retryAfterMilliseconds: nil)
            default: outcome = rows.isEmpty ? .accepted(rejected: [:]) : .accepted(rejected: [rows[0]: "bad"])
            }
            for effect in policy.record(outcome, for: rows, now: time, random: &generator) {
                switch effect {
                case .delete(let gone):
                    #expect(outcome != .badRequest(status: 400, reason: "x"))
                    delivered.formUnion(gone)
                    queue.removeAll(where: gone.contains)
                case .deadLetter(let row, _):
                    if case .accepted = outcome {} else { #expect(rows.count == 1) }
                    deadLettered.insert(row)
                    queue.removeAll { $0 == row }
                }
            }
        }
        #expect(delivered.isDisjoint(with: deadLettered))
        #expect(delivered.count + deadLettered.count + queue.count == 64)
    }
}
