import FootprintWire

/// Every statement the ClickHouse store sends, in one place, so that a test can list them and
/// run each on another ClickHouse release.
///
/// The SQL is what ClickHouse 18.16 and current releases both accept: no `DateTime64`, no
/// `JSONExtract*`, no `ON CLUSTER`, no window functions, no `LowCardinality`, no bound query
/// parameters (values are literals made by ``ClickHouseFormat/literal(_:)``), and no
/// `windowFunnel`, which in 18.16 takes only 32-bit timestamps and equal ones in row order (funnels
/// walk each person's step times in array functions,
/// ``funnelDepths(of:stepSets:stepCount:windowMilliseconds:)``).
///
/// No read uses `FINAL`: each copy of an event is identified by its device, message id and
/// `sequence`, the first stored (smallest `sequence`) counts, and every other copy the writer
/// found is recorded in `duplicate_copies`, which every read of the events leaves out
/// (``unique(projectId:)``), on each shard against that shard's own records (a resend lands on
/// the shard of the copy it repeats: both tables are sharded by the project and the device).
struct ClickHouseSQL: Sendable {
    /// The database (an identifier, see ``ClickHouseLocation``).
    let database: String
    /// The cluster of the `Distributed` tables.
    let cluster: String
    /// The cap on a dwell measured as the gap to the next page view (as the SQLite rollups).
    var dwellCap: Int64 = ReportEngine.Configuration().sessionTimeoutMilliseconds
    /// The tables reads and inserts name: the `Distributed` ones, or (``local``) each shard's own.
    var tables = Tables.distributed

    /// The names of the tables statements read and write.
    struct Tables: Sendable {
        var events: String, identities: String, lostEvents: String, duplicateCopies: String
        var dailyCounts: String, personDays: String, stepTimes: String, sessions: String, sessionPages: String
        /// Through the `Distributed` tables: every shard.
        static let distributed = Tables(
            events: "events", identities: "identities", lostEvents: "lost_events",
            duplicateCopies: "duplicate_copies", dailyCounts: "daily_counts", personDays: "person_days",
            stepTimes: "step_times", sessions: "sessions", sessionPages: "session_pages")
        /// One node's own tables (a single-node check of the SQL).
        static let local = Tables(
            events: "events_local", identities: "identities_local", lostEvents: "lost_events_local",
            duplicateCopies: "duplicate_copies_local", dailyCounts: "daily_counts_local",
            personDays: "person_days_local", stepTimes: "step_times_local", sessions: "sessions_local",
            sessionPages: "session_pages_local")
    }

    // MARK: Schema

    /// The columns of `events_local` and `events`, in the order ``ClickHouseRows`` writes them.
    ///
    /// Besides the message's columns, each row carries what the SQLite rollups derive from it,
    /// computed at insert by the same Swift code (`RollupDelta.contributions(of:)`,
    /// `SessionTimeline`): its kinds, keys and roles (bit 0 counted, bit 1 per person, bit 2
    /// timed for funnels), its day and 64-day block, its session key and its mark on the
    /// session's timeline (0 none, 1 view, 2 leave). `sequence` grows with each stored event
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
            CREATE TABLE IF NOT EXISTS \(db).events_local (\(Self.eventColumns))
            ENGINE = MergeTree ORDER BY (project_id, device, message_id)
            """,
            """
            CREATE TABLE IF NOT EXISTS \(db).identities_local (
                project_id Int64, anonymous_id String, user_id String, first_seen Int64)
            ENGINE = ReplacingMergeTree ORDER BY (project_id, anonymous_id, user_id)
            """,
            """
            CREATE TABLE IF NOT EXISTS \(db).lost_events_local (
                project_id Int64, batch_key String, count Int64, received_at Int64, keep UInt64)
            ENGINE = ReplacingMergeTree(keep) ORDER BY (project_id, batch_key)
            """,
            """
            CREATE TABLE IF NOT EXISTS \(db).duplicate_copies_local (
                project_id Int64, device String, message_id String, sequence UInt64,
                user_id Nullable(String), time Int64)
            ENGINE = ReplacingMergeTree ORDER BY (project_id, device, message_id, sequence)
            """,
        ]
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
        /// Its engine and key.
        var engine: String
        /// The view's `SELECT` from `events_local`: the rows an INSERT of events adds.
        var select: String
        /// The `Distributed` table's sharding key (it is read, never written, through it).
        var shardingKey = "cityHash64(project_id, device)"
        /// Whether its rows carry the device and user id of their events (`device`, `user_id`),
        /// so that a person's deletion deletes them by the events' own condition and the reads
        /// can leave out the devices with a redundant copy.
        var byPerson = true
    }

    /// The aggregate tables, their rows computed from the columns ``ClickHouseRows`` writes:
    /// - `daily_counts`: the daily counts per kind, key, page, app version and OS (the
    ///   contributions with role 1), as the SQLite rollups keep them;
    /// - `person_days`: who did what on which day (role 2), per device, user id, page, app version
    ///   and OS, with the last stored element text;
    /// - `step_times`: the times of the events funnel steps can be (role 4), per kind and key first;
    /// - `sessions`: per session, day, device and user id, the states of the session's start (its
    ///   earliest time and that event's day), end, page views, first stored event's app version
    ///   and OS, and marks (``sessionStates``), merged per session when read;
    /// - `session_pages`: the same without marks per page too (a session's events on one page).
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
                engine: "AggregatingMergeTree ORDER BY (project_id, day, kind, key, page, app_version, os)",
                select: Self.dailyCounts(of: events),
                shardingKey: "cityHash64(project_id, day)", byPerson: false),
            Aggregate(
                name: "person_days",
                columns: """
                    project_id Int64, kind UInt8, key String, day Int64, device String, user_id String,
                        page String, app_version String, os String, day_block Int64, day_bit UInt64,
                        last_text AggregateFunction(maxIf, Tuple(UInt64, String), UInt8)
                    """,
                engine: """
                    AggregatingMergeTree
                    ORDER BY (project_id, kind, key, day, device, user_id, page, app_version, os, day_block, day_bit)
                    """,
                select: """
                    SELECT project_id, kind, key, day, device, ifNull(user_id, '') AS user_id, \(Self.strings),
                        day_block, day_bit, \(Self.lastTextState) AS last_text
                    \(Self.contributions(of: events, role: 2))
                    GROUP BY project_id, kind, key, day, device, user_id, page, app_version, os, day_block, day_bit
                    """),
            Aggregate(
                name: "step_times",
                columns: """
                    project_id Int64, kind UInt8, key String, day Int64, device String, user_id String,
                        page String, app_version String, os String, time Int64
                    """,
                engine: "MergeTree ORDER BY (project_id, kind, key, day, device, user_id, page, time)",
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
                engine: "AggregatingMergeTree ORDER BY (project_id, session_key, day, device, user_id)",
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
                engine: "AggregatingMergeTree ORDER BY (project_id, page, session_key, day, device, user_id)",
                select: """
                    SELECT project_id, ifNull(page, '') AS page, session_key, day, device,
                        ifNull(user_id, '') AS user_id, \(Self.sessionStateExpressions(marks: false))
                    FROM \(events)
                    GROUP BY project_id, page, session_key, day, device, user_id
                    """),
        ]
    }

    /// The aggregate states of a session's events, in the columns `NAME_state` of `sessions` and
    /// `session_pages`: the earliest time (`start_time`), the day of the earliest (`day`),
    /// the latest time (`end_time`), the page views (`views`), the app version and OS of the first
    /// stored (smallest `sequence`: `app`, `os`), and in `sessions` the marks `(time, sequence,
    /// mark, page, duration, day)` (`marks`). Numbers and strings apart, not in tuples: ClickHouse
    /// merges those states faster.
    private static let sessionStates: [(name: String, function: String, arguments: String, types: String)] = [
        ("start_time", "min", "time", "Int64"),
        ("day", "argMin", "day, time", "Int64, Int64"),
        ("end_time", "max", "time", "Int64"),
        ("views", "countIf", "is_page_view = 1", "UInt8"),
        ("app", "argMin", "ifNull(app_version, ''), sequence", "String, UInt64"),
        ("os", "argMin", "ifNull(os, ''), sequence", "String, UInt64"),
        (
            "marks", "groupArrayIf", "(time, sequence, mark, mark_page, mark_duration, day), mark > 0",
            "Tuple(Int64, UInt64, UInt8, String, Int64, Int64), UInt8"
        ),
    ]

    /// The ``sessionStates`` a table keeps: all, or all but the marks.
    private static func sessionStateNames(marks: Bool) -> [String] {
        sessionStates.map(\.name).filter { marks || $0 != "marks" }
    }

    /// The states `names` of the events a `SELECT` groups: `…State(…) AS NAME_state`.
    private static func sessionStateExpressions(_ names: [String]) -> String {
        sessionStates.filter { names.contains($0.name) }.map {
            "\($0.function)State(\($0.arguments)) AS \($0.name)_state"
        }
        .joined(separator: ", ")
    }

    /// The states of a table's view (``sessionStateNames(marks:)``).
    private static func sessionStateExpressions(marks: Bool) -> String {
        sessionStateExpressions(sessionStateNames(marks: marks))
    }

    /// The state columns of a table (``sessionStateNames(marks:)``).
    private static func sessionStateColumns(marks: Bool) -> String {
        sessionStates.filter { sessionStateNames(marks: marks).contains($0.name) }
            .map { "\($0.name)_state AggregateFunction(\($0.function), \($0.types))" }.joined(separator: ", ")
    }

    /// A state of ``sessionStates`` merged over a session's rows, as `name`.
    private static func sessionMerge(_ name: String) -> String {
        let function = sessionStates.first { $0.name == name }?.function ?? "any"
        return "\(function)Merge(\(name)_state) AS \(name)"
    }

    /// Creates an aggregate table on one shard.
    func createTable(_ aggregate: Aggregate) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(database).\(aggregate.name)_local (\(aggregate.columns))
        ENGINE = \(aggregate.engine)
        """
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
    var tablesOnNode: String {
        let db = ClickHouseFormat.literal(database)
        return """
            SELECT name, toUInt64(0) FROM system.tables WHERE database = \(db)
            UNION ALL
            SELECT table, sum(rows) FROM system.parts WHERE database = \(db) AND active GROUP BY table
            """
    }

