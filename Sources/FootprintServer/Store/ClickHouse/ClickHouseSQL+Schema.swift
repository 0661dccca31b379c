import FootprintWire

/// The schema: the events table and its companions on each shard, the aggregate tables their
/// materialized views fill, and the `Distributed` tables over every shard's.
extension ClickHouseSQL {
    /// The columns of `events_local` and `events`, in the order ``ClickHouseRows`` writes them.
    ///
    /// Besides the message's columns, each row carries what the SQLite rollups derive from it,
    /// computed at insert by the same Swift code (`RollupDelta.contributions(of:)`,
    /// `SessionTimeline`): its kinds, keys and roles (bit 0 counted, bit 1 per person, bit 2
    /// timed for funnels), its day and 64-day block, its session key and its mark on the
    /// session's timeline (``SessionTimeline/MarkCode``). `sequence` grows with each stored event
    /// of a collector and differs between collectors (``ClickHouseEventStore/sequence(after:now:tag:)``).
    /// The table is a plain `MergeTree`: no merge removes a copy, so the counts the aggregate
    /// tables took from a redundant copy can always be taken back.
    static let eventColumns = """
        project_id Int64,
            device String,
            message_id String,
            sequence UInt64,
            type String,
            name Nullable(String),
            time Int64,
            day Int64,
            day_block Int64,
            day_bit UInt64,
            client_timestamp Int64,
            sent_at Nullable(Int64),
            received_at Int64,
            anonymous_id Nullable(String),
            user_id Nullable(String),
            session_id Nullable(String),
            page Nullable(String),
            element_path Nullable(String),
            similar_path Nullable(String),
            element_text Nullable(String),
            item_id Nullable(String),
            duration_ms Nullable(Int64),
            app_version Nullable(String),
            os Nullable(String),
            plan_event Nullable(String),
            payload String,
            kinds Array(UInt8),
            keys Array(String),
            roles Array(UInt8),
            session_key String,
            is_page_view UInt8,
            mark UInt8,
            mark_page String,
            mark_duration Int64
        """

    /// The names of ``eventColumns``, in order: the column list of every INSERT of events, which
    /// leaves ``messageHash`` to its default.
    static let eventColumnNames = eventColumns.split(separator: ",").compactMap {
        $0.split(whereSeparator: \.isWhitespace).first.map(String.init)
    }.joined(separator: ", ")

    /// A column of `events_local` and `events` after ``eventColumns``, which the shards compute on
    /// INSERT: equal on every copy of a message, 8 bytes, so that the copy check filters on it
    /// first (`PREWHERE`) and reads the two text columns only for the rows that pass
    /// (docs/BENCHMARKS.md). Tables made before it get it by `ALTER TABLE … ADD COLUMN`
    /// (``addMessageHash(to:)``); their older parts compute it when read.
    static let messageHash = (
        name: "message_hash", definition: "UInt64 DEFAULT cityHash64(device, message_id)"
    )

    /// Adds ``messageHash`` to `table` (`events_local` or `events`) of a database made before it.
    func addMessageHash(to table: String) -> String {
        "ALTER TABLE \(database).\(table) ADD COLUMN \(Self.messageHash.name) \(Self.messageHash.definition)"
    }

    /// Whether `table` of this database on one server has ``messageHash``: one row when it has.
    func hasMessageHash(_ table: String) -> String {
        """
        SELECT 1 FROM system.columns WHERE database = \(ClickHouseFormat.literal(database))
            AND table = \(ClickHouseFormat.literal(table)) AND name = '\(Self.messageHash.name)'
        """
    }

    /// The statements that create the database and the tables on one shard, in order: the local
    /// tables, the aggregate tables and their views, then the `Distributed` tables over every
    /// shard's local tables.
    var schema: [String] {
        localTables + aggregates.map(createTable) + aggregates.map(createView) + distributedTables
    }

