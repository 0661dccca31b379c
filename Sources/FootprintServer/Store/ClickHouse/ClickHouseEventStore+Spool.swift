import FootprintWire
import Foundation

/// The write-ahead spool (``Configuration/spoolDirectory``): groups acknowledged once fsynced
/// in the collector's ``ClickHouseSpool``, shipped in bulk by a thread of their own.
extension ClickHouseEventStore {
    /// A group's rows, as inserted or spooled: its events (first copy in the group wins; the
    /// ids of deleted people refused, each its own sequence), the accepted identity links and
    /// the evicted counts; and per batch, how many of its events it holds and which it refused.
    func record(of batches: [IngestBatch], deleted: DeletedIds) -> (
        record: SpoolRecord, batches: [(held: Int, refused: [Int])]
    ) {
        var seen: [Int64: Set<String>] = [:]
        var record = SpoolRecord(eventBytes: batches.reduce(0) { $0 + $1.events.count } * 512)
        var held: [(held: Int, refused: [Int])] = []
        // The group's mark (its first event's sequence), carried by each device's first event.
        var mark: UInt64?
        var marked: [Int64: Set<String>] = [:]
        for batch in batches {
            let receivedAt = batch.receivedAt.millisecondsSince1970
            let refused = deleted.refusedEvents(of: batch)
            let refusedSet = Set(refused)
            var count = 0
            for (index, event) in batch.events.enumerated() where !refusedSet.contains(index) {
                guard seen[batch.projectId, default: []].insert(event.messageId).inserted else { continue }
                let sequence = nextSequence()
                let groupMark = mark ?? sequence
                mark = groupMark
                let carries = marked[batch.projectId, default: []].insert(event.anonymousId ?? "").inserted
                record.appendEvent(
                    project: batch.projectId, receivedAt: receivedAt, userId: event.userId,
                    copy: StoredCopy(
                        device: event.anonymousId ?? "", messageId: event.messageId, sequence: sequence)
                ) {
                    ClickHouseRows.append(
                        event, project: batch.projectId, sequence: sequence,
                        insertMark: carries ? groupMark : nil,
                        to: &$0)
                }
                count += 1
            }
            for link in deleted.acceptedLinks(of: batch) {
                record.appendLink(
                    project: batch.projectId, receivedAt: receivedAt, anonymousId: link.anonymousId,
                    userId: link.userId
                ) {
                    ClickHouseRows.appendLink(
                        link, project: batch.projectId, firstSeen: batch.receivedAt, to: &$0)
                }
            }
            if batch.evictedCount > 0 {
                ClickHouseRows.appendLostEvents(
                    of: batch, keep: UInt64.max - nextSequence(), to: &record.lostRows)
                record.lostCount += 1
            }
            held.append((count, refused))
        }
        return (record, held)
    }

    /// Appends a group to the spool (one write, one `fdatasync`): each event not refused and not
    /// a copy of one earlier in the group counts as stored; whether it is a copy of one in
    /// ClickHouse is decided at shipping.
    func commit(_ batches: [IngestBatch], to spool: ClickHouseSpool) -> Result<[WriteOutcome], ServerError> {
        do {
            let group = record(of: batches, deleted: try ledger.deletedIds())
            try spool.append(group.record.encoded, rows: group.record.rows)
            return .success(
                zip(batches, group.batches).map { batch, result in
                    WriteOutcome(
                        stored: result.held,
                        duplicates: batch.events.count - result.held - result.refused.count,
                        refused: result.refused)
                })
        } catch {
            return .failure(
                ServerError(code: error.code, message: "the batch could not be spooled: \(error.message)"))
        }
    }

    /// Ships every segment the spool holds now, the open one too; the first failure stops it.
    /// The store runs it when it opens (before the server listens) and when it closes; tests run
    /// it to see what a collector acknowledged.
    func shipHeldSegments() throws(ServerError) {
        guard let spool else { return }
        while let segment = spool.nextSegment(waiting: 0, force: true) {
            try ship(segment.id, from: spool)
        }
    }

    /// The shipper thread's loop: ships each segment as it is sealed; after a failure, waits a
    /// second and ships it again (reading first which of its events are stored).
    func runShipper(_ spool: ClickHouseSpool, stopped: LockedValue<Bool>) {
        while !stopped.withLock({ $0 }) {
            guard let segment = spool.nextSegment(waiting: 1) else { continue }
            do {
                try ship(segment.id, from: spool)
            } catch {
                usleep(1_000_000)
            }
        }
    }