    /// A materialized view's page, app version and OS columns: as the SQLite rollups store them,
    /// `''` for none.
    private static let strings =
        "ifNull(page, '') AS page, ifNull(app_version, '') AS app_version, ifNull(os, '') AS os"

    /// The state of an element click's last stored text (its sequence and text; `(0, '')` when
    /// no row has one).
    private static let lastTextState =
        "maxIfState((sequence, ifNull(element_text, '')), toUInt8(kind IN (2, 3) AND isNotNull(element_text)))"

    /// The contributions (``RollupDelta/Contribution``) with role `bit` of the rows of `table`
    /// (a materialized view's source: every row inserted), or of those with `rows`' conditions.
    private static func contributions(of table: String, rows: [String] = [], role bit: Int) -> String {
        """
        FROM \(table) ARRAY JOIN kinds AS kind, keys AS key, roles AS role\(rows.isEmpty ? "" : "\nPREWHERE " + rows.joined(separator: " AND "))
        WHERE bitAnd(role, \(bit)) != 0
        """
    }

    /// The `daily_counts` rows of the events of `table` (with `rows`' conditions), each event
    /// counted `sign` times: its view's query, and the negated counts of a deleted person.
    private static func dailyCounts(of table: String, rows: [String] = [], sign: Int = 1) -> String {
        """
        SELECT project_id, day, kind, key, \(strings), sumState(toInt64(\(sign))) AS count
        \(contributions(of: table, rows: rows, role: 1))
        GROUP BY project_id, day, kind, key, page, app_version, os
        """
    }

    /// Drops the database on one shard (tests).
    var dropDatabase: String { "DROP DATABASE IF EXISTS \(database)" }

    // MARK: Writes

    /// Inserts `TabSeparated` rows of ``eventColumns`` through the `Distributed` table.
    var insertEvents: String { "INSERT INTO \(database).\(tables.events) FORMAT TabSeparated" }

    /// Inserts identity links (`project_id, anonymous_id, user_id, first_seen`).
    var insertIdentities: String { "INSERT INTO \(database).\(tables.identities) FORMAT TabSeparated" }

    /// Inserts a batch's evicted-event count (`project_id, batch_key, count, received_at, keep`).
    var insertLostEvents: String { "INSERT INTO \(database).\(tables.lostEvents) FORMAT TabSeparated" }

    /// Inserts records of redundant copies (`project_id, device, message_id, sequence, user_id,
    /// time`: the copy's own device, user id and time, so that deleting a person's or an old
    /// day's events deletes their records by the same conditions).
    var insertDuplicateCopies: String {
        "INSERT INTO \(database).\(tables.duplicateCopies) FORMAT TabSeparated"
    }

    /// Every stored copy of the messages of these devices among `messageIds` in a project:
    /// `device, message_id, sequence, user_id, time`. The writer's check after its INSERT.
    func storedCopies(projectId: Int64, devices: Set<String>, messageIds: Set<String>) -> String {
        """
        SELECT device, message_id, sequence, user_id, time FROM \(database).\(tables.events)
        WHERE project_id = \(projectId) AND device IN (\(Self.list(devices)))
            AND message_id IN (\(Self.list(messageIds)))
        """
    }

    /// The condition that leaves out a project's redundant copies: those recorded in
    /// `duplicate_copies_local`. The subquery is not `GLOBAL`, so in a read of the `Distributed`
    /// table each shard runs it against its own records, which are those of the copies it holds.
    func unique(projectId: Int64) -> String {
        """
        (device, message_id, sequence) NOT IN (SELECT device, message_id, sequence
            FROM \(database).duplicate_copies_local WHERE project_id = \(projectId))
        """
    }

    /// The records of redundant copies a project holds (tests and the benchmarks read it).
    func redundantCopies(projectId: Int64) -> String {
        "SELECT count() FROM \(database).\(tables.duplicateCopies) WHERE project_id = \(projectId)"
    }

    // MARK: Counts

    /// The number of stored events of a project.
    func eventCount(projectId: Int64) -> String {
        "SELECT count() FROM \(database).\(tables.events) WHERE project_id = \(projectId) AND \(unique(projectId: projectId))"
    }

    /// The sum of a project's evicted-event counts, each batch once.
    func lostEventCount(projectId: Int64) -> String {
        "SELECT sum(count), sum(toFloat64(count)) FROM \(database).\(tables.lostEvents) FINAL WHERE project_id = \(projectId)"
    }

    /// The oldest and newest event time of a project, and its event count.
    func eventTimeSpan(projectId: Int64) -> String {
        """
        SELECT min(time), max(time), count() FROM \(database).\(tables.events)
        WHERE project_id = \(projectId) AND \(unique(projectId: projectId))
        """
    }

    /// Each anonymous id's user id: the smallest linked to it (byte order), as on SQLite
    /// (``EventStore/identityLinks(projectId:)``).
    func identityLinks(projectId: Int64) -> String {
        """
        SELECT anonymous_id, min(user_id) FROM \(database).\(tables.identities) WHERE project_id = \(projectId)
        GROUP BY anonymous_id
        """
    }

    /// The newest events after `after` (a ``RecentEvent/sequence``).
    func recentEvents(projectId: Int64, limit: Int, after: Int64?) -> String {
        """
        SELECT sequence, type, name, time, received_at, ifNull(user_id, anonymous_id), page, payload
        FROM \(database).\(tables.events)
        WHERE project_id = \(projectId) AND sequence > \(max(0, after ?? 0)) AND \(unique(projectId: projectId))
        ORDER BY sequence DESC LIMIT \(max(0, limit))
        """
    }

    // MARK: Rollup reports

    /// Which stored copies of the events a read takes.
    enum Copies {
        /// Each message's counted copy (``unique(projectId:)``).
        case counted
        /// The counted copies of the devices with a redundant copy recorded: the person
        /// aggregates' reads leave those devices' rows out and read their events instead.
        case countedOfRedundantDevices
        /// The redundant copies: what the aggregates counted and the reads take back.
        case redundant
    }

    /// The devices of a project with a redundant copy recorded on the shard that runs it (not
    /// `GLOBAL`, as ``unique(projectId:)``): those whose rows the person aggregates may count twice.
    func redundantDevices(projectId: Int64) -> String {
        "SELECT device FROM \(database).duplicate_copies_local WHERE project_id = \(projectId)"
    }

    /// The conditions on a project's events for a rollup-style read of `filter` (`copies` of
    /// them): whole days (when `days`), app version, OS and page compared as the SQLite rollups
    /// store them (`''` for none).
    func rollupConditions(
        projectId: Int64, filter: ReportFilter, days: Bool = true, page: Bool = true,
        copies: Copies = .counted
    ) -> [String] {
        copyConditions(projectId: projectId, copies: copies)
            + Self.filterConditions(filter, days: days, page: page, nullable: true)
    }

