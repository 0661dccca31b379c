import FootprintWire

/// The writes: the INSERTs of a group of batches and the writer's check of its copies.
extension ClickHouseSQL {
    /// Inserts `RowBinary` rows (``ClickHouseRows``) of ``eventColumns`` through the `Distributed` table.
    var insertEvents: String {
        "INSERT INTO \(database).\(tables.events) (\(Self.eventColumnNames)) FORMAT RowBinary"
    }

    /// Inserts identity links (`project_id, anonymous_id, user_id, first_seen`).
    var insertIdentities: String { "INSERT INTO \(database).\(tables.identities) FORMAT RowBinary" }

    /// Inserts a batch's evicted-event count (`project_id, batch_key, count, received_at, keep`).
    var insertLostEvents: String { "INSERT INTO \(database).\(tables.lostEvents) FORMAT RowBinary" }

    /// Inserts records of redundant copies (`project_id, device, message_id, sequence, user_id,
    /// time`: the copy's own device, user id and time, so that deleting a person's or an old
    /// day's events deletes their records by the same conditions).
    var insertDuplicateCopies: String {
        "INSERT INTO \(database).\(tables.duplicateCopies) FORMAT RowBinary"
    }

    /// The messages among `messages` (each a device and a message id) stored more than once in
    /// a project: `device, message_id`. The first half of the writer's check after its INSERT,
    /// whose answer is small: a message stored once (nearly all of them) is not in it.
    func copiedMessages(projectId: Int64, of messages: some Collection<Message>) -> ClickHouseQuery<Message> {
        var query = ClickHouseQuery<Message>(
            """
            SELECT device, message_id FROM \(database).\(tables.events)
            \(Self.checkedHashes)
            WHERE project_id = \(projectId) AND (device, message_id) IN \(Self.checkedMessages.name)
            GROUP BY device, message_id HAVING count() > 1
            """, fields: 2
        ) { row throws(ServerError) in
            Message(device: row.string(0), messageId: row.string(1))
        }
        query.external = [Self.checkedMessages(messages)]
        return query
    }

    /// Every stored copy of `messages` in a project: `device, message_id, sequence, user_id,
    /// time`. The second half of the writer's check (of the messages ``copiedMessages(projectId:of:)``
    /// found), and a shipper's check of a segment that may be stored in part.
    func storedCopies(projectId: Int64, of messages: some Collection<Message>)
        -> ClickHouseQuery<(fields: [Substring], sequence: UInt64)>
    {
        var query = ClickHouseQuery<(fields: [Substring], sequence: UInt64)>(
            """
            SELECT device, message_id, sequence, user_id, time FROM \(database).\(tables.events)
            \(Self.checkedHashes)
            WHERE project_id = \(projectId) AND (device, message_id) IN \(Self.checkedMessages.name)
            """, fields: 5
        ) { row throws(ServerError) in
            (fields: row.fields, sequence: try row.uint64(2))
        }
        query.external = [Self.checkedMessages(messages)]
        return query
    }

    /// The copies of `messages` in a project recorded as redundant in `duplicate_copies`
    /// (``UnsettledInserts``, a first copy that vanished).
    func recordedCopies(projectId: Int64, of messages: some Collection<Message>)
        -> ClickHouseQuery<ClickHouseEventStore.StoredCopy>
    {
        var query = ClickHouseQuery(
            """
            SELECT device, message_id, sequence FROM \(database).\(tables.duplicateCopies)
            WHERE project_id = \(projectId) AND (device, message_id) IN \(Self.checkedMessages.name)
            """, fields: 3
        ) { row throws(ServerError) in
            ClickHouseEventStore.StoredCopy(
                device: row.string(0), messageId: row.string(1), sequence: try row.uint64(2))
        }
        query.external = [Self.checkedMessages(messages)]
        return query
    }

    /// Removes the records of `copies` of a project as redundant from the shard's local table it
    /// runs on (a replicated mutation on replicated shards).
    func unrecordCopies(projectId: Int64, _ copies: [ClickHouseEventStore.StoredCopy]) -> String {
        let tuples = copies.map {
            "(\(ClickHouseFormat.literal($0.device)), \(ClickHouseFormat.literal($0.messageId)), \($0.sequence))"
        }
        return """
            ALTER TABLE \(database).duplicate_copies_local DELETE
            WHERE project_id = \(projectId) AND (device, message_id, sequence) IN (\(tuples.joined(separator: ", ")))
            """
    }

    /// The copy check's first filter: the rows whose ``messageHash`` is one of the checked
    /// messages', read as one 8-byte column before the two text columns (on 18.16 the check reads
    /// every row of the project either way: the `IN` set does not narrow the key's ranges).
    static let checkedHashes =
        "PREWHERE \(messageHash.name) IN (SELECT cityHash64(device, message_id) FROM \(checkedMessages.name))"

    /// A message: its device (the anonymous id, `''` for none) and id.
    struct Message: Hashable, Sendable {
        var device: String
        var messageId: String
    }

    /// The table of messages a copy check sends along with its statement (external data), so
    /// that the statement's length and syntax tree do not grow with them.
    static let checkedMessages = (name: "checked_messages", structure: "device String, message_id String")

