import FootprintWire

/// Every statement the ClickHouse store sends, its extensions one per concern: the schema, the
/// writes, the conditions the reads share, the reads of events, rollups, funnels, people,
/// sessions and screens, and the deletions. The tests list them all and run each on another
/// ClickHouse release.
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
    /// Whether each shard has replicas, its tables `Replicated*` ones (``engine(_:_:table:)``).
    /// Default `false`.
    var replicated = false
    /// The cap on a dwell measured as the gap to the next page view (as the SQLite rollups).
    var dwellCap: Int64 = ReportEngine.Configuration().sessionTimeoutMilliseconds
    /// The tables reads and inserts name: the `Distributed` ones, or (``local``) each shard's own.
    var tables = Tables.distributed

    /// The names of the tables statements read and write.
    struct Tables: Sendable {
        var events: String, identities: String, lostEvents: String, duplicateCopies: String
        var dailyCounts: String, elementTexts: String, personDays: String, personBlocks: String
        var stepTimes: String, sessions: String
        var sessionPages: String, touches: String, settledFigures: String, settledRounds: String
        var settledPeople: String, settledTotals: String, touchedRows: String, touchedLinks: String
        var settledSessions: String
        /// Through the `Distributed` tables: every shard.
        static let distributed = Tables(
            events: "events", identities: "identities", lostEvents: "lost_events",
            duplicateCopies: "duplicate_copies", dailyCounts: "daily_counts", elementTexts: "element_texts",
            personDays: "person_days",
            personBlocks: "person_blocks", stepTimes: "step_times", sessions: "sessions",
            sessionPages: "session_pages", touches: "touched_sessions", settledFigures: "settled_figures",
            settledRounds: "settled_rounds", settledPeople: "settled_people", settledTotals: "settled_totals",
            touchedRows: "touched_rows", touchedLinks: "touched_links", settledSessions: "settled_sessions")
        /// One node's own tables (a single-node check of the SQL).
        static let local = Tables(
            events: "events_local", identities: "identities_local", lostEvents: "lost_events_local",
            duplicateCopies: "duplicate_copies_local", dailyCounts: "daily_counts_local",
            elementTexts: "element_texts_local",
            personDays: "person_days_local", personBlocks: "person_blocks_local",
            stepTimes: "step_times_local", sessions: "sessions_local",
            sessionPages: "session_pages_local", touches: "touched_sessions_local",
            settledFigures: "settled_figures_local", settledRounds: "settled_rounds_local",
            settledPeople: "settled_people_local", settledTotals: "settled_totals_local",
            touchedRows: "touched_rows_local",
            touchedLinks: "touched_links_local", settledSessions: "settled_sessions_local")
    }

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
}