    /// The statements that create the database and the local tables of one shard, aggregate tables
    /// apart.
    var localTables: [String] {
        let db = database
        return [
            "CREATE DATABASE IF NOT EXISTS \(db)",
            """
            CREATE TABLE IF NOT EXISTS \(db).events_local (
                \(Self.eventColumns), \(Self.messageHash.name) \(Self.messageHash.definition))
            ENGINE = \(engine("MergeTree", table: "events_local")) ORDER BY (project_id, device, message_id)
            """,
            """
            CREATE TABLE IF NOT EXISTS \(db).identities_local (
                project_id Int64, anonymous_id String, user_id String, first_seen Int64)
            ENGINE = \(engine("ReplacingMergeTree", table: "identities_local")) ORDER BY (project_id, anonymous_id, user_id)
            """,
            """
            CREATE TABLE IF NOT EXISTS \(db).lost_events_local (
                project_id Int64, batch_key String, count Int64, received_at Int64, keep UInt64)
            ENGINE = \(engine("ReplacingMergeTree", "keep", table: "lost_events_local")) ORDER BY (project_id, batch_key)
            """,
            """
            CREATE TABLE IF NOT EXISTS \(db).duplicate_copies_local (
                project_id Int64, device String, message_id String, sequence UInt64,
                user_id Nullable(String), time Int64)
            ENGINE = \(engine("ReplacingMergeTree", table: "duplicate_copies_local"))
            ORDER BY (project_id, device, message_id, sequence)
            """,
        ] + settledTables
    }

    /// The statements that create the `Distributed` tables of one shard, over every shard's
    /// local tables.
    var distributedTables: [String] {
        let db = database
        return [
            """
            CREATE TABLE IF NOT EXISTS \(db).events AS \(db).events_local
            ENGINE = Distributed(\(cluster), \(db), events_local, cityHash64(project_id, device))
            """,
            """
            CREATE TABLE IF NOT EXISTS \(db).identities AS \(db).identities_local
            ENGINE = Distributed(\(cluster), \(db), identities_local, cityHash64(project_id, anonymous_id))
            """,
            """
            CREATE TABLE IF NOT EXISTS \(db).lost_events AS \(db).lost_events_local
            ENGINE = Distributed(\(cluster), \(db), lost_events_local, cityHash64(project_id, batch_key))
            """,
            """
            CREATE TABLE IF NOT EXISTS \(db).duplicate_copies AS \(db).duplicate_copies_local
            ENGINE = Distributed(\(cluster), \(db), duplicate_copies_local, cityHash64(project_id, device))
            """,
        ]
            + settledDistributedTables
            + aggregates.map {
                """
                CREATE TABLE IF NOT EXISTS \(db).\($0.name) AS \(db).\($0.name)_local
                ENGINE = Distributed(\(cluster), \(db), \($0.name)_local, \($0.shardingKey))
                """
            }
    }

    /// A table each shard aggregates its events into as they are inserted: `NAME_local`, fed by
    /// the materialized view `NAME_mv` of `events_local`, and `NAME` over every shard's.
    struct Aggregate: Sendable {
        /// The table's name, without `_local`.
        var name: String
        /// Its columns.
        var columns: String
        /// Its engine's family (``ClickHouseSQL/engine(_:_:table:)`` makes the engine).
        var family: String
        /// Its sorting key.
        var orderBy: String
        /// The view's `SELECT` from `events_local`: the rows an INSERT of events adds.
        var select: String
        /// The `Distributed` table's sharding key (it is read, never written, through it).
        var shardingKey = "cityHash64(project_id, device)"
        /// Whether its rows carry the device and user id of their events (`device`, `user_id`),
        /// so that a person's deletion deletes them by the events' own condition and the reads
        /// can leave out the devices with a redundant copy.
        var byPerson = true
        /// Whether its rows are per 64-day block (`day_block`) rather than per day (`day`):
        /// retention then deletes the blocks before the horizon's and builds the horizon's block
        /// anew from the events left (``ClickHouseSQL/deleteAggregatesBefore(projectId:day:)``).
        var byBlock = false
        /// Whether its rows added twice count once (`person_blocks`: days OR-ed). A replicated
        /// database made before such a table gets it filled from its events; the others were
        /// all there before replicas were.
        var idempotent = false
        /// Whether a database made before the table gets it filled from its events
        /// (`touched_rows`, which holds only what came after the latest rounds, is not).
        var filled = true
        /// Its partitioning key, when it has one (`touched_rows`: by the hour of its rows'
        /// INSERT, so that old hours are dropped whole).
        var partitionBy: String?
    }

