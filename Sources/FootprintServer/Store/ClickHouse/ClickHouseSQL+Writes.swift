import FootprintWire

/// The writes: the INSERTs of a group of batches and the writer's check of its copies.
extension ClickHouseSQL {
    /// Inserts `RowBinary` rows (``ClickHouseRows``) of ``eventColumns`` through the `Distributed` table.
    var insertEvents: String { "INSERT INTO \(database).\(tables.events) FORMAT RowBinary" }

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

    /// Every stored copy of the messages of these devices among `messageIds` in a project:
    /// `device, message_id, sequence, user_id, time`. The writer's check after its INSERT.
    func storedCopies(projectId: Int64, devices: Set<String>, messageIds: Set<String>)
        -> ClickHouseQuery<(fields: [Substring], sequence: UInt64)>
    {
        ClickHouseQuery(
            """
            SELECT device, message_id, sequence, user_id, time FROM \(database).\(tables.events)
            WHERE project_id = \(projectId) AND device IN (\(Self.list(devices)))
                AND message_id IN (\(Self.list(messageIds)))
            """, fields: 5
        ) { row throws(ServerError) in
            (row.fields, try row.uint64(2))
        }
    }

    /// The records of redundant copies a project holds (tests and the benchmarks read it).
    func redundantCopies(projectId: Int64) -> ClickHouseQuery<Int64> {
        ClickHouseQuery.number(
            "SELECT count() FROM \(database).\(tables.duplicateCopies) WHERE project_id = \(projectId)"
        )
    }
}
