import Foundation

/// Messages whose INSERT failed after it was sent, checked again once settled
/// (``UnsettledMessages``): with replicas, a copy a replica took just before it died reaches its
/// twin only when it returns, after the resend's copy check ran on the twin without it.
extension ClickHouseEventStore {
    /// Messages kept for a check once settled, and those given up past the capacity.
    public var unsettledMessages: (kept: Int, givenUp: Int) {
        unsettled.withLock { ($0.count, $0.givenUp) }
    }

    /// Keeps the messages of `events` for a check once settled, when the shards have replicas
    /// (without, the resend goes to the very server that may hold a copy, and its check sees it).
    func keepUnsettled(_ events: [SpoolRecord.Event]) {
        guard location.isReplicated, configuration.checksCopies, !events.isEmpty else { return }
        let now = Date().timeIntervalSince1970
        unsettled.withLock { kept in
            for (project, ofProject) in Dictionary(grouping: events, by: \.project) {
                kept.add(ofProject.map(\.copy.message), projectId: project, now: now)
            }
        }
        settlerWake.signal()
    }

    /// Reads the copies of the unsettled messages (at most ``copiesPerCheck`` per project) on
    /// every replica of every shard; for the settled ones, records every copy after the first
    /// stored as redundant, as the copy check does, and forgets them. The settling thread runs
    /// it every ``Configuration/settleInterval`` while messages are kept.
    func settleUnsettledMessages() throws(ServerError) {
        let due = unsettled.withLock { $0.due(limit: Self.copiesPerCheck) }
        var local = sql
        local.tables = .local
        for (project, messages) in due {
            let query = local.storedCopies(projectId: project, of: messages)
            let answers = location.replicaSets.map { replicas in
                replicas.map { replica in
                    try? client.rows(query, on: replica, timeout: configuration.writeTimeout)
                }
            }
            let settlement = UnsettledMessages.settlement(of: Set(messages), answers: answers)
            guard !settlement.settled.isEmpty else { continue }
            _ = try recordRedundantCopies(projectId: project, among: settlement.copies)
            unsettled.withLock { $0.settle(settlement.settled, projectId: project) }
        }
    }
}