    /// The aggregate tables, their rows computed from the columns ``ClickHouseRows`` writes:
    /// - `daily_counts`: the daily counts per kind, key, page, app version and OS (the
    ///   contributions with role 1), as the SQLite rollups keep them;
    /// - `element_texts`: the last stored text of the element clicks per day, kind, key, page, app
    ///   version and OS (``elementTexts(of:rows:items:)``): what `person_days` keeps per person too, a
    ///   few thousand rows a month where the person rows are millions;
    /// - `person_days`: who did what on which day (role 2), per device, user id, page, app version
    ///   and OS, with the last stored element text;
    /// - `person_blocks`: the same people per 64-day block instead of per day, each row's days a
    ///   mask (`groupBitOr` of `day_bit`), with no page, app version or OS, and no page views
    ///   (``blockKinds``): the reads that count people by kind and key over a range of at most 64
    ///   days without those filters group a tenth of `person_days`' rows (``PersonRows``);
    /// - `step_times`: the times of the events funnel steps can be (role 4), per kind and key first;
    /// - `sessions`: per session, day, device and user id, the states of the session's start (its
    ///   earliest time and that event's day), end, page views, first stored event's app version
    ///   and OS, and marks (``sessionStates``), merged per session when read; sorted by day first,
    ///   so that a read of the sessions of a few days reads the marks of those days' parts of the
    ///   table (and of the other days' rows of the same sessions), not of every part;
    /// - `session_pages`: the same without marks per page too (a session's events on one page);
    /// - `touched_rows`: each INSERT's people rows of the settled kinds, with the shard's time,
    ///   which tell the settled people what came after a round (``touchedRows(of:)``);
    /// - `touched_sessions`: each INSERT's sessions and days, with the shard's time, which tell
    ///   the settled session figures what changed (``touchedSessions(of:)``).
    ///
    /// Every copy of an event is aggregated, redundant ones too: the reads take those back
    /// (``Copies``).
    var aggregates: [Aggregate] {
        let events = "\(database).events_local"
        return [
            Aggregate(
                name: "daily_counts",
                columns: """
                    project_id Int64, day Int64, kind UInt8, key String, page String, app_version String,
                        os String, count AggregateFunction(sum, Int64)
                    """,
                family: "AggregatingMergeTree", orderBy: "project_id, day, kind, key, page, app_version, os",
                select: Self.dailyCounts(of: events),
                shardingKey: "cityHash64(project_id, day)", byPerson: false),
            Aggregate(
                name: "element_texts",
                columns: """
                    project_id Int64, day Int64, kind UInt8, key String, page String, app_version String,
                        os String, last_text AggregateFunction(maxIf, Tuple(UInt64, String), UInt8)
                    """,
                family: "AggregatingMergeTree", orderBy: "project_id, day, kind, key, page, app_version, os",
                select: Self.elementTexts(of: events),
                shardingKey: "cityHash64(project_id, day)", byPerson: false, idempotent: true),
            Aggregate(
                name: "person_days",
                columns: """
                    project_id Int64, kind UInt8, key String, day Int64, device String, user_id String,
                        page String, app_version String, os String, day_block Int64, day_bit UInt64,
                        last_text AggregateFunction(maxIf, Tuple(UInt64, String), UInt8)
                    """,
                family: "AggregatingMergeTree",
                orderBy:
                    "project_id, kind, key, day, device, user_id, page, app_version, os, day_block, day_bit",
                select: """
                    SELECT project_id, kind, key, day, device, ifNull(user_id, '') AS user_id, \(Self.strings),
                        day_block, day_bit, \(Self.lastTextState) AS last_text
                    \(Self.contributions(of: events, role: 2))
                    GROUP BY project_id, kind, key, day, device, user_id, page, app_version, os, day_block, day_bit
                    """),
            Aggregate(
                name: "person_blocks",
                columns: """
                    project_id Int64, kind UInt8, key String, day_block Int64, device String, user_id String,
                        days AggregateFunction(groupBitOr, UInt64)
                    """,
                family: "AggregatingMergeTree", orderBy: "project_id, kind, key, day_block, device, user_id",
                select: Self.personBlocks(of: events), byBlock: true, idempotent: true),
            Aggregate(
                name: "step_times",
                columns: """
                    project_id Int64, kind UInt8, key String, day Int64, device String, user_id String,
                        page String, app_version String, os String, time Int64
                    """,
                family: "MergeTree", orderBy: "project_id, kind, key, day, device, user_id, page, time",
                select: """
                    SELECT project_id, kind, key, day, device, ifNull(user_id, '') AS user_id, \(Self.strings), time
                    \(Self.contributions(of: events, role: 4))
                    """),
            Aggregate(
                name: "sessions",
                columns: """
                    project_id Int64, session_key String, day Int64, device String, user_id String,
                        \(Self.sessionStateColumns(marks: true))
                    """,
                family: "AggregatingMergeTree", orderBy: "project_id, day, session_key, device, user_id",
                select: """
                    SELECT project_id, session_key, day, device, ifNull(user_id, '') AS user_id,
                        \(Self.sessionStateExpressions(marks: true))
                    FROM \(events)
                    GROUP BY project_id, session_key, day, device, user_id
                    """),
            Aggregate(
                name: "session_pages",
                columns: """
                    project_id Int64, page String, session_key String, day Int64, device String, user_id String,
                        \(Self.sessionStateColumns(marks: false))
                    """,
                family: "AggregatingMergeTree",
                orderBy: "project_id, page, session_key, day, device, user_id",
                select: """
                    SELECT project_id, ifNull(page, '') AS page, session_key, day, device,
                        ifNull(user_id, '') AS user_id, \(Self.sessionStateExpressions(marks: false))
                    FROM \(events)
                    GROUP BY project_id, page, session_key, day, device, user_id
                    """),
            Self.touchedRows(of: events),
            Self.touchedSessions(of: events),
        ]
    }