    /// The conditions on a project's events that keep `copies` of them.
    func copyConditions(projectId: Int64, copies: Copies) -> [String] {
        let project = "project_id = \(projectId)"
        switch copies {
        case .counted:
            return [project, unique(projectId: projectId)]
        case .countedOfRedundantDevices:
            return [
                project, "device IN (\(redundantDevices(projectId: projectId)))",
                unique(projectId: projectId),
            ]
        case .redundant:
            return [
                project, "device IN (\(redundantDevices(projectId: projectId)))",
                """
                (device, message_id, sequence) IN (SELECT device, message_id, sequence
                    FROM \(database).duplicate_copies_local WHERE project_id = \(projectId))
                """,
            ]
        }
    }

    /// The conditions on a project's rows of an aggregate table for `filter`: as
    /// ``rollupConditions(projectId:filter:days:page:copies:)`` on columns that hold `''` for none.
    /// - Parameter people: leave out the devices with a redundant copy (a person aggregate).
    func aggregateConditions(projectId: Int64, filter: ReportFilter, days: Bool = true, people: Bool)
        -> [String]
    {
        var conditions = ["project_id = \(projectId)"]
        if people { conditions.append("device NOT IN (\(redundantDevices(projectId: projectId)))") }
        return conditions + Self.filterConditions(filter, days: days, page: true, nullable: false)
    }

    /// `filter`'s whole days (when `days`), app version, OS and page (when `page`) on columns that
    /// are `Nullable` (compared as `''` when NULL) or not.
    private static func filterConditions(_ filter: ReportFilter, days: Bool, page: Bool, nullable: Bool)
        -> [String]
    {
        func column(_ name: String) -> String { nullable ? "ifNull(\(name), '')" : name }
        var conditions = days ? dayConditions(filter) : []
        if let version = filter.appVersion {
            conditions.append("\(column("app_version")) = \(ClickHouseFormat.literal(version))")
        }
        if let os = filter.os { conditions.append("\(column("os")) = \(ClickHouseFormat.literal(os))") }
        if page, let name = filter.page {
            conditions.append("\(column("page")) = \(ClickHouseFormat.literal(name))")
        }
        return conditions
    }

    /// The conditions on a row's `day` that keep `filter`'s whole days.
    static func dayConditions(_ filter: ReportFilter) -> [String] {
        var conditions: [String] = []
        if let from = filter.from { conditions.append("day >= \(from.dayNumber)") }
        if let to = filter.to { conditions.append("day < \(to.adding(milliseconds: -1).dayNumber + 1)") }
        return conditions
    }

    /// The 64-day blocks `filter`'s days touch, on rows with `day` and `day_block`.
    private static func blockConditions(_ filter: ReportFilter) -> [String] {
        var conditions: [String] = []
        if let from = filter.from {
            let block = from.dayNumber >> 6
            conditions += ["day_block >= \(block)", "day >= \(block &<< 6)"]
        }
        if let to = filter.to {
            let block = to.adding(milliseconds: -1).dayNumber >> 6
            conditions += ["day_block <= \(block)", "day < \((block &+ 1) &<< 6)"]
        }
        return conditions
    }

    /// The contributions (``RollupDelta/Contribution``) with role `bit` and `items`' conditions
    /// of the events with `rows`' conditions. The rows' conditions are a `PREWHERE`: they drop rows
    /// (and leave out redundant copies) before `ARRAY JOIN` multiplies them, which ClickHouse
    /// does not do by itself for a query with `ARRAY JOIN`.
    private func contributions(rows: [String], items: [String] = [], role bit: Int) -> String {
        """
        FROM \(database).\(tables.events) ARRAY JOIN kinds AS kind, keys AS key, roles AS role
        PREWHERE \(rows.joined(separator: " AND "))
        WHERE \((items + ["bitAnd(role, \(bit)) != 0"]).joined(separator: " AND "))
        """
    }

    /// Daily counts per day, kind and key: the `daily_counts` aggregate, less the contributions
    /// of the redundant copies it counted.
    func rollupCounts(projectId: Int64, filter: ReportFilter) -> String {
        """
        SELECT day, kind, key, sum(counted) FROM (
            SELECT day, kind, key, sumMerge(count) AS counted FROM \(database).\(tables.dailyCounts)
            WHERE \(aggregateConditions(projectId: projectId, filter: filter, people: false).joined(separator: " AND "))
            GROUP BY day, kind, key
            UNION ALL
            SELECT day, kind, key, -toInt64(count()) AS counted
            \(contributions(rows: rollupConditions(projectId: projectId, filter: filter, copies: .redundant), role: 1))
            GROUP BY day, kind, key
        ) GROUP BY day, kind, key HAVING sum(counted) != 0
        """
    }

