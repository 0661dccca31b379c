import FootprintWire

/// The deletions: a person's events, links, copies and aggregated rows, and retention's
/// deletion of old days.
extension ClickHouseSQL {
    /// The condition on events that selects a person's (``PersonSelection``: its user id, or
    /// one of its anonymous ids on events without a user id).
    static func personCondition(person: String, anonymousIds: Set<String>) -> String {
        """
        (user_id = \(ClickHouseFormat.literal(person)) OR (ifNull(user_id, '') = '' AND device IN (\(list(anonymousIds)))))
        """
    }

    /// Deletes a person's events from one shard's local table (a mutation ClickHouse runs in the
    /// background; see ``pendingMutations``).
    func deletePersonEvents(projectId: Int64, person: String, anonymousIds: Set<String>) -> String {
        """
        ALTER TABLE \(database).events_local DELETE
        WHERE project_id = \(projectId) AND \(Self.personCondition(person: person, anonymousIds: anonymousIds))
        """
    }

    /// Deletes the records of a person's redundant copies from one shard's local table (by the
    /// copies' own device and user id, so the records of exactly the deleted copies go).
    func deletePersonCopies(projectId: Int64, person: String, anonymousIds: Set<String>) -> String {
        """
        ALTER TABLE \(database).duplicate_copies_local DELETE
        WHERE project_id = \(projectId) AND \(Self.personCondition(person: person, anonymousIds: anonymousIds))
        """
    }

    /// Takes a person's events out of one shard's `daily_counts_local` (which has no person to
    /// delete by): adds the negated counts of every stored copy of them, the redundant ones too
    /// (their records are deleted with them). Runs before the events are deleted.
    func negativeCounts(projectId: Int64, person: String, anonymousIds: Set<String>) -> String {
        let rows = [
            "project_id = \(projectId)", Self.personCondition(person: person, anonymousIds: anonymousIds),
        ]
        return """
            INSERT INTO \(database).daily_counts_local
            \(Self.dailyCounts(of: "\(database).events_local", rows: rows, sign: -1))
            """
    }

    /// The days, kinds and keys of a person's element clicks, from its stored events (every copy,
    /// read before they go): the `element_texts` rows its deletion builds anew. From the events,
    /// not the person rows, whose view may have missed an INSERT that `element_texts`' did not.
    func personClickGroups(projectId: Int64, person: String, anonymousIds: Set<String>)
        -> ClickHouseQuery<(kind: RollupKind, key: String, day: Int64)>
    {
        let rows = [
            "project_id = \(projectId)", Self.personCondition(person: person, anonymousIds: anonymousIds),
        ]
        let sql = """
            SELECT kind, key, day
            \(contributions(rows: rows, items: ["kind IN (2, 3)"], role: 2))
            GROUP BY kind, key, day
            """
        return ClickHouseQuery(sql, fields: 3) { row throws(ServerError) in
            (try row.kind(0), row.string(1), try row.int64(2))
        }
    }

    /// Some of a person's click groups (``personClickGroups(projectId:person:anonymousIds:)``):
    /// the rows of these days with one of these kinds and keys, which hold theirs.
    struct ClickGroups {
        var days: Set<Int64>
        var keys: [(RollupKind, String)]

        /// The condition on a row's day.
        var dayCondition: String { "day IN (\(days.sorted().map(String.init).joined(separator: ", ")))" }

        /// The condition on a row's day, kind and key.
        var condition: String { "\(dayCondition) AND \(ClickHouseSQL.keys(keys))" }
    }

    /// Deletes `groups`' rows of one shard's `element_texts` (before
    /// ``rebuildElementTexts(projectId:groups:)`` builds them anew): the texts have no person to
    /// delete by, and the greatest text cannot be taken back like a count.
    func deleteElementTexts(projectId: Int64, groups: ClickGroups) -> String {
        "ALTER TABLE \(database).element_texts_local DELETE WHERE project_id = \(projectId) AND \(groups.condition)"
    }

    /// Builds `groups`' rows of one shard's `element_texts` from the events it holds, once the
    /// person's events and those rows are gone. An event inserted meanwhile may be taken twice,
    /// by its view and by this: the greatest text is the same.
    func rebuildElementTexts(projectId: Int64, groups: ClickGroups) -> String {
        """
        INSERT INTO \(database).element_texts_local
        \(Self.elementTexts(of: "\(database).events_local", rows: ["project_id = \(projectId)", groups.dayCondition], items: [Self.keys(groups.keys)]))
        """
    }

