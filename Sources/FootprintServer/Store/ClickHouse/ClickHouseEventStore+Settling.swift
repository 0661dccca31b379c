import Foundation

/// INSERTs that failed after they were sent, checked again once settled (``UnsettledInserts``):
/// a copy a replica took just before it died reaches its twin only when it returns, after the
/// resend's copy check ran on the twin without it; and a shard may hold the events of an INSERT
/// cut before some of its aggregate rows.
extension ClickHouseEventStore {
    /// What this store's writes came to so far, for `/metrics`.
    public var writeReading: ClickHouseWriteReading {
        let (kept, givenUp, repaired) = unsettled.withLock { ($0.count, $0.givenUp, $0.repaired) }
        let (passedOver, timeouts) = replication.withLock { ($0.passedOver, $0.timeouts) }
        return ClickHouseWriteReading(
            kept: kept, givenUp: givenUp, repaired: repaired, replicasPassedOver: passedOver,
            replicationTimeouts: timeouts, tiedMessages: tiedMessages.withLock { $0 })
    }

    /// Keeps the events of `records`, whose INSERT with `query` as its `query_id` failed after
    /// it was sent, for a check once settled.
    func keepUnsettled(_ records: [SpoolRecord], query: String) {
        guard configuration.checksCopies else { return }
        let now = Date().timeIntervalSince1970
        unsettled.withLock { kept in
            for record in records {
                guard let mark = record.mark else { continue }
                for (project, ofProject) in Dictionary(grouping: record.events, by: \.project) {
                    kept.add(ofProject.map(\.copy), projectId: project, mark: mark, query: query, now: now)
                }
            }
        }
        settlerWake.signal()
    }

    /// A new `query_id` for an INSERT of events whose first group has `mark`: unique among this
    /// store's INSERTs (a spool segment shipped again gets another).
    func insertQueryId(mark: UInt64?) -> String {
        "footprint-insert-\(mark ?? 0)-\(UInt64.random(in: 0...UInt64.max))"
    }

    /// Reads what every replica of every shard holds of the due unsettled INSERTs (whole
    /// INSERTs, about ``copiesPerCheck`` copies per project): every copy of their messages and
    /// which of their marks its `daily_counts` holds. For the settled ones
    /// (``UnsettledInserts/settlement(of:answers:)``): records every copy after the first stored
    /// as redundant, as the copy check does; adds the daily counts of the stored events of an
    /// INSERT a shard holds without its mark (on one replica of that shard); records the devices
    /// of their stored events as suspect; then forgets them. A failure leaves them for the next
    /// check, which finds what this one did (a repair's part holds the mark). The settling
    /// thread runs it every ``Configuration/settleInterval`` while INSERTs are kept.
    func settleUnsettledInserts() throws(ServerError) {
        let due = unsettled.withLock { $0.due(limit: Self.copiesPerCheck) }
        var local = sql
        local.tables = .local
        for (project, inserts) in due {
            let messages = inserts.reduce(into: Set()) { $0.formUnion($1.messages) }
            let copies = local.storedCopies(projectId: project, of: messages)
            let recorded = local.recordedCopies(projectId: project, of: messages)
            let marks = local.insertMarks(projectId: project, among: inserts.map(\.mark))
            let running = local.runningQueries(among: Set(inserts.map(\.query)))
            let answers = location.replicaSets.map { replicas in
                replicas.map { replica -> UnsettledInserts.Answer? in
                    // The queries first: one that ends after the copies are read is not settled.
                    guard
                        let queries = try? client.rows(
                            running, on: replica, timeout: configuration.writeTimeout),
                        let held = try? client.rows(copies, on: replica, timeout: configuration.writeTimeout),
                        let found = try? client.rows(marks, on: replica, timeout: configuration.writeTimeout),
                        let records = try? client.rows(
                            recorded, on: replica, timeout: configuration.writeTimeout)
                    else { return nil }
                    return UnsettledInserts.Answer(
                        copies: held, marks: Set(found), running: Set(queries), recorded: Set(records))
                }
            }
            let settlement = UnsettledInserts.settlement(of: inserts, answers: answers)
            guard !settlement.settled.isEmpty else { continue }
            _ = try recordRedundantCopies(projectId: project, among: settlement.copies)
            for unrecorded in settlement.unrecorded {
                try onFirstReplica(of: location.replicaSets[unrecorded.shard]) {
                    replica throws(ServerError) in
                    _ = try client.execute(
                        sql.unrecordCopies(projectId: project, unrecorded.copies), on: replica,
                        timeout: configuration.writeTimeout)
                }
                try touchSessions(projectId: project, devices: Set(unrecorded.copies.map(\.device)))
            }
            for repair in settlement.repairs {
                try repairDailyCounts(
                    projectId: project, copies: repair.copies, shard: location.replicaSets[repair.shard])
            }
            var suspects = ClickHouseRowBinary()
            for copy in settlement.suspects {
                ClickHouseRows.appendSuspect(copy.fields, project: project, to: &suspects)
            }
            try insert(sql.insertDuplicateCopies, rows: suspects)
            try touchSessions(
                projectId: project,
                devices: Set(settlement.suspects.map { ClickHouseFormat.text($0.fields[0]) ?? "" }))
            unsettled.withLock {
                $0.settle(settlement.settled, projectId: project, repaired: settlement.repairs.count)
            }
        }
    }

    /// Adds the daily counts of `copies` of a project, stored on the shard of `replicas` and cut
    /// from them, on the first of `replicas` that takes the INSERT.
    private func repairDailyCounts(
        projectId: Int64, copies: [StoredCopy], shard replicas: [ClickHouseLocation.Node]
    ) throws(ServerError) {
        try onFirstReplica(of: replicas) { replica throws(ServerError) in
            _ = try client.execute(
                sql.repairDailyCounts(projectId: projectId), external: [ClickHouseSQL.repairedCopies(copies)],
                on: replica, timeout: configuration.writeTimeout)
        }
    }

    /// Runs `body` on the first of a shard's `replicas` where it succeeds (one replica's change
    /// is replicated to the others).
    private func onFirstReplica(
        of replicas: [ClickHouseLocation.Node], _ body: (ClickHouseLocation.Node) throws(ServerError) -> Void
    ) throws(ServerError) {
        var failure = ServerError(code: .unavailable, message: "no replica of the shard took the change")
        for replica in replicas {
            do throws(ServerError) {
                try body(replica)
                return
            } catch {
                failure = error
            }
        }
        throw failure
    }
}