    /// Creates an aggregate table on one shard.
    func createTable(_ aggregate: Aggregate) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(database).\(aggregate.name)_local (\(aggregate.columns))
        ENGINE = \(engine(aggregate.family, table: aggregate.name + "_local"))\(aggregate.partitionBy.map { " PARTITION BY \($0)" } ?? "") ORDER BY (\(aggregate.orderBy))
        """
    }

    /// The engine of the local table `table` (one shard's): `family` (`MergeTree`,
    /// `ReplacingMergeTree`, `AggregatingMergeTree`) with `parameters`, or, when the shards have
    /// replicas (``replicated``), its `Replicated` twin, which keeps the shard's part list in
    /// ZooKeeper at `/clickhouse/tables/{shard}/DATABASE/TABLE` and names each server by its
    /// `{replica}` macro (both macros in each server's config). Every table of the schema takes
    /// its engine from here.
    func engine(_ family: String, _ parameters: String..., table: String) -> String {
        guard replicated else {
            return parameters.isEmpty ? family : "\(family)(\(parameters.joined(separator: ", ")))"
        }
        let path = ClickHouseFormat.literal("/clickhouse/tables/{shard}/\(database)/\(table)")
        return "Replicated\(family)(" + ([path, "'{replica}'"] + parameters).joined(separator: ", ") + ")"
    }

    /// Creates the materialized view that feeds an aggregate table of one shard.
    func createView(_ aggregate: Aggregate) -> String {
        """
        CREATE MATERIALIZED VIEW IF NOT EXISTS \(database).\(aggregate.name)_mv TO \(database).\(aggregate.name)_local AS
        \(aggregate.select)
        """
    }

    /// Drops an aggregate table of one shard (before it is filled again).
    func dropTable(_ aggregate: Aggregate) -> String {
        "DROP TABLE IF EXISTS \(database).\(aggregate.name)_local"
    }

    /// Fills an aggregate table of one shard from the events it holds (a database made before
    /// the table: see ``ClickHouseEventStore/createSchema()``).
    func fill(_ aggregate: Aggregate) -> String {
        "INSERT INTO \(database).\(aggregate.name)_local\n\(aggregate.select)"
    }

    /// The database's tables on the node that runs it: `name, 0` for each, and `name, rows` for
    /// each with rows in active parts (nothing when the database does not exist).
    var tablesOnNode: ClickHouseQuery<(name: String, rows: UInt64)> {
        let db = ClickHouseFormat.literal(database)
        let sql = """
            SELECT name, toUInt64(0) FROM system.tables WHERE database = \(db)
            UNION ALL
            SELECT table, sum(rows) FROM system.parts WHERE database = \(db) AND active GROUP BY table
            """
        return ClickHouseQuery(sql, fields: 2) { row throws(ServerError) in (row.string(0), try row.uint64(1))
        }
    }

    /// The sorting key of each table of the database on the node that runs it (`''` for one with
    /// none).
    var sortingKeys: ClickHouseQuery<(name: String, key: String)> {
        ClickHouseQuery(
            "SELECT name, sorting_key FROM system.tables WHERE database = \(ClickHouseFormat.literal(database))",
            fields: 2
        ) { row throws(ServerError) in (row.string(0), row.string(1)) }
    }

    /// Whether a table's sorting key as the server shows it (`key`) is `aggregate`'s: a table
    /// made by an earlier version may be sorted otherwise.
    static func isSorted(_ key: String, as aggregate: Aggregate) -> Bool {
        key.filter { !$0.isWhitespace } == aggregate.orderBy.filter { !$0.isWhitespace }
    }

    /// Drops the materialized view of an aggregate table of one shard (before the table is made
    /// anew).
    func dropView(_ aggregate: Aggregate) -> String {
        "DROP TABLE IF EXISTS \(database).\(aggregate.name)_mv"
    }

    /// A materialized view's page, app version and OS columns: as the SQLite rollups store them,
    /// `''` for none.
    static let strings =
        "ifNull(page, '') AS page, ifNull(app_version, '') AS app_version, ifNull(os, '') AS os"

    /// The state of an element click's last stored text (its sequence and text; `(0, '')` when
    /// no row has one).
    static let lastTextState =
        "maxIfState((sequence, ifNull(element_text, '')), toUInt8(kind IN (2, 3) AND isNotNull(element_text)))"

    /// The `element_texts` rows of the events of `table` (with `rows`' conditions): its view's
    /// `SELECT`, and (with `items`' conditions on kind and key) what a person's deletion builds
    /// anew from the events left for the days, kinds and keys of the person's clicks
    /// (``rebuildElementTexts(projectId:groups:)``). Only the clicks with a text: a group without one
    /// has no row, as its text is none.
    static func elementTexts(of table: String, rows: [String] = [], items: [String] = []) -> String {
        """
        SELECT project_id, day, kind, key, \(strings), \(lastTextState) AS last_text
        \(contributions(of: table, rows: rows, items: ["kind IN (2, 3)", "isNotNull(element_text)"] + items, role: 2))
        GROUP BY project_id, day, kind, key, page, app_version, os
        """
    }

    /// The contributions (``RollupDelta/Contribution``) with role `bit` and `items`' conditions
    /// of the rows of `table` (a materialized view's source: every row inserted), or of those
    /// with `rows`' conditions.
    static func contributions(
        of table: String, rows: [String] = [], items: [String] = [], role bit: Int
    ) -> String {
        """
        FROM \(table) ARRAY JOIN kinds AS kind, keys AS key, roles AS role\(rows.isEmpty ? "" : "\nPREWHERE " + rows.joined(separator: " AND "))
        WHERE \((items + ["bitAnd(role, \(bit)) != 0"]).joined(separator: " AND "))
        """
    }

    /// The kinds `person_blocks` keeps: every kind counted per person but page views, whose
    /// people (visitors per page and day) are read from `person_days` (at 10M events, 45 % of the
    /// table's rows were page views).
    static let blockKinds: Set<RollupKind> = [
        .anyEvent, .trackEvents, .elementClicks, .similarElementClicks, .planEvents,
    ]

    /// The `person_blocks` rows of the events of `table` (with `rows`' conditions): its view's
    /// query, and the horizon's block built anew after retention.
    static func personBlocks(of table: String, rows: [String] = []) -> String {
        let kinds = blockKinds.map { "\($0.rawValue)" }.sorted().joined(separator: ", ")
        return """
            SELECT project_id, kind, key, day_block, device, ifNull(user_id, '') AS user_id,
                groupBitOrState(day_bit) AS days
            \(contributions(of: table, rows: rows, items: ["kind IN (\(kinds))"], role: 2))
            GROUP BY project_id, kind, key, day_block, device, user_id
            """
    }

    /// The `daily_counts` rows of the events of `table` (with `rows`' conditions), each event
    /// counted `sign` times: its view's query, and the negated counts of a deleted person.
    static func dailyCounts(of table: String, rows: [String] = [], sign: Int = 1) -> String {
        """
        SELECT project_id, day, kind, key, \(strings), sumState(toInt64(\(sign))) AS count
        \(contributions(of: table, rows: rows, role: 1))
        GROUP BY project_id, day, kind, key, page, app_version, os
        """
    }

    /// Drops the database on one shard (tests).
    var dropDatabase: String { "DROP DATABASE IF EXISTS \(database)" }
}