    /// `messages` as the table ``checkedMessages``.
    static func checkedMessages(_ messages: some Collection<Message>) -> ClickHouseExternalTable {
        var rows = ClickHouseRowBinary(capacity: messages.count * 80)
        for message in messages {
            rows.append(message.device)
            rows.append(message.messageId)
        }
        return ClickHouseExternalTable(
            name: checkedMessages.name, structure: checkedMessages.structure, rows: rows)
    }

    /// The kind of an INSERT's mark among an event's contributions (``UnsettledInserts``): the
    /// first event of each device in an INSERT carries one, keyed by the INSERT's mark (its first
    /// event's sequence) with role 1, so that `daily_counts`' view adds a row of that kind to the
    /// same part as the INSERT's daily counts. Every read of the contributions with role 1 and of
    /// `daily_counts` leaves it out; no ``RollupKind`` has it.
    static let insertMarkKind = 254

    /// The marks among `marks` that a project's rows of `daily_counts` hold (on one replica,
    /// with ``Tables/local``): the INSERTs whose daily counts that replica took.
    func insertMarks(projectId: Int64, among marks: some Collection<UInt64>) -> ClickHouseQuery<UInt64> {
        let keys = marks.isEmpty ? "''" : marks.map { "'\($0)'" }.sorted().joined(separator: ", ")
        return ClickHouseQuery(
            """
            SELECT DISTINCT key FROM \(database).\(tables.dailyCounts)
            WHERE project_id = \(projectId) AND kind = \(Self.insertMarkKind) AND key IN (\(keys))
            """, fields: 1
        ) { row throws(ServerError) in try row.uint64(0) }
    }

    /// The replicated tables of the database as the replica it is sent to reports them, for
    /// ``ReplicationWait`` (its log entries read from ZooKeeper).
    var replicatedTables: ClickHouseQuery<ReplicationWait.Table> {
        ClickHouseQuery(
            """
            SELECT table, log_max_index, log_pointer, is_readonly OR is_session_expired, absolute_delay
            FROM system.replicas WHERE database = \(ClickHouseFormat.literal(database))
            """, fields: 5
        ) { row throws(ServerError) in
            ReplicationWait.Table(
                name: row.string(0), logMaxIndex: try row.uint64(1), logPointer: try row.uint64(2),
                readOnly: try row.uint64(3) != 0, absoluteDelay: try row.uint64(4))
        }
    }

    /// The parts of the database's tables that the replica it is sent to has yet to fetch, as
    /// (table, part), for ``ReplicationWait``: those logged at `since` (seconds since 1970, by
    /// the clock of the replica that logged them) or later.
    func partsToFetch(since: Int64) -> ClickHouseQuery<(table: String, part: String)> {
        ClickHouseQuery(
            """
            SELECT table, new_part_name FROM system.replication_queue
            WHERE database = \(ClickHouseFormat.literal(database)) AND type = 'GET_PART'
                AND create_time >= toDateTime(\(max(0, since)))
            """, fields: 2
        ) { row throws(ServerError) in (row.string(0), row.string(1)) }
    }

    /// The queries among `ids` (`query_id`s) that the server it is sent to runs, for itself or
    /// for another server (`initial_query_id`: a `Distributed` INSERT's part on a shard).
    func runningQueries(among ids: some Collection<String>) -> ClickHouseQuery<String> {
        let list = ids.isEmpty ? "''" : ids.map(ClickHouseFormat.literal).sorted().joined(separator: ", ")
        return ClickHouseQuery(
            "SELECT DISTINCT initial_query_id FROM system.processes WHERE initial_query_id IN (\(list))",
            fields: 1
        ) { row throws(ServerError) in row.string(0) }
    }

    /// Adds to one shard's `daily_counts_local` the daily counts of `copies` of a project (the
    /// stored events of an INSERT cut before its daily counts, ``UnsettledInserts``), from that
    /// shard's `events_local`: run on a replica of the shard, with ``repairedCopies(_:)`` sent
    /// along. One INSERT, so its part holds the mark's row with the counts.
    func repairDailyCounts(projectId: Int64) -> String {
        let copies = Self.repairedCopies.name
        return "INSERT INTO \(database).daily_counts_local\n"
            + Self.dailyCounts(
                of: "\(database).events_local",
                rows: [
                    "project_id = \(projectId)",
                    "\(Self.messageHash.name) IN (SELECT cityHash64(device, message_id) FROM \(copies))",
                    "(device, message_id, sequence) IN \(copies)",
                ])
    }

    /// The table of copies a repair sends along with its statement (external data).
    static let repairedCopies = (
        name: "repaired_copies", structure: "device String, message_id String, sequence UInt64"
    )

    /// `copies` as the table ``repairedCopies``.
    static func repairedCopies(_ copies: [ClickHouseEventStore.StoredCopy]) -> ClickHouseExternalTable {
        var rows = ClickHouseRowBinary(capacity: copies.count * 88)
        for copy in copies {
            rows.append(copy.device)
            rows.append(copy.messageId)
            rows.append(copy.sequence)
        }
        return ClickHouseExternalTable(
            name: repairedCopies.name, structure: repairedCopies.structure, rows: rows)
    }

    /// The records of redundant copies a project holds (tests and the benchmarks read it).
    func redundantCopies(projectId: Int64) -> ClickHouseQuery<Int64> {
        ClickHouseQuery.number(
            "SELECT count() FROM \(database).\(tables.duplicateCopies) WHERE project_id = \(projectId)"
        )
    }
}