    /// Ships one sealed segment: its events (the ids of people deleted since refused again; when
    /// it may be stored in part, the events already stored left out), links and evicted counts,
    /// one INSERT per table; then the copy check of its messages; then the `shipped` mark, and
    /// the segment is deleted. A failure marks it as possibly stored in part, before another
    /// shipping can start.
    func ship(_ id: UInt64, from spool: ClickHouseSpool) throws(ServerError) {
        shipping.lock()
        defer { shipping.unlock() }
        // Another shipping may have shipped it, or failed, since it was handed out.
        guard let segment = spool.sealedSegment(id) else { return }
        do {
            try ship(segment, from: spool)
        } catch {
            spool.shippingFailed(id)
            throw error
        }
    }

    /// Ships `segment` (``ship(_:from:)``, with the shipping lock held).
    private func ship(_ segment: SpoolState.Segment, from spool: ClickHouseSpool) throws(ServerError) {
        let records = try spool.payloads(of: segment.id).map { payload throws(ServerError) in
            try SpoolRecord(decoding: payload)
        }
        let deleted = try ledger.deletedIds()
        let stored = segment.mayBeStored ? try storedCopies(of: records.flatMap(\.events)) : []
        var eventRows = ClickHouseRowBinary(capacity: records.reduce(0) { $0 + $1.eventRows.bytes.count })
        var linkRows = ClickHouseRowBinary()
        var lostRows = ClickHouseRowBinary()
        var copies: [Int64: [StoredCopy]] = [:]
        for record in records {
            for (event, row) in record.eventsWithRows {
                let refused = deleted.refuses(
                    anonymousId: event.copy.device, userId: event.userId, project: event.project,
                    at: Timestamp(millisecondsSince1970: event.receivedAt))
                guard !refused else { continue }
                copies[event.project, default: []].append(event.copy)
                guard !stored.contains(event.copy) else { continue }
                eventRows.appendRaw(record.eventRows.bytes[row])
            }
            for (link, row) in record.linksWithRows
            where !deleted.refuses(
                anonymousId: link.anonymousId, userId: link.userId, project: link.project,
                at: Timestamp(millisecondsSince1970: link.receivedAt))
            {
                linkRows.appendRaw(record.linkRows.bytes[row])
            }
            lostRows.appendRaw(record.lostRows.bytes)
        }
        let query = insertQueryId(mark: records.first?.mark)
        let started = Date()
        do throws(ServerError) {
            try insert(sql.insertEvents, rows: eventRows, queryId: query)
            try insert(sql.insertIdentities, rows: linkRows)
            try insert(sql.insertLostEvents, rows: lostRows)
            try awaitReplicas(started: started)
            if configuration.spoolStopsBeforeMark {
                throw ServerError(code: .closed, message: "stopped before the shipped mark (a test)")
            }
            if configuration.checksCopies {
                for (project, projectCopies) in copies {
                    _ = try recordRedundantCopies(projectId: project, of: projectCopies)
                }
            }
        } catch {
            // The shipping again reads which events are stored, on the replica its INSERT goes
            // to: one that is down may hold some, and a shard may hold them cut from their
            // aggregates (see ``UnsettledInserts``).
            keepUnsettled(records, query: query)
            throw error
        }
        try spool.markShipped(segment.id)
    }

    /// Which of `events` are stored already (device, message id and sequence alike).
    private func storedCopies(of events: [SpoolRecord.Event]) throws(ServerError) -> Set<StoredCopy> {
        var stored: Set<StoredCopy> = []
        for (project, ofProject) in Dictionary(grouping: events, by: \.project) {
            for start in stride(from: 0, to: ofProject.count, by: Self.copiesPerCheck) {
                let slice = ofProject[start..<min(ofProject.count, start + Self.copiesPerCheck)].map(\.copy)
                let rows = try client.rows(
                    sql.storedCopies(projectId: project, of: Set(slice.map(\.message))),
                    timeout: configuration.writeTimeout)
                stored.formUnion(rows.map(StoredCopy.init))
            }
        }
        return stored
    }
}