    /// Daily counts of `kinds` per kind, key, page and day, as ``rollupCounts(projectId:filter:)``.
    func rollupPageCounts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>) -> String {
        let kind = "kind IN (\(kinds.map { String($0.rawValue) }.sorted().joined(separator: ", ")))"
        return """
            SELECT kind, key, page, day, sum(counted) FROM (
                SELECT kind, key, page, day, sumMerge(count) AS counted FROM \(database).\(tables.dailyCounts)
                WHERE \((aggregateConditions(projectId: projectId, filter: filter, people: false) + [kind]).joined(separator: " AND "))
                GROUP BY kind, key, page, day
                UNION ALL
                SELECT kind, key, ifNull(page, '') AS page, day, -toInt64(count()) AS counted
                \(contributions(rows: rollupConditions(projectId: projectId, filter: filter, copies: .redundant), items: [kind], role: 1))
                GROUP BY kind, key, page, day
            ) GROUP BY kind, key, page, day HAVING sum(counted) != 0
            """
    }

    /// The element texts of element clicks (kinds 2 and 3 among `kinds`) per kind, key, page and
    /// day: per app version and OS the last one stored, then the greatest of those (as the SQLite
    /// rollup rows give it); from `person_days`, with the devices that have a redundant copy read
    /// from their counted events.
    func elementTexts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>) -> String {
        let kind = "kind IN (\(kinds.map { String($0.rawValue) }.sorted().joined(separator: ", ")))"
        let rows = rollupConditions(projectId: projectId, filter: filter, copies: .countedOfRedundantDevices)
        return """
            SELECT kind, key, page, day, max(if(last.1 > 0, last.2, NULL)) FROM (
                SELECT kind, key, page, day, max(last) AS last FROM (
                    SELECT kind, key, page, day, app_version, os, maxIfMerge(last_text) AS last
                    FROM \(database).\(tables.personDays)
                    WHERE \((aggregateConditions(projectId: projectId, filter: filter, people: true) + [kind]).joined(separator: " AND "))
                    GROUP BY kind, key, page, day, app_version, os
                    UNION ALL
                    SELECT kind, key, ifNull(page, '') AS page, day, ifNull(app_version, '') AS app_version,
                        ifNull(os, '') AS os,
                        maxIf((sequence, ifNull(element_text, '')), isNotNull(element_text)) AS last
                    \(contributions(rows: rows, items: [kind], role: 2))
                    GROUP BY kind, key, page, day, app_version, os
                ) GROUP BY kind, key, page, day, app_version, os
            ) GROUP BY kind, key, page, day
            """
    }

    /// Who did what in which 64-day blocks: the day bits per key, block, anonymous id, user id
    /// and page (`''` for each unless `pages`); from `person_days`, with the devices that have a
    /// redundant copy read from their counted events.
    func rollupPersonDays(
        projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?, pages: Bool
    ) -> String {
        var items = ["kind = \(kind.rawValue)"]
        if let keys { items.append("key IN (\(Self.list(keys)))") }
        let blocks = Self.blockConditions(filter)
        let aggregate = aggregateConditions(projectId: projectId, filter: filter, days: false, people: true)
        let rows =
            rollupConditions(
                projectId: projectId, filter: filter, days: false, copies: .countedOfRedundantDevices)
            + blocks
        let page = pages ? "page" : "''"
        return """
            SELECT key, day_block, device, user_id, \(page) AS on_page, groupBitOr(day_bit)
            FROM \(database).\(tables.personDays)
            WHERE \((aggregate + items + blocks).joined(separator: " AND "))
            GROUP BY key, day_block, device, user_id, on_page
            UNION ALL
            SELECT key, day_block, ifNull(anonymous_id, ''), ifNull(user_id, ''), \(pages ? "ifNull(page, '')" : "''") AS on_page,
                groupBitOr(day_bit)
            \(contributions(rows: rows, items: items, role: 2))
            GROUP BY key, day_block, anonymous_id, user_id, on_page
            """
    }

    /// The people per step of a funnel (``EventStore/funnelPeople(projectId:filter:sources:stepCount:windowMilliseconds:)``):
    /// one row, `reached1, reached2, …`. Each person's hits are read from `step_times` (and for
    /// the devices with a redundant copy from their counted events) in `filter`'s exact range,
    /// each packed as `time * S + r`, `r` its step set's rank among the `S` of
    /// ``FunnelSources/stepSets``, so that one ascending sort puts them in funnel order
    /// (``FunnelHit/precedes(_:_:)``); ``funnelDepths(of:stepSets:stepCount:windowMilliseconds:)``
    /// then walks each person's. Ingest keeps times in `0…now + 1 day` and the sets are at most
    /// ``FunnelSources/maximumStepSets``, so the packing cannot overflow.
    func funnelPeople(
        projectId: Int64, filter: ReportFilter, sources: FunnelSources, stepCount: Int,
        windowMilliseconds window: Int64
    ) -> String {
        let sets = sources.stepSets
        var rank: [UInt64: Int] = [:]
        for (index, set) in sets.enumerated() { rank[set] = index }
        var branches: [String] = []
        for (source, steps) in sources.sources.sorted(by: {
            ($0.key.kind.rawValue, $0.key.key) < ($1.key.kind.rawValue, $1.key.key)
        }) {
            let match = "kind = \(source.kind.rawValue) AND key = \(ClickHouseFormat.literal(source.key))"
            // Each page named once: a defined step may match thousands.
            var pages: [Int: Set<String>] = [:]
            for (page, bits) in steps.onPage {
                if let index = rank[steps.onAnyPage | bits] { pages[index, default: []].insert(page) }
            }
            for (index, named) in pages.sorted(by: { $0.key < $1.key }) {
                branches.append("\(match) AND page IN (\(Self.list(named))), \(index)")
            }
            if let index = rank[steps.onAnyPage] { branches.append("\(match), \(index)") }
        }
        let ranked = branches.isEmpty ? "toInt64(-1)" : "multiIf(\(branches.joined(separator: ", ")), -1)"
        var range = Self.dayConditions(filter)
        if let from = filter.from { range.append("time >= \(from.millisecondsSince1970)") }
        if let to = filter.to { range.append("time < \(to.millisecondsSince1970)") }
        // The rank once per part (`AS ranked`); a row no step set takes (a page-limited source's
        // row on another page) is left out.
        let parts = peopleParts(
            projectId: projectId, filter: filter,
            items: [Self.keys(sources.sources.keys.map { ($0.kind, $0.key) })],
            groups: ["person"],
            state: "groupArrayIf(time * \(max(1, sets.count)) + (\(ranked) AS ranked), ranked >= 0)",
            source: (tables.stepTimes, 4, range))
        let hits = "SELECT arraySort(groupArrayArray(state)) AS hits FROM (\(parts)) GROUP BY person"
        let counts = (1...max(1, min(stepCount, 64))).map { "countIf(depth >= \($0))" }
        return """
            SELECT \(counts.joined(separator: ", "))
            FROM (\(Self.funnelDepths(of: hits, stepSets: sets, stepCount: stepCount, windowMilliseconds: window)))
            """
    }

    /// Each person's deepest funnel step (`depth`, a count) beside the columns of `query`'s rows,
    /// each a person's packed hits ascending (`hits`, see
    /// ``funnelPeople(projectId:filter:sources:stepCount:windowMilliseconds:)``), as
    /// ``FunnelReport/depth(stepCount:hits:windowMilliseconds:)`` walks them.
    ///
    /// The walk keeps, for each step, the latest start of an attempt that has reached it so far
    /// (a later start leaves more of the window, so it is never worse), in arrays instead of a
    /// loop: for step `k`, `e_k` marks the hits that complete it for an attempt that reached step
    /// `k - 1` before them and is still in its window, `s_k` is per hit the start of the latest
    /// such attempt before it (`n_k` of them before it; the starts only grow, so the latest is
    /// the largest). The person reached step `k` when any hit is marked in `e_k`.
    /// - Parameter sets: the step sets the hits' ranks index, ascending.
    static func funnelDepths(
        of query: String, stepSets sets: [UInt64], stepCount: Int, windowMilliseconds window: Int64
    ) -> String {
        let count = max(1, sets.count)
        let span = min(max(window, -(1 << 61)), 1 << 61)
        var columns = [
            "arrayMap(h -> intDiv(h, \(count)), hits) AS t",
            "arrayMap(h -> [\((sets.isEmpty ? [0] : sets).map(String.init).joined(separator: ", "))][h % \(count) + 1], hits) AS b",
        ]
        let levels = max(1, min(stepCount, 64))
        for step in 0..<levels {
            let bit = "bitAnd(y, \(UInt64(1) << UInt64(step))) != 0"
            if step == 0 {
                columns += [
                    "arrayMap(y -> toUInt8(\(bit)), b) AS e0", "arrayFilter((x, e) -> e = 1, t, e0) AS v0",
                ]
            } else {
                columns += [
                    """
                    arrayMap((y, n, s, x) -> toUInt8(\(bit) AND n > 0 AND x <= s + \(span)), \
                    b, n\(step - 1), s\(step - 1), t) AS e\(step)
                    """,
                    "arrayFilter((s, e) -> e = 1, s\(step - 1), e\(step)) AS v\(step)",
                ]
            }
            if step + 1 < levels {
                columns += [
                    "arrayMap((c, e) -> c - e, arrayCumSum(e\(step)), e\(step)) AS n\(step)",
                    "arrayMap(n -> if(n > 0, v\(step)[n], 0), n\(step)) AS s\(step)",
                ]
            }
        }
        let depth = (0..<levels).map { "(arraySum(e\($0)) > 0)" }.joined(separator: " + ")
        return "SELECT *, \(columns.joined(separator: ",\n    ")),\n    \(depth) AS depth FROM (\(query))"
    }

    /// `(kind, key) IN (…)` of `pairs`. The list always has two tuples at least: `IN ((1, 'a'))`
    /// would read as the list of 1 and 'a'. Kind 255 is none.
    private static func keys(_ pairs: [(RollupKind, String)]) -> String {
        let some = Set(pairs.map { "(\($0.0.rawValue), \(ClickHouseFormat.literal($0.1)))" }).sorted()
        let list = some.isEmpty ? ["(255, '')", "(255, '')"] : some.count > 1 ? some : some + some
        return "(kind, key) IN (\(list.joined(separator: ", ")))"
    }

    // MARK: People

    /// Each anonymous id's user id (the smallest linked, as ``identityLinks(projectId:)``) and a mark that
    /// it has one: `device, linked, is_linked`, joined `USING device`.
    private func links(projectId: Int64) -> String {
        """
        SELECT anonymous_id AS device, min(user_id) AS linked, toUInt8(1) AS is_linked
        FROM \(database).\(tables.identities) WHERE project_id = \(projectId) GROUP BY anonymous_id
        """
    }

    /// A row's person, as the reports resolve it: its user id, else its device's linked user id
    /// (the smallest), else its device (``RollupPersonDays/person``).
    private static let person = "if(user_id != '', user_id, if(is_linked = 1, linked, device))"

    /// The conditions on `day` that keep the days ``RollupReports`` counts for `filter`.
    private static func rangeConditions(_ filter: ReportFilter) -> [String] {
        let (first, count) = RollupReports.days(of: filter)
        return ["day >= \(first)", "day < \(first &+ Int64(count))"]
    }

    /// The people who did something of `kind` (keys among `keys`) on the range's days, with the
    /// range's other filters, as rows of `state` (an aggregate state over each group's rows,
    /// `state` in the rows), grouped by `groups` (among `key`, `day` and `person`): from
    /// `person_days`, and for the devices with a redundant copy from their counted events. The
    /// caller merges the two parts.
    private func peopleParts(
        projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?, groups: [String],
        state: String
    ) -> String {
        var items = ["kind = \(kind.rawValue)"]
        if let keys { items.append("key IN (\(Self.list(keys)))") }
        return peopleParts(projectId: projectId, filter: filter, items: items, groups: groups, state: state)
    }

    /// ``peopleParts(projectId:filter:kind:keys:groups:state:)`` of the rows with `items`'
    /// conditions (on kind, key and page); a group may be an expression `… AS name`.
    /// - Parameter source: another person table than `person_days` (`table`), the role of the
    ///   contributions it keeps and the conditions on its rows' `day` and `time` for `filter`.
    private func peopleParts(
        projectId: Int64, filter: ReportFilter, items: [String], groups: [String], state: String,
        source: (table: String, role: Int, range: [String])? = nil
    ) -> String {
        let (table, role, range) = source ?? (tables.personDays, 2, Self.rangeConditions(filter))
        let columns = groups.map { $0 == "person" ? "\(Self.person) AS person" : $0 }
        let names = groups.map { $0.components(separatedBy: " AS ").last ?? $0 }
        let select = (columns + ["\(state) AS state"]).joined(separator: ", ")
        let group = groups.isEmpty ? "" : "GROUP BY \(names.joined(separator: ", "))"
        let aggregate =
            aggregateConditions(projectId: projectId, filter: filter, days: false, people: true) + items
            + range
        let rows =
            rollupConditions(
                projectId: projectId, filter: filter, days: false, copies: .countedOfRedundantDevices)
            + range
        return """
            SELECT \(select) FROM \(database).\(table)
                GLOBAL ANY LEFT JOIN (\(links(projectId: projectId))) AS links USING device
            PREWHERE \(aggregate.joined(separator: " AND "))
            \(group)
            UNION ALL
            SELECT \(select) FROM (
                SELECT kind, key, ifNull(page, '') AS page, day, time, device, ifNull(user_id, '') AS user_id
                \(contributions(rows: rows, items: items, role: role))
            ) AS raw ANY LEFT JOIN (\(links(projectId: projectId))) AS links USING device
            \(group)
            """
    }

    /// The most days of a range ``activePeople(projectId:filter:)`` and the visitor reads take:
    /// each person's days are one 64-bit mask.
    static let maskedDays = 64

    /// Each person's days of ``peopleParts(projectId:filter:kind:keys:groups:state:)``
    /// as a mask (bit `n`: day `n` of the range, at most ``maskedDays``): `person, mask`.
    private func personMasks(
        projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>? = nil
    )
        -> String
    {
        let (first, _) = RollupReports.days(of: filter)
        let parts = peopleParts(
            projectId: projectId, filter: filter, kind: kind, keys: keys, groups: ["person"],
            state: "groupBitOrState(bitShiftLeft(toUInt64(1), toUInt64(day - \(first))))")
        return "SELECT person, groupBitOrMerge(state) AS mask FROM (\(parts)) GROUP BY person"
    }

    /// The days of the range among the `window` days from each day of `mask` on
    /// (``RangeDays/peoplePerDay(window:)``), as a mask.
    private static func covered(_ filter: ReportFilter, window: Int) -> String {
        let (_, count) = RollupReports.days(of: filter)
        let range = count >= 64 ? UInt64.max : (UInt64(1) << UInt64(max(0, count))) - 1
        var covered = "mask"
        for shift in stride(from: 1, to: min(window, 64), by: 1) {
            covered = "bitOr(\(covered), bitShiftLeft(mask, \(shift)))"
        }
        return "bitAnd(\(covered), toUInt64(\(range)))"
    }

    /// Whether mask `column` has day `d` (`1` or `0`). The reads take each person's row once per
    /// day of the range (`ARRAY JOIN range(N) AS d`) rather than in a lambda: 18.16 loses the
    /// subquery's columns that only a lambda inside an aggregate names.
    private static func has(_ column: String) -> String { "bitAnd(bitShiftRight(\(column), d), 1)" }

    /// The distinct people per key (``EventStore/peopleCounts(projectId:filter:kind:keys:)``):
    /// `key, people`.
    func peopleCounts(projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?) -> String
    {
        let parts = peopleParts(
            projectId: projectId, filter: filter, kind: kind, keys: keys, groups: ["key"],
            state: "uniqExactState(\(Self.person))")
        return "SELECT key, uniqExactMerge(state) FROM (\(parts)) GROUP BY key"
    }

    /// Per day of the range (`d`, from 0): the people active in the range (the same on every
    /// row), and those active that day, in the 7 and in the 30 days ending there:
    /// `d, people, daily, weekly, monthly`. For ranges of at most ``maskedDays``.
    func activePeople(projectId: Int64, filter: ReportFilter) -> String {
        let (_, count) = RollupReports.days(of: filter)
        return """
            SELECT d, count(), sum(\(Self.has("daily"))), sum(\(Self.has("weekly"))), sum(\(Self.has("monthly")))
            FROM (
                SELECT \(Self.covered(filter, window: 1)) AS daily, \(Self.covered(filter, window: 7)) AS weekly,
                    \(Self.covered(filter, window: 30)) AS monthly
                FROM (\(personMasks(projectId: projectId, filter: filter, kind: .anyEvent))))
            ARRAY JOIN range(\(count)) AS d
            GROUP BY d
            """
    }

    /// The distinct people of each of `selections` (rows of any of its selectors' kind, key and
    /// page): `selection, people`, the selection's index from 1.
    func peopleCounts(projectId: Int64, filter: ReportFilter, selections: [Set<RollupReports.PeopleSelector>])
        -> String
    {
        func matches(_ selector: RollupReports.PeopleSelector) -> String {
            """
            (kind = \(selector.kind.rawValue) AND key = \(ClickHouseFormat.literal(selector.key)) \
            AND page = \(ClickHouseFormat.literal(selector.page)))
            """
        }
        let each = selections.enumerated().map { index, selection in
            selection.isEmpty
                ? "0" : "if(\(selection.map(matches).sorted().joined(separator: " OR ")), \(index + 1), 0)"
        }
        let parts = peopleParts(
            projectId: projectId, filter: filter,
            items: [Self.keys(selections.flatMap { $0 }.map { ($0.kind, $0.key) })],
            groups: ["arrayJoin(arrayFilter(x -> x > 0, [\(each.joined(separator: ", "))])) AS selection"],
            state: "uniqExactState(\(Self.person))")
        return "SELECT selection, uniqExactMerge(state) FROM (\(parts)) GROUP BY selection"
    }

    /// The visitors of the range's days in one read of the page views' people: per day, of any
    /// page (`0, '', day, visitors`); per page and day (`1, page, day, visitors`); and per page
    /// over the range (`2, page, -1, visitors`, its
    /// ``peopleCounts(projectId:filter:kind:keys:)``). `day` is since 1970. The people of each
    /// page and day are merged once, then into each of the three.
    func visitors(projectId: Int64, filter: ReportFilter) -> String {
        let pages = peopleParts(
            projectId: projectId, filter: filter, kind: .pageViews, keys: nil, groups: ["key", "day"],
            state: "uniqExactState(\(Self.person))")
        return """
            SELECT tag, of_page, of_day, uniqExactMerge(state) FROM (
                SELECT tag, if(tag = 0, '', key) AS of_page, if(tag = 2, toInt64(-1), day) AS of_day, state
                FROM (SELECT key, day, uniqExactMergeState(state) AS state FROM (\(pages)) GROUP BY key, day)
                ARRAY JOIN [toUInt8(0), toUInt8(1), toUInt8(2)] AS tag)
            GROUP BY tag, of_page, of_day
            """
    }

    /// Retention cohorts (``RollupReports/retention(active:returns:returnEvent:days:filter:)``):
    /// `first, n, people, returned` per first active day (an offset in the range) and day `n`
    /// (`0…days`) after it inside the range; `returned` counts those active again (or doing
    /// `returnEvent`, a track event) on that day. For ranges of at most ``maskedDays``.
    func retention(projectId: Int64, filter: ReportFilter, returnEvent: String?, days: Int) -> String {
        let (_, count) = RollupReports.days(of: filter)
        let active = personMasks(projectId: projectId, filter: filter, kind: .anyEvent)
        let masks: String
        if let returnEvent {
            let returns = personMasks(
                projectId: projectId, filter: filter, kind: .trackEvents, keys: [returnEvent])
            masks = """
                SELECT person, groupBitOrIf(mask, which = 0) AS active, groupBitOrIf(mask, which = 1) AS returned
                FROM (
                    SELECT toUInt8(0) AS which, person, mask FROM (\(active))
                    UNION ALL
                    SELECT toUInt8(1) AS which, person, mask FROM (\(returns)))
                GROUP BY person
                """
        } else {
            masks = "SELECT person, mask AS active, mask AS returned FROM (\(active))"
        }
        // A mask's first day: the power of two of its lowest bit (exact in a double).
        return """
            SELECT first, n, count(), sum(bitAnd(bitShiftRight(returned, first + n), 1)) FROM (
                SELECT toUInt64(log2(bitAnd(active, bitNot(active) + 1))) AS first, returned
                FROM (\(masks)) WHERE active != 0)
            ARRAY JOIN range(\(max(0, days) + 1)) AS n
            WHERE first + n < \(count)
            GROUP BY first, n
            """
    }

    // MARK: Sessions, dwell and moves

    /// Each session's aggregate states `names` (``sessionStates``; with `page`, of its events on
    /// that page): the rows of `sessions` (`session_pages`) without the devices that have a
    /// redundant copy, and per session the states of those devices' counted events; merged per
    /// session by the caller. With `narrow` and days in `filter`, only the rows of the sessions
    /// with an event on those days (on `page`) are read, every row of each, as its start and
    /// timeline need (``sessionRowsInRange(projectId:filter:page:)`` tells when that pays; either
    /// way a session outside the days is left out by its start or its views' days, so the
    /// redundant devices' events, few, are read whole).
    private func sessionStateRows(
        projectId: Int64, filter: ReportFilter, page: String?, names: [String], narrow: Bool
    ) -> String {
        let table = page == nil ? tables.sessions : tables.sessionPages
        let onPage = page.map { ["page = \(ClickHouseFormat.literal($0))"] } ?? []
        var rows = aggregateConditions(projectId: projectId, filter: ReportFilter(), people: true) + onPage
        if narrow, filter.from != nil || filter.to != nil {
            let inRange = ["project_id = \(projectId)"] + onPage + Self.dayConditions(filter)
            rows.append(
                "session_key GLOBAL IN (SELECT session_key FROM \(database).\(table) WHERE \(inRange.joined(separator: " AND ")))"
            )
        }
        let events =
            copyConditions(projectId: projectId, copies: .countedOfRedundantDevices)
            + (page.map { ["ifNull(page, '') = \(ClickHouseFormat.literal($0))"] } ?? [])
        let columns = Self.sessionStates.map(\.name).filter(names.contains).map { "\($0)_state" }
        return """
            SELECT session_key, \(Self.sessionStateExpressions(names))
            FROM \(database).\(tables.events) WHERE \(events.joined(separator: " AND "))
            GROUP BY session_key
            UNION ALL
            SELECT session_key, \(columns.joined(separator: ", "))
            FROM \(database).\(table) WHERE \(rows.joined(separator: " AND "))
            """
    }

    /// The states ``sessionConditions(filter:)`` needs besides `names`: the start day with days in
    /// `filter`, the first stored event's app version and OS with those in it.
    private static func sessionStateNames(_ names: [String], filter: ReportFilter) -> [String] {
        var names = names
        if filter.from != nil || filter.to != nil { names.append("day") }
        if filter.appVersion != nil { names.append("app") }
        if filter.os != nil { names.append("os") }
        return names
    }

    /// A project's rows of `sessions` (with `page`, of `session_pages` on that page) on `filter`'s
    /// days, and all: `in range, all`. Narrowing a session read to the sessions with a row on
    /// those days (its `narrow`) pays when they are at most half: the set of their keys costs
    /// about as much as merging the other rows.
    func sessionRowsInRange(projectId: Int64, filter: ReportFilter, page: String?) -> String {
        let days = Self.dayConditions(filter)
        let onPage = page.map { " AND page = \(ClickHouseFormat.literal($0))" } ?? ""
        return """
            SELECT countIf(\(days.isEmpty ? "1" : days.joined(separator: " AND "))), count()
            FROM \(database).\(page == nil ? tables.sessions : tables.sessionPages) WHERE project_id = \(projectId)\(onPage)
            """
    }

    /// The conditions on a session (or session page) row of `day`, `app` and `os`.
    private func sessionConditions(filter: ReportFilter) -> [String] {
        var conditions = Self.dayConditions(filter)
        if let version = filter.appVersion { conditions.append("app = \(ClickHouseFormat.literal(version))") }
        if let os = filter.os { conditions.append("os = \(ClickHouseFormat.literal(os))") }
        return conditions.isEmpty ? ["1"] : conditions
    }

    /// Each session's (or with `page`, each session's events on that page) page views, with
    /// `length` its length, and what ``sessionConditions(filter:)`` reads: its start day, and the
    /// app version and OS of its first stored event.
    private func sessionRows(
        projectId: Int64, filter: ReportFilter, page: String?, length: Bool, narrow: Bool
    )
        -> String
    {
        let names = Self.sessionStateNames(
            length ? ["start_time", "end_time", "views"] : ["views"], filter: filter)
        return """
            SELECT \(names.map(Self.sessionMerge).joined(separator: ", "))\(length ? ", end_time - start_time AS length" : "")
            FROM (\(sessionStateRows(projectId: projectId, filter: filter, page: page, names: names, narrow: narrow)))
            GROUP BY session_key
            """
    }

    /// The sessions that started on `filter`'s days (with its page: each session's events on
    /// that page): length and page views.
    func storedSessions(projectId: Int64, filter: ReportFilter, narrow: Bool = true) -> String {
        """
        SELECT greatest(0, length), views FROM (\(sessionRows(projectId: projectId, filter: filter, page: filter.page, length: true, narrow: narrow)))
        WHERE \(sessionConditions(filter: filter).joined(separator: " AND "))
        """
    }

    /// With a page in `filter`: the repeat views of the page and the sessions' ends there.
    func pageMoves(projectId: Int64, filter: ReportFilter, page: String, narrow: Bool = true) -> String {
        """
        SELECT sum(views - 1), count() FROM (\(sessionRows(projectId: projectId, filter: filter, page: page, length: false, narrow: narrow)))
        WHERE \(sessionConditions(filter: filter).joined(separator: " AND ")) AND views > 0
        """
    }

    /// Each session's marks (page views and leaves) in time order, stored order at equal
    /// times, the first ``SessionTimeline/maximumMarks``: `(time, sequence, mark, page,
    /// duration, day)`; and what ``sessionConditions(filter:)`` reads of the session: the app
    /// version and OS of its first stored event (a view's own day is in its mark).
    private func sessionMarks(projectId: Int64, filter: ReportFilter, narrow: Bool) -> String {
        var names = Self.sessionStateNames(["marks"], filter: filter)
        names.removeAll { $0 == "day" }
        return """
            SELECT arraySlice(arraySort(x -> (x.1, x.2), groupArrayIfMerge(marks_state)),
                    1, \(SessionTimeline.maximumMarks)) AS marks\(names.filter { $0 != "marks" }.map { ", " + Self.sessionMerge($0) }.joined())
            FROM (\(sessionStateRows(projectId: projectId, filter: filter, page: nil, names: names, narrow: narrow)))
            GROUP BY session_key
            """
    }

    /// Dwell histograms per page and bucket (``DwellHistogram``): each view's dwell is the
    /// duration of the leave of its page that follows it, else the gap to the next view capped
    /// (``SessionTimeline/dwells(cap:)``), whichever comes first; a last view has none.
    func rollupDwell(projectId: Int64, filter: ReportFilter, narrow: Bool = true) -> String {
        let carried = Self.sessionColumns(filter)
        var conditions = sessionConditions(filter: filter)
        conditions.append("milliseconds >= 0")
        if let page = filter.page { conditions.append("page = \(ClickHouseFormat.literal(page))") }
        // The views and, after each, the first leave of its page before the next view (`timed`):
        // a mark's segment counts the views up to it, and such a leave is the second mark of its
        // segment and page (the view the first). The mark after a view in `timed` ends its dwell:
        // its leave, else the next view; `(0, 0, 0, '', 0, 0)` after the last one.
        let segments = "arrayCumSum(arrayMap(x -> x.3 = 1, marks))"
        let timed = """
            arrayFilter((m, s, u) -> m.3 = 1 OR (m.3 = 2 AND s > 0 AND u = 2), marks, \(segments),
                arrayEnumerateUniq(\(segments), arrayMap(x -> x.4, marks)))
            """
        let end = "(toInt64(0), toUInt64(0), toUInt8(0), '', toInt64(0), toInt64(0))"
        let dwell = """
            if(m.3 != 1 OR n.3 = 0, -1, if(n.3 = 1, least(greatest(0, n.1 - m.1), \(dwellCap)), n.5))
            """
        return """
            SELECT page, \(Self.bucket("milliseconds")) AS bucket, count(), sum(milliseconds), sum(toFloat64(milliseconds))
            FROM (
                SELECT dwell.1 AS page, dwell.2 AS day, dwell.3 AS milliseconds\(carried) FROM (
                    SELECT arrayMap((m, n) -> (m.4, m.6, \(dwell)), timed,
                        arraySlice(arrayPushBack(timed, \(end)), 2)) AS dwells\(carried)
                    FROM (
                        SELECT \(timed) AS timed\(carried)
                        FROM (\(sessionMarks(projectId: projectId, filter: filter, narrow: narrow)))
                    )
                ) ARRAY JOIN dwells AS dwell
            ) WHERE \(conditions.joined(separator: " AND "))
            GROUP BY page, bucket
            """
    }

    /// Page-to-page moves from views on `filter`'s days (``SessionTimeline/moves()``): each
    /// view to the next view of its session, the last to `''` (the session's end).
    func rollupMoves(projectId: Int64, filter: ReportFilter, from page: String?, narrow: Bool = true)
        -> String
    {
        let carried = Self.sessionColumns(filter)
        var conditions = sessionConditions(filter: filter)
        if let page { conditions.append("from_page = \(ClickHouseFormat.literal(page))") }
        return """
            SELECT from_page, to_page, count() FROM (
                SELECT move.1 AS from_page, move.2 AS to_page, move.3 AS day\(carried) FROM (
                    SELECT arrayMap((v, next) -> (v.4, next, v.6), views,
                        arraySlice(arrayPushBack(arrayMap(x -> x.4, views), ''), 2)) AS moves\(carried)
                    FROM (
                        SELECT arrayFilter(x -> x.3 = 1, marks) AS views\(carried)
                        FROM (\(sessionMarks(projectId: projectId, filter: filter, narrow: narrow)))
                    )
                ) ARRAY JOIN moves AS move
            ) WHERE \(conditions.joined(separator: " AND "))
            GROUP BY from_page, to_page
            """
    }

    /// The columns of a session ``sessionMarks(projectId:filter:)`` gives besides its marks, which
    /// the reads of them carry to ``sessionConditions(filter:)``: `, app` and `, os` when `filter`
    /// has them.
    private static func sessionColumns(_ filter: ReportFilter) -> String {
        (filter.appVersion != nil ? ", app" : "") + (filter.os != nil ? ", os" : "")
    }

    /// ``DwellHistogram/bucket(of:)`` in SQL: the value below 16, else 16 buckets per power of
    /// two. The power is `log2` of the value (at least 16 in that branch, so every shift stays in
    /// range), then put right exactly with integer shifts where the floating point was one off.
    static func bucket(_ value: String) -> String {
        let atLeast16 = "greatest(\(value), 16)"
        let estimate = "least(greatest(toInt64(log2(toFloat64(\(atLeast16)))), 4), 62)"
        let exponent = """
            (\(estimate) - toInt64(bitShiftLeft(toInt64(1), \(estimate)) > \(atLeast16))
                + toInt64(\(estimate) < 62 AND bitShiftLeft(toInt64(1), \(estimate) + 1) <= \(atLeast16)))
            """
        return """
            if(\(value) < 16, greatest(0, \(value)),
                16 + (\(exponent) - 4) * 16 + bitAnd(bitShiftRight(\(atLeast16), \(exponent) - 4), 15))
            """
    }

    // MARK: Events

    /// A project's events passing `filter` exactly (as the SQLite store's events), at most
    /// `limit`; the payload only when `properties`.
    func analyticsEvents(projectId: Int64, filter: ReportFilter, properties: Bool, limit: Int) -> String {
        var conditions = ["project_id = \(projectId)", unique(projectId: projectId)]
        if let from = filter.from { conditions.append("time >= \(from.millisecondsSince1970)") }
        if let to = filter.to { conditions.append("time < \(to.millisecondsSince1970)") }
        if let version = filter.appVersion {
            conditions.append("app_version = \(ClickHouseFormat.literal(version))")
        }
        if let os = filter.os { conditions.append("os = \(ClickHouseFormat.literal(os))") }
        if let page = filter.page { conditions.append("page = \(ClickHouseFormat.literal(page))") }
        return """
            SELECT type, name, time, anonymous_id, user_id, session_id, page, element_path, similar_path,
                element_text, item_id, duration_ms, app_version, os, \(properties ? "payload" : "''")
            FROM \(database).\(tables.events) WHERE \(conditions.joined(separator: " AND ")) LIMIT \(max(0, limit))
            """
    }

    /// The condition on events that selects a person's (``PersonSelection``: its user id, or
    /// one of its anonymous ids on events without a user id).
    static func personCondition(person: String, anonymousIds: Set<String>) -> String {
        """
        (user_id = \(ClickHouseFormat.literal(person)) OR (ifNull(user_id, '') = '' AND device IN (\(list(anonymousIds)))))
        """
    }

    /// A person's events, in stored order.
    func personEvents(projectId: Int64, person: String, anonymousIds: Set<String>) -> String {
        """
        SELECT message_id, time, received_at, payload FROM \(database).\(tables.events)
        WHERE project_id = \(projectId) AND \(unique(projectId: projectId))
            AND \(Self.personCondition(person: person, anonymousIds: anonymousIds))
        ORDER BY sequence
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

    /// Deletes the identity links of a person or its anonymous ids from one shard's local table.
    func deletePersonLinks(projectId: Int64, person: String, anonymousIds: Set<String>) -> String {
        """
        ALTER TABLE \(database).identities_local DELETE
        WHERE project_id = \(projectId)
            AND (user_id = \(ClickHouseFormat.literal(person)) OR anonymous_id IN (\(Self.list(anonymousIds))))
        """
    }

    /// The stored events of a project before `time` (ms since 1970).
    func eventsBefore(projectId: Int64, time: Int64) -> String {
        """
        SELECT count() FROM \(database).\(tables.events)
        WHERE project_id = \(projectId) AND time < \(time) AND \(unique(projectId: projectId))
        """
    }

    /// Deletes a project's events before `time` from one shard's local table (retention).
    func deleteEventsBefore(projectId: Int64, time: Int64) -> String {
        "ALTER TABLE \(database).events_local DELETE WHERE project_id = \(projectId) AND time < \(time)"
    }

    /// Deletes a project's aggregated rows of the days before `day` from one shard's aggregate
    /// tables (retention deletes whole days: the events before the first moment of `day`).
    func deleteAggregatesBefore(projectId: Int64, day: Int64) -> [String] {
        aggregates.map {
            "ALTER TABLE \(database).\($0.name)_local DELETE WHERE project_id = \(projectId) AND day < \(day)"
        }
    }

    /// Deletes the records of a project's redundant copies before `time` from one shard's local
    /// table (each record carries its copy's time, so those of exactly the deleted copies go).
    func deleteCopiesBefore(projectId: Int64, time: Int64) -> String {
        "ALTER TABLE \(database).duplicate_copies_local DELETE WHERE project_id = \(projectId) AND time < \(time)"
    }

    /// The mutations of this database a shard has not finished.
    var pendingMutations: String {
        "SELECT count() FROM system.mutations WHERE database = \(ClickHouseFormat.literal(database)) AND is_done = 0"
    }

    /// Every identity link of a project with when it was first seen, oldest first.
    func identityLinkTimes(projectId: Int64) -> String {
        """
        SELECT anonymous_id, user_id, min(first_seen) AS seen FROM \(database).\(tables.identities)
        WHERE project_id = \(projectId) GROUP BY anonymous_id, user_id ORDER BY seen, anonymous_id, user_id
        """
    }

    /// `items` as a list of literals (`''` for none, which matches nothing useful).
    static func list(_ items: Set<String>) -> String {
        items.isEmpty ? "''" : items.sorted().map(ClickHouseFormat.literal).joined(separator: ", ")
    }

    // MARK: Screens

    /// The newest `sequence` among a project's events (of the devices `devices`, when given):
    /// `(sequence, count)`, `(0, 0)` when there is none.
    func newestSequence(projectId: Int64, devices: Set<String>?) -> String {
        let device = devices.map { " AND device IN (\(Self.list($0)))" } ?? ""
        return """
            SELECT max(sequence), count() FROM \(database).\(tables.events)
            WHERE project_id = \(projectId)\(device)
            """
    }

    /// The `$element_click` events of these devices with a `sequence` in `after`…`through`, oldest
    /// first: `sequence, time, anonymous_id, page, element_path, similar_path, element_text`.
    func deviceClicks(projectId: Int64, devices: Set<String>, after: Int64, through: Int64, limit: Int)
        -> String
    {
        """
        SELECT sequence, time, anonymous_id, page, element_path, similar_path, element_text
        FROM \(database).\(tables.events)
        WHERE project_id = \(projectId) AND device IN (\(Self.list(devices))) AND isNotNull(anonymous_id)
            AND \(unique(projectId: projectId))
            AND sequence > \(max(0, after)) AND sequence <= \(max(0, through))
            AND type = 'track' AND name = '$element_click' AND isNotNull(element_path)
        ORDER BY sequence LIMIT \(max(0, limit))
        """
    }

    /// The newest day of a project's counted events (the SQLite rollups' newest day) and whether
    /// there is any: `(day, count)`, `(0, 0)` when there is none. Redundant copies change neither.
    func newestCountedDay(projectId: Int64) -> String {
        """
        SELECT max(day), count() FROM \(database).\(tables.events)
        WHERE project_id = \(projectId) AND arrayExists(role -> bitAnd(role, 1) = 1, roles)
        """
    }

    /// Each app version's newest `$plan_health` report from day `since` on, by its newest day
    /// then its version, both descending: `app_version, day, time, payload` (the newest time's
    /// report; of two at one time, the one stored last).
    func planHealthReports(projectId: Int64, since day: Int64, limit: Int) -> String {
        """
        SELECT ifNull(app_version, '') AS version, max(day) AS newest, max(time),
            argMax(payload, (time, sequence))
        FROM \(database).\(tables.events)
        WHERE project_id = \(projectId) AND type = 'track' AND name = \(ClickHouseFormat.literal(PlanHealthReport.eventName))
            AND day >= \(day)
        GROUP BY version ORDER BY newest DESC, version DESC LIMIT \(max(0, limit))
        """
    }

    // MARK: Every statement

    /// Every statement the store sends, labelled, for a project and a filter: the schema of one
    /// shard (with ``Tables/local``, only the local tables: a single node has no cluster), the
    /// writer's check of its copies, and every read. Tests run them on each ClickHouse release.
    func everyStatement(projectId: Int64, filter: ReportFilter) -> [(label: String, sql: String)] {
        var statements: [(label: String, sql: String)] = []
        let schema =
            tables.events == Tables.local.events ? schema.dropLast(distributedTables.count) : schema[...]
        for (index, statement) in schema.enumerated() {
            statements.append(("schema \(index + 1)", statement))
        }
        // A step on every page, one on one page only, and a source of two steps.
        let added = EventDefinition(
            id: "added", name: "Added", matchers: [EventMatcher(event: "Added", page: "Cart")])
        let steps: [FunnelStep] = [.page("Home"), .event("Product Viewed"), .defined(added), .page("Home")]
        let sources = FunnelSources(
            steps: steps,
            counts: [
                RollupPageCount(kind: .trackEvents, key: "Added", page: "Cart", day: 0, count: 1, text: nil)
            ])
        var onPage = filter
        onPage.page = onPage.page ?? "Home"
        statements += [
            (
                "stored copies",
                storedCopies(projectId: projectId, devices: ["a1", ""], messageIds: ["m1"])
            ),
            ("redundant copies", redundantCopies(projectId: projectId)),
            ("event count", eventCount(projectId: projectId)),
            ("lost event count", lostEventCount(projectId: projectId)),
            ("event time span", eventTimeSpan(projectId: projectId)),
            ("identity links", identityLinks(projectId: projectId)),
            ("recent events", recentEvents(projectId: projectId, limit: 50, after: 1)),
            ("rollup counts", rollupCounts(projectId: projectId, filter: filter)),
            (
                "rollup page counts",
                rollupPageCounts(projectId: projectId, filter: filter, kinds: Set(RollupKind.allCases))
            ),
            (
                "person days",
                rollupPersonDays(
                    projectId: projectId, filter: filter, kind: .pageViews, keys: nil, pages: true)
            ),
            (
                "person days of keys",
                rollupPersonDays(
                    projectId: projectId, filter: filter, kind: .trackEvents, keys: ["a", "b"], pages: false)
            ),
            (
                "funnel people",
                funnelPeople(
                    projectId: projectId, filter: filter,
                    sources: sources ?? FunnelSources(steps: [], counts: [])!,
                    stepCount: steps.count, windowMilliseconds: 86_400_000)
            ),
            (
                "people counts",
                peopleCounts(projectId: projectId, filter: filter, kind: .trackEvents, keys: ["a", "b"])
            ),
            ("active people", activePeople(projectId: projectId, filter: filter)),
            ("visitors", visitors(projectId: projectId, filter: filter)),
            ("retention", retention(projectId: projectId, filter: filter, returnEvent: nil, days: 7)),
            (
                "people of selections",
                peopleCounts(
                    projectId: projectId, filter: filter,
                    selections: [
                        [RollupReports.PeopleSelector(kind: .elementClicks, key: "#buy", page: "Home")],
                        [
                            RollupReports.PeopleSelector(kind: .pageViews, key: "Home", page: "Home"),
                            RollupReports.PeopleSelector(kind: .anyEvent, key: "", page: "Cart"),
                        ],
                    ])
            ),
            (
                "retention of an event",
                retention(projectId: projectId, filter: filter, returnEvent: "Product Viewed", days: 7)
            ),
            ("sessions", storedSessions(projectId: projectId, filter: filter)),
            ("sessions on a page", storedSessions(projectId: projectId, filter: onPage)),
            ("moves on a page", pageMoves(projectId: projectId, filter: onPage, page: onPage.page ?? "")),
            (
                "element texts",
                elementTexts(
                    projectId: projectId, filter: filter, kinds: [.elementClicks, .similarElementClicks])
            ),
            ("dwell", rollupDwell(projectId: projectId, filter: filter)),
            ("dwell of every session", rollupDwell(projectId: projectId, filter: filter, narrow: false)),
            ("session rows in range", sessionRowsInRange(projectId: projectId, filter: filter, page: nil)),
            (
                "session rows on a page in range",
                sessionRowsInRange(projectId: projectId, filter: filter, page: onPage.page)
            ),
            (
                "sessions on a page of every session",
                storedSessions(projectId: projectId, filter: onPage, narrow: false)
            ),
            ("dwell on a page", rollupDwell(projectId: projectId, filter: onPage)),
            ("moves", rollupMoves(projectId: projectId, filter: filter, from: nil)),
            ("moves from a page", rollupMoves(projectId: projectId, filter: filter, from: "Home")),
            ("events", analyticsEvents(projectId: projectId, filter: filter, properties: false, limit: 1000)),
            (
                "events with properties",
                analyticsEvents(projectId: projectId, filter: onPage, properties: true, limit: 1000)
            ),
            (
                "delete person events",
                deletePersonEvents(projectId: projectId, person: "u1", anonymousIds: ["a1"])
            ),
            (
                "delete person links",
                deletePersonLinks(projectId: projectId, person: "u1", anonymousIds: ["a1"])
            ),
            (
                "delete person copies",
                deletePersonCopies(projectId: projectId, person: "u1", anonymousIds: ["a1"])
            ),
            ("negative counts", negativeCounts(projectId: projectId, person: "u1", anonymousIds: ["a1"])),
            ("events before", eventsBefore(projectId: projectId, time: 1_000)),
            ("delete events before", deleteEventsBefore(projectId: projectId, time: 1_000)),
            ("delete copies before", deleteCopiesBefore(projectId: projectId, time: 1_000)),
            ("pending mutations", pendingMutations),
        ]
        for (index, statement) in deletePersonAggregates(
            projectId: projectId, person: "u1", anonymousIds: ["a1"]
        )
        .enumerated() {
            statements.append(("delete person aggregates \(index + 1)", statement))
        }
        for (index, statement) in deleteAggregatesBefore(projectId: projectId, day: 1).enumerated() {
            statements.append(("delete aggregates before \(index + 1)", statement))
        }
        statements += [
            ("newest sequence", newestSequence(projectId: projectId, devices: nil)),
            ("newest sequence of devices", newestSequence(projectId: projectId, devices: ["a1", "a2"])),
            (
                "device clicks",
                deviceClicks(projectId: projectId, devices: ["a1"], after: 1, through: .max, limit: 200)
            ),
            ("newest counted day", newestCountedDay(projectId: projectId)),
            ("plan health reports", planHealthReports(projectId: projectId, since: 1, limit: 20)),
        ]
        return statements
    }
}