    /// Deletes a person's rows from one shard's aggregate tables that have a person
    /// (``Aggregate/byPerson``), by the events' own condition.
    func deletePersonAggregates(projectId: Int64, person: String, anonymousIds: Set<String>) -> [String] {
        aggregates.filter(\.byPerson).map {
            """
            ALTER TABLE \(database).\($0.name)_local DELETE
            WHERE project_id = \(projectId) AND \(Self.personCondition(person: person, anonymousIds: anonymousIds))
            """
        }
    }

    /// Deletes the identity links of a person or its anonymous ids from one shard's local table,
    /// and its anonymous ids from the links written since a round (`touched_links`).
    func deletePersonLinks(projectId: Int64, person: String, anonymousIds: Set<String>) -> [String] {
        [
            """
            ALTER TABLE \(database).identities_local DELETE
            WHERE project_id = \(projectId)
                AND (user_id = \(ClickHouseFormat.literal(person)) OR anonymous_id IN (\(Self.list(anonymousIds))))
            """,
            """
            ALTER TABLE \(database).touched_links_local DELETE
            WHERE project_id = \(projectId) AND anonymous_id IN (\(Self.list(anonymousIds)))
            """,
        ]
    }

    /// The stored events of a project before `time` (ms since 1970).
    func eventsBefore(projectId: Int64, time: Int64) -> ClickHouseQuery<Int64> {
        ClickHouseQuery.number(countedEvents(projectId: projectId, conditions: ["time < \(time)"]))
    }

    /// Deletes a project's events before `time` from one shard's local table (retention).
    func deleteEventsBefore(projectId: Int64, time: Int64) -> String {
        "ALTER TABLE \(database).events_local DELETE WHERE project_id = \(projectId) AND time < \(time)"
    }

    /// Deletes a project's aggregated rows of the days before `day` from one shard's aggregate
    /// tables (retention deletes whole days: the events before the first moment of `day`). A table
    /// by 64-day block (``Aggregate/byBlock``) loses every block with a day before `day`, the
    /// horizon's own block too when `day` is not its first: ``rebuildHorizonBlock(projectId:day:)``
    /// builds that one anew from the events left.
    func deleteAggregatesBefore(projectId: Int64, day: Int64) -> [String] {
        aggregates.map {
            let rows = $0.byBlock ? "day_block < \(Self.blocksBefore(day))" : "day < \(day)"
            return
                "ALTER TABLE \(database).\($0.name)_local DELETE WHERE project_id = \(projectId) AND \(rows)"
        }
    }

    /// The number of the first 64-day block with no day before `day`.
    static func blocksBefore(_ day: Int64) -> Int64 { (day &+ 63) >> 6 }

    /// Builds the `person_blocks` rows of the horizon's block on one shard from the events it
    /// still holds (after ``deleteAggregatesBefore(projectId:day:)`` and the events' deletion):
    /// `nil` when `day` is the first of its block, which then has nothing to rebuild. An event
    /// inserted meanwhile may be taken twice, by its view and by this: its day is OR-ed in twice,
    /// which changes nothing.
    func rebuildHorizonBlock(projectId: Int64, day: Int64) -> String? {
        guard day & 63 != 0 else { return nil }
        let rows = ["project_id = \(projectId)", "day_block = \(day >> 6)"]
        return """
            INSERT INTO \(database).person_blocks_local
            \(Self.personBlocks(of: "\(database).events_local", rows: rows))
            """
    }

    /// Deletes the records of a project's redundant copies before `time` from one shard's local
    /// table (each record carries its copy's time, so those of exactly the deleted copies go).
    func deleteCopiesBefore(projectId: Int64, time: Int64) -> String {
        "ALTER TABLE \(database).duplicate_copies_local DELETE WHERE project_id = \(projectId) AND time < \(time)"
    }

    /// The mutations of this database a shard has not finished.
    var pendingMutations: ClickHouseQuery<Int64> {
        ClickHouseQuery.number(
            "SELECT count() FROM system.mutations WHERE database = \(ClickHouseFormat.literal(database)) AND is_done = 0"
        )
    }
}
