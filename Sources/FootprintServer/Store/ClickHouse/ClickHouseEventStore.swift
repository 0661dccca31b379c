import Dispatch
import FootprintWire
import Foundation

/// The scale-out store of events: events in ClickHouse, spread over its shards. Projects, keys,
/// remote config, definitions, tokens and sessions are in a ``MetadataStore`` beside it (a small
/// SQLite file every collector on a host shares, ``Stores``), where this store also logs
/// deletions and retention (``MetadataLedger``).
///
/// Writes are grouped like the SQLite store's (``GroupCommitQueue``): the batches queued while
/// an INSERT runs go in the next one, one INSERT per group through the `Distributed` table with
/// `insert_distributed_sync=1`, so a request is answered only once every shard holds its rows.
/// After inserting, and before answering, one query reads every stored copy of the group's
/// messages; each copy but the first stored of a message (smallest `sequence`) is recorded in
/// `duplicate_copies`, which every read leaves out. So reports count
/// each message once without `FINAL`, whichever collectors stored its copies (see
/// docs/ARCHITECTURE.md, *Exactly once without `FINAL`*).
///
/// Every report is answered by aggregate SQL (``ClickHouseSQL``) that returns the same rows the
/// SQLite rollups give, so the shared ``ReportService`` builds the same reports.
public final class ClickHouseEventStore: EventStore {
    /// Store settings.
    public struct Configuration: Sendable {
        /// The longest a group of writes waits, in seconds, for batches being decoded at that
        /// instant (see ``SQLiteEventStore/Configuration/commitLinger``). Default 0.003.
        public var commitLinger = 0.003
        /// The shortest time between the starts of two INSERTs of one collector, in seconds: a
        /// batch that comes sooner waits for the rest of it and goes in the same INSERT, so that
        /// under load ClickHouse gets fewer, larger parts. 0 to 10; default 0 (the batches queued
        /// while an INSERT runs go in the next one at once).
        public var commitInterval: Double = 0
        /// Seconds one group's writes (its INSERTs, then the check of its copies) may take
        /// each before the group fails as `unavailable` and its requests are answered 503 with
        /// `Retry-After`. Default 30.
        public var writeTimeout: Double = 30
        /// Seconds any other ClickHouse request (a report's query) may take. Default 60.
        public var requestTimeout: Double = 60
        /// Seconds the fill of an aggregate table from a shard's events may take, when the store
        /// opens a database made before that table (``createSchema()``). Default 3,600.
        public var fillTimeout: Double = 3_600
        /// The largest ClickHouse answer read, in bytes. Default 512 MiB.
        public var maximumResponseBytes = 512 << 20
        /// ClickHouse settings every request carries unless it gives its own
        /// (``ClickHouseClient/Configuration/settings``). Default: a `GROUP BY` whose state
        /// outgrows 2 GB goes on on disk instead of failing at the server's memory limit.
        public var querySettings = ClickHouseClient.Configuration().settings
        /// The most events one report reads into memory (reports over ranges that are not whole
        /// days); a range holding more is refused with `invalidQuery`. Default 5,000,000.
        public var maximumReportEvents = 5_000_000
        /// The metadata file's settings, when this store opens it
        /// (``init(location:metadataPath:configuration:)``).
        public var metadata = SQLiteEventStore.Configuration()
        /// Seconds the live connect view stays behind the wall clock when it reads a device's
        /// clicks, so that another collector's INSERT still under way (its events numbered a
        /// moment earlier than ones already visible) is not passed over. At most 86,400; a
        /// negative or non-finite value counts as 0. Default 2.
        public var liveClickSettle: Double = 2
        /// A directory for this collector's write-ahead spool (``ClickHouseSpool``), or `nil`
        /// for none. With a spool, a group is answered once its rows are fsynced there, and a
        /// thread of its own ships them in bulk (one INSERT per table once 10,000 rows or a
        /// second have gathered); a group's answer then counts as duplicates only the copies
        /// within the group, and reports see its events once they are shipped. The store ships
        /// what the spool holds when it opens. Default `nil`.
        public var spoolDirectory: String?
        /// The most bytes the spool holds: past it, groups fail as `unavailable` (503 with
        /// `Retry-After`) until the shipper catches up. Default 1 GiB.
        public var spoolBytes = 1 << 30
        /// The rows at which the spool's open segment is sealed for shipping: each sealed segment
        /// is one INSERT per table, so larger ones make fewer, larger parts (less merging on the
        /// shards) while reports see their events later. Default 10,000.
        public var spoolSealRows = 10_000
        /// The seconds after which the spool's open segment is sealed however few rows it holds.
        /// Default 1.
        public var spoolSealInterval = 1.0
        /// Whether shipping stops after a segment's INSERTs, before its copy check and mark.
        /// Tests set it to play a collector killed between the two, then open the spool again.
        var spoolStopsBeforeMark = false
        /// Whether a group checks for copies of its events after inserting them and records the
        /// redundant ones. Tests turn it off to play a collector stopped between its INSERT and
        /// its check (one that never answered), and check that a resend then records them.
        var checksCopies = true
        /// When set, that many of the next groups fail as `unavailable` after their INSERTs
        /// succeeded, as when a replica dies before its answer reaches the collector. Tests set it.
        var insertAnswersLost: LockedValue<Int>?
        /// The longest a write on replicated shards waits, in seconds, once its INSERTs were
        /// answered, for every replica to hold its rows before it is answered itself
        /// (``ReplicationWait``); past it the write fails as `unavailable` and is kept as
        /// unsettled. 0 answers once one replica of each shard holds them. At most 60;
        /// default 5.
        public var replicationWait: Double = 5
        /// Seconds a replica's fetches may be behind (`absolute_delay`) for writes to wait for
        /// it: a replica catching up after a restart is passed over, and the writes meanwhile
        /// are on one replica of their shard until it fetches them. Default 5.
        public var maximumReplicaDelay: UInt64 = 5
        /// Seconds between two checks of the unsettled INSERTs (``UnsettledInserts``). Default 2.
        var settleInterval: Double = 2
        /// Seconds between two rounds of the settled session figures of a project
        /// (``settleSessionFigures(projectId:)``), run by the settling thread while its sessions
        /// are touched; 0 for none (the reads then compute the figures from the marks, as before
        /// any round). Default 300.
        public var settledInterval: Double = 300
        /// Seconds a round's cutoff stays behind the shards' clocks, longer than an INSERT takes:
        /// an INSERT still under way at the cutoff whose touch comes later voids the round.
        /// Default 30.
        public var settledMargin: Double = 30
        /// The days a round keeps its figures per session too, the latest with sessions and those
        /// before it (its *window*, see docs/ARCHITECTURE.md, *Settled session figures*): a read
        /// with sessions touched since on those days computes only those sessions again, not every
        /// session of the day. 0 for none. Default 2 (a day's late events come on the day after).
        public var settledWindowDays = 2
        /// The most copies of unsettled INSERTs kept (``UnsettledInserts/capacity``). Default
        /// 200,000.
        var unsettledCapacity = 200_000
        /// The low bits of this store's sequences (below ``ClickHouseEventStore/sequenceTags``);
        /// random when `nil` (`--collector-tag`).
        public var sequenceTag: UInt64?
        /// Creates the default configuration.
        public init() {}
    }

    /// Where the events are.
    public let location: ClickHouseLocation
    /// Where projects, keys, config, definitions and tokens are.
    public var metadata: any MetadataStore { ledger }
    /// This store with its metadata, as reports and the APIs take them (closing them closes
    /// this store; see ``close()``).
    public var stores: Stores { Stores(metadata: metadata, events: self) }
    /// The metadata store, where deletions and retention are logged.
    let ledger: any MetadataStore & MetadataLedger
    /// Whether ``close()`` closes the metadata store too (this store opened it).
    private let ownsMetadata: Bool
    let configuration: Configuration
    let client: ClickHouseClient
    let sql: ClickHouseSQL
    private let groups: GroupCommitQueue<IngestBatch, WriteOutcome>
    /// The write-ahead spool, when ``Configuration/spoolDirectory`` names one.
    let spool: ClickHouseSpool?
    /// Held while a spool segment ships (by the shipper, or at open and close).
    let shipping = NSLock()
    /// Whether the shipper thread is to stop.
    private let shipperStopped = LockedValue(false)
    /// Signalled when the shipper thread has stopped.
    private let shipperDone = DispatchSemaphore(value: 0)
    /// INSERTs that failed after they were sent, to check again once settled
    /// (``settleUnsettledInserts()``).
    let unsettled: LockedValue<UnsettledInserts>
    /// Whether the settling thread is to stop.
    private let settlerStopped = LockedValue(false)
    /// Wakes the settling thread early (when messages are kept, and to stop it).
    let settlerWake = DispatchSemaphore(value: 0)
    /// Signalled when the settling thread has stopped.
    private let settlerDone = DispatchSemaphore(value: 0)
    /// Replicas writes were answered without, and writes failed because a replica did not fetch
    /// their rows in time (``awaitReplicas()``).
    let replication = LockedValue((passedOver: 0, timeouts: 0))
    /// The messages whose first stored copies the copy checks found tied so far
    /// (``CopyDecision/tied``).
    let tiedMessages = LockedValue(0)
    /// The last ``RecentEvent/sequence`` given out (see ``sequence(after:now:tag:)``).
    private let lastSequence: LockedValue<UInt64>
    /// The low bits of every sequence this store gives out.
    let sequenceTag: UInt64

    /// Opens the ClickHouse database at `location`, creating its tables on every shard when
    /// missing (``createSchema()``), with its metadata in `metadata` (which records this store,
    /// unless read-only). Closing this store leaves `metadata` open.
    public convenience init(
        location: ClickHouseLocation, metadata: SQLiteEventStore,
        configuration: Configuration = Configuration()
    ) throws(ServerError) {
        try self.init(
            location: location, ledger: metadata, owning: false, readOnly: metadata.configuration.readOnly,
            configuration: configuration)
    }

    /// Opens the ClickHouse database at `location`, creating its tables on every shard when
    /// missing, with its metadata in PostgreSQL (which records this store). Closing this store
    /// leaves `metadata` open.
    public convenience init(
        location: ClickHouseLocation, metadata: PostgresMetadataStore,
        configuration: Configuration = Configuration()
    ) throws(ServerError) {
        try self.init(
            location: location, ledger: metadata, owning: false, readOnly: false, configuration: configuration
        )
    }

    /// Opens the metadata file at `metadataPath` (with ``Configuration/metadata``) and the
    /// ClickHouse database at `location`; closing this store closes both.
    public convenience init(
        location: ClickHouseLocation, metadataPath: String, configuration: Configuration = Configuration()
    ) throws(ServerError) {
        let file = try SQLiteEventStore(path: metadataPath, configuration: configuration.metadata)
        try self.init(
            location: location, ledger: file, owning: true, readOnly: configuration.metadata.readOnly,
            configuration: configuration)
    }

    private init(
        location: ClickHouseLocation, ledger: any MetadataStore & MetadataLedger, owning: Bool,
        readOnly: Bool,
        configuration: Configuration
    ) throws(ServerError) {
        self.location = location
        self.configuration = configuration
        var clientConfiguration = ClickHouseClient.Configuration()
        clientConfiguration.requestTimeout = configuration.requestTimeout
        clientConfiguration.maximumResponseBytes = configuration.maximumResponseBytes
        clientConfiguration.settings = configuration.querySettings
        self.client = ClickHouseClient(location: location, configuration: clientConfiguration)
        self.sql = ClickHouseSQL(
            database: location.database, cluster: location.cluster, replicated: location.isReplicated)
        self.sequenceTag =
            (configuration.sequenceTag ?? .random(in: 0..<Self.sequenceTags)) % Self.sequenceTags
        self.lastSequence = LockedValue(sequenceTag)
        self.groups = GroupCommitQueue(
            label: "footprint.clickhouse.writer", linger: configuration.commitLinger,
            interval: configuration.commitInterval)
        self.ledger = ledger
        self.ownsMetadata = owning
        self.unsettled = LockedValue(UnsettledInserts(capacity: configuration.unsettledCapacity))
        do {
            spool = try configuration.spoolDirectory.map { directory throws(ServerError) in
                var spooling = ClickHouseSpool.Configuration(directory: directory)
                spooling.maximumBytes = configuration.spoolBytes
                spooling.sealRows = configuration.spoolSealRows
                spooling.sealInterval = configuration.spoolSealInterval
                return try ClickHouseSpool(configuration: spooling)
            }
        } catch {
            if owning { ledger.close() }
            throw ServerError(code: error.code, message: "cannot open \(location): \(error.message)")
        }
        do {
            try createSchema()
            if !readOnly {
                try ledger.recordEventStore(location, at: SystemClock().now())
            }
        } catch {
            spool?.close()
            if owning { ledger.close() }
            throw ServerError(code: error.code, message: "cannot open \(location): \(error.message)")
        }
        groups.start { [weak self] batches in
            guard let self else {
                return .failure(ServerError(code: .closed, message: "the store is closed"))
            }
            if let spool = self.spool { return self.commit(batches, to: spool) }
            return self.commit(batches)
        }
        if let spool {
            // What an earlier run acknowledged ships before this one takes anything; a failure
            // (ClickHouse down) leaves it to the shipper, which keeps trying.
            try? shipHeldSegments()
            let thread = Thread { [weak self, shipperStopped, shipperDone] in
                self?.runShipper(spool, stopped: shipperStopped)
                shipperDone.signal()
            }
            thread.name = "footprint.clickhouse.shipper"
            thread.start()
        } else {
            shipperDone.signal()
        }
        let settler = Thread { [weak self, settlerStopped, settlerWake, settlerDone] in
            var nextRounds = Date()
            var nextDrop = Date()
            while !settlerStopped.withLock({ $0 }) {
                _ = settlerWake.wait(timeout: .now() + max(0.05, configuration.settleInterval))
                guard let self else { break }
                if self.unsettled.withLock({ $0.count }) > 0 { try? self.settleUnsettledInserts() }
                if Date() >= nextRounds {
                    try? self.settleTouchedProjects()
                    nextRounds = Date().addingTimeInterval(min(60, max(1, configuration.settledInterval / 5)))
                }
                // Whole hours go: once every few minutes is enough.
                if Date() >= nextDrop {
                    self.dropStaleTouchedHours()
                    nextDrop = Date().addingTimeInterval(600)
                }
            }
            settlerDone.signal()
        }
        settler.name = "footprint.clickhouse.settler"
        settler.start()
    }

    deinit {
        groups.close()
        shipperStopped.withLock { $0 = true }
        settlerStopped.withLock { $0 = true }
        settlerWake.signal()
        spool?.close()
    }

    /// A client for the statements that may run long: an aggregate table's fill and a round of
    /// settled session figures (at most ``Configuration/fillTimeout``, with the store's settings).
    var longClient: ClickHouseClient {
        var long = ClickHouseClient.Configuration()
        long.requestTimeout = configuration.fillTimeout
        long.settings = configuration.querySettings
        return ClickHouseClient(location: location, configuration: long)
    }

    /// Creates the database and the local tables on every shard, then the `Distributed` tables
    /// on every shard (18.16 has no `ON CLUSTER` without ZooKeeper). Safe to run again. With
    /// replicas, on every replica that can be reached, as long as each shard has one (a replica
    /// down meanwhile gets them when a store opens again after it returns; one whose disk was
    /// lost gets its tables' definitions from a twin: scripts/cluster.sh `start-replica`).
    ///
    /// An aggregate table's materialized view is created last, once the table is complete. On a
    /// shard that already holds events and has no view for the table (a database made by an
    /// earlier version, or a fill cut short), the table is made anew and filled from those events
    /// first (at most ``Configuration/fillTimeout``); without replicas, so is one an earlier
    /// version sorted otherwise (`sessions`, now by day first). With replicas such a table stays
    /// as it is: the reads give the same answers from it, some of them slower. Events inserted
    /// between the fill and the view would not be aggregated: upgrade with the collectors
    /// stopped, start one, then the others.
    func createSchema() throws(ServerError) {
        let filler = longClient
        var reached: [ClickHouseLocation.Node] = []
        for shard in location.shards {
            let tables: [(name: String, rows: UInt64)]
            do {
                tables = try client.rows(sql.tablesOnNode, on: shard)
            } catch {
                // A replica that is down gets its tables later; a shard must have one.
                guard location.isReplicated, error.code == .unavailable else { throw error }
                continue
            }
            // A replicated table is filled through the first replica of its shard the store
            // reaches; its twins fetch the rows.
            let twins = location.replicaSets.first { $0.contains(shard) } ?? [shard]
            let firstOfShard = !reached.contains(where: twins.contains)
            reached.append(shard)
            let holdsEvents = firstOfShard && tables.contains { $0.name == "events_local" && $0.rows != 0 }
            for statement in sql.localTables + sql.retiredTables {
                _ = try client.execute(statement, on: shard)
            }
            try addMessageHash(on: shard, reached: reached)
            let keys = try client.rows(sql.sortingKeys, on: shard)
            for aggregate in sql.aggregates {
                var viewed = tables.contains { $0.name == "\(aggregate.name)_mv" }
                // A table sorted as an earlier version sorted it is made anew, where that can be.
                if !location.isReplicated, viewed,
                    let key = keys.first(where: { $0.name == "\(aggregate.name)_local" })?.key,
                    !ClickHouseSQL.isSorted(key, as: aggregate)
                {
                    _ = try client.execute(sql.dropView(aggregate), on: shard)
                    _ = try client.execute(sql.dropTable(aggregate), on: shard)
                    viewed = false
                }
                // A replicated table is not dropped (its twins share it): only one whose rows can
                // be added twice (``ClickHouseSQL/Aggregate/idempotent``) is filled, and a fill cut
                // short is filled again on top.
                if holdsEvents && !viewed && aggregate.filled
                    && (!location.isReplicated || aggregate.idempotent)
                {
                    if !location.isReplicated { _ = try client.execute(sql.dropTable(aggregate), on: shard) }
                    _ = try client.execute(sql.createTable(aggregate), on: shard)
                    _ = try filler.execute(
                        sql.fill(aggregate), settings: ["max_execution_time": "0"], on: shard)
                } else {
                    _ = try client.execute(sql.createTable(aggregate), on: shard)
                }
                _ = try client.execute(sql.createView(aggregate), on: shard)
            }
        }
        for replicas in location.replicaSets where !replicas.contains(where: reached.contains) {
            throw ServerError(
                code: .unavailable, message: "no replica of the shard \(replicas[0]) can be reached")
        }
        for shard in reached {
            for statement in sql.distributedTables { _ = try client.execute(statement, on: shard) }
            if try client.execute(sql.hasMessageHash("events"), on: shard, isRead: true).isEmpty {
                _ = try client.execute(sql.addMessageHash(to: "events"), on: shard)
            }
        }
    }

    /// Gives `events_local` on `shard` the column ``ClickHouseSQL/messageHash`` when it was made
    /// before it. With replicas, the first replica of a shard that the store reaches runs the
    /// `ALTER` and its twins take it through ZooKeeper: a later one (another of its shard's replicas
    /// among `reached`) waits for it, at most a minute.
    private func addMessageHash(on shard: ClickHouseLocation.Node, reached: [ClickHouseLocation.Node])
        throws(ServerError)
    {
        let has = { () throws(ServerError) -> Bool in
            try !self.client.execute(self.sql.hasMessageHash("events_local"), on: shard, isRead: true).isEmpty
        }
        guard try !has() else { return }
        let twins = (location.replicaSets.first { $0.contains(shard) } ?? []).filter { $0 != shard }
        guard twins.contains(where: reached.contains) else {
            _ = try client.execute(sql.addMessageHash(to: "events_local"), on: shard)
            return
        }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if try has() { return }
            usleep(100_000)
        }
        throw ServerError(
            code: .unavailable,
            message: "\(shard) has not taken the message_hash column from its twin in a minute")
    }

    /// One server of each shard, for statements each shard runs once (a `Replicated*` table
    /// copies their effect to the other replicas): each shard itself, or with replicas the
    /// first of its replicas that answers.
    func oneReplicaOfEachShard() throws(ServerError) -> [ClickHouseLocation.Node] {
        guard location.isReplicated else { return location.shards }
        var chosen: [ClickHouseLocation.Node] = []
        for replicas in location.replicaSets {
            var answering: ClickHouseLocation.Node?
            var lastError: ServerError?
            for replica in replicas where answering == nil {
                do {
                    _ = try client.execute("SELECT 1", on: replica, isRead: true)
                    answering = replica
                } catch {
                    lastError = error
                }
            }
            guard let answering else {
                throw lastError ?? ServerError(code: .unavailable, message: "no replica of a shard answers")
            }
            chosen.append(answering)
        }
        return chosen
    }

    /// Drops the database on every shard (tests clean up with it).
    public func dropDatabase() throws(ServerError) {
        for shard in location.shards { _ = try client.execute(sql.dropDatabase, on: shard) }
    }

    // MARK: Writes

    public func preparingWrite<T>(_ body: () throws -> T) rethrows -> T {
        try groups.preparingWrite(body)
    }

    public func write(_ batch: IngestBatch) throws(ServerError) -> WriteOutcome {
        try groups.write(batch)
    }

    public func write(
        _ batch: IngestBatch, completion: @escaping @Sendable (Result<WriteOutcome, ServerError>) -> Void
    ) {
        groups.write(batch, completion: completion)
    }

    /// Batches waiting for the next INSERT.
    public var queuedWrites: Int { groups.queuedWrites }

    /// How many collectors' sequences can differ by their low bits: a store's sequences are
    /// all its tag modulo this. 16 keeps a sequence about the wall clock in microseconds (below
    /// 2^53, exact in the dashboard's JavaScript) and lets one store give out 62,500 a second
    /// before it runs ahead of the clock.
    public static let sequenceTags: UInt64 = 16

    /// The sequence for `microseconds` since 1970 on a store with `tag`: the microseconds with
    /// their low bits (below ``sequenceTags``) replaced by `tag`.
    static func sequence(microseconds: UInt64, tag: UInt64) -> UInt64 {
        microseconds - microseconds % sequenceTags + tag % sequenceTags
    }

    /// The sequence after `last` on a store with `tag` at `now` (seconds since 1970): the wall
    /// clock's ``sequence(microseconds:tag:)``, or the next one with that tag after `last` when
    /// the clock stands still or goes back. So one store's sequences grow, each is `tag` modulo
    /// ``sequenceTags``, and two stores with different tags never give out the same one.
    static func sequence(after last: UInt64, now: Double, tag: UInt64) -> UInt64 {
        let clock = sequence(microseconds: UInt64(max(0, min(now * 1_000_000, 0x1p60))), tag: tag)
        return max(sequence(microseconds: last, tag: tag) + sequenceTags, clock)
    }

    /// The next sequence number (``sequence(after:now:tag:)``).
    func nextSequence() -> UInt64 {
        let now = Date().timeIntervalSince1970
        return lastSequence.withLock { last in
            last = Self.sequence(after: last, now: now, tag: sequenceTag)
            return last
        }
    }

    /// Inserts a group of batches: its events (first copy in the group wins; the ids of deleted
    /// people refused), then the identity links and the evicted counts; then checks which of its
    /// messages are stored more than once and records every copy but the first stored as
    /// redundant. An event whose inserted copy is the first stored counts as stored, any other
    /// as a duplicate. Any failure fails the whole group, and its clients resend it; the resend's
    /// check then records whatever copies got in.
    private func commit(_ batches: [IngestBatch]) -> Result<[WriteOutcome], ServerError> {
        // The events of an INSERT that was sent, and its query: if the group fails, a shard may
        // hold them.
        var sent: (record: SpoolRecord, query: String)?
        do throws(ServerError) {
            // The ids of deleted people (kept in the metadata file, read again when it changed).
            let group = record(of: batches, deleted: try ledger.deletedIds())
            let query = insertQueryId(mark: group.record.mark)
            sent = (group.record, query)
            let started = Date()
            try insert(sql.insertEvents, rows: group.record.eventRows, queryId: query)
            try insert(sql.insertIdentities, rows: group.record.linkRows)
            try insert(sql.insertLostEvents, rows: group.record.lostRows)
            try awaitReplicas(started: started)
            if let lost = configuration.insertAnswersLost, lost.withLock(Self.takeOne) {
                throw ServerError(code: .unavailable, message: "the answer to the INSERT was lost (a test)")
            }
            var inserted: [[StoredCopy]] = []
            var events = group.record.events[...]
            for batch in group.batches {
                inserted.append(events.prefix(batch.held).map(\.copy))
                events = events.dropFirst(batch.held)
            }
            let refusals = group.batches.map(\.refused)
            var redundant: Set<StoredCopy> = []
            if configuration.checksCopies {
                for (project, group) in Dictionary(grouping: zip(batches, inserted), by: \.0.projectId) {
                    redundant.formUnion(try recordRedundantCopies(projectId: project, of: group.flatMap(\.1)))
                }
            }
            return .success(
                zip(batches, zip(inserted, refusals)).map { batch, result in
                    let stored = result.0.count(where: { !redundant.contains($0) })
                    return WriteOutcome(
                        stored: stored, duplicates: batch.events.count - stored - result.1.count,
                        refused: result.1)
                })
        } catch {
            if let sent { keepUnsettled([sent.record], query: sent.query) }
            return .failure(
                ServerError(code: error.code, message: "the batch could not be stored: \(error.message)"))
        }
    }

    /// Takes one from a positive `count`; whether there was one.
    private static func takeOne(_ count: inout Int) -> Bool {
        guard count > 0 else { return false }
        count -= 1
        return true
    }

    /// One stored copy of an event: its device (the anonymous id, `''` for none), message id and
    /// sequence.
    struct StoredCopy: Hashable {
        var device: String
        var messageId: String
        var sequence: UInt64

        /// The copy a row of ``ClickHouseSQL/storedCopies(projectId:of:)`` names.
        init(_ row: UnsettledInserts.Row) {
            let message = UnsettledInserts.message(of: row)
            self.init(device: message.device, messageId: message.messageId, sequence: row.sequence)
        }

        init(device: String, messageId: String, sequence: UInt64) {
            self.device = device
            self.messageId = messageId
            self.sequence = sequence
        }

        /// The message it is a copy of.
        var message: ClickHouseSQL.Message { ClickHouseSQL.Message(device: device, messageId: messageId) }
    }

    /// `rows` (`RowBinary`) inserted by `statement` through the `Distributed` tables, returning
    /// once every shard holds them; nothing when `rows` is empty. `queryId` is the INSERT's
    /// `query_id` (``insertQueryId(mark:)``).
    func insert(_ statement: String, rows: ClickHouseRowBinary, queryId: String? = nil) throws(ServerError) {
        guard !rows.isEmpty else { return }
        var settings = ["insert_distributed_sync": "1"]
        settings["query_id"] = queryId
        _ = try client.execute(
            statement, data: rows.bytes, settings: settings, timeout: configuration.writeTimeout)
    }

    /// Finds which messages of `copies` (just inserted) are stored more than once, reads their
    /// copies, and records each copy after the first stored (the smallest sequence) of a message
    /// in `duplicate_copies`, whichever collector stored it.
    /// - Returns: the copies among `copies` that are not the first stored of their message.
    func recordRedundantCopies(projectId: Int64, of copies: [StoredCopy]) throws(ServerError)
        -> Set<StoredCopy>
    {
        var redundant: Set<StoredCopy> = []
        for start in stride(from: 0, to: copies.count, by: Self.copiesPerCheck) {
            let slice = Array(copies[start..<min(copies.count, start + Self.copiesPerCheck)])
            redundant.formUnion(try recordRedundantCopies(projectId: projectId, ofSlice: slice))
        }
        return redundant
    }

    /// Messages per copy check: what one check sends and reads back stays a few megabytes.
    static let copiesPerCheck = 50_000

    private func recordRedundantCopies(projectId: Int64, ofSlice copies: [StoredCopy]) throws(ServerError)
        -> Set<StoredCopy>
    {
        guard !copies.isEmpty else { return [] }
        // First which messages are stored more than once (a short answer), then their copies.
        let copied = try client.rows(
            sql.copiedMessages(projectId: projectId, of: Set(copies.map(\.message))),
            timeout: configuration.writeTimeout)
        guard !copied.isEmpty else { return [] }
        let rows = try client.rows(
            sql.storedCopies(projectId: projectId, of: copied), timeout: configuration.writeTimeout)
        let first = try recordRedundantCopies(projectId: projectId, among: rows)
        let copiedOnes = Set(copied)
        return Set(copies.filter { copiedOnes.contains($0.message) }).subtracting(first)
    }

    /// Records in `duplicate_copies` every copy among `rows` (every stored copy of some
    /// messages, as ``ClickHouseSQL/storedCopies(projectId:of:)`` reads them) after the first
    /// stored (the smallest sequence) of its message (``CopyDecision``), and counts the tied
    /// messages.
    /// - Returns: each message's first stored copy.
    func recordRedundantCopies(projectId: Int64, among rows: [UnsettledInserts.Row]) throws(ServerError)
        -> Set<StoredCopy>
    {
        let decision = CopyDecision(rows)
        var records = ClickHouseRowBinary()
        for copy in decision.redundant {
            ClickHouseRows.appendCopy(copy.fields, sequence: copy.sequence, project: projectId, to: &records)
        }
        try insert(sql.insertDuplicateCopies, rows: records)
        if decision.tied > 0 { tiedMessages.withLock { $0 &+= decision.tied } }
        try touchSessions(projectId: projectId, devices: decision.devices)
        return decision.first
    }

    // MARK: Counts and lists

    public func eventCount(projectId: Int64) throws(ServerError) -> Int {
        Int(try client.rows(sql.eventCount(projectId: projectId)).first ?? 0)
    }

    public func lostEventCount(projectId: Int64) throws(ServerError) -> Int {
        guard let sum = try client.rows(sql.lostEventCount(projectId: projectId)).first else { return 0 }
        return Int(max(0, sum))
    }

    public func eventTimeSpan(projectId: Int64) throws(ServerError) -> ClosedRange<Timestamp>? {
        guard let span = try client.rows(sql.eventTimeSpan(projectId: projectId)).first, span.count > 0
        else { return nil }
        return Timestamp(
            millisecondsSince1970: span.first)...Timestamp(
                millisecondsSince1970: max(span.first, span.last))
    }

    public func identityLinks(projectId: Int64) throws(ServerError) -> [String: String] {
        var links: [String: String] = [:]
        for link in try client.rows(sql.identityLinks(projectId: projectId)) {
            links[link.anonymousId] = link.userId
        }
        return links
    }

    public func recentEvents(projectId: Int64, limit: Int, after: Int64?) throws(ServerError) -> [RecentEvent]
    {
        try client.rows(sql.recentEvents(projectId: projectId, limit: limit, after: after))
    }

    // MARK: People and retention

    /// Deletes a person (``PersonSelection``, the reports' rule): its ids are refused first,
    /// then each shard deletes the person's events and identity links (`ALTER TABLE … DELETE`,
    /// which ClickHouse runs in the background; this waits, at most
    /// ``Configuration/requestTimeout``, until every shard has finished), then the deletion is
    /// logged in the metadata file. `writerMilliseconds` is the whole deletion's time: ingest
    /// does not wait for it.
    public func deletePerson(id: String, projectId: Int64, request: PersonDeletion.Request)
        throws(ServerError)
        -> PersonDeletion
    {
        try SQLiteEventStore.checkPersonId(id)
        let started = Date()
        let selection = PersonSelection(id: id, links: try identityLinks(projectId: projectId))
        let found = try exportPerson(selection, projectId: projectId)
        // Refused before the rows go, so that a resend meanwhile is not stored again.
        _ = try ledger.logPersonDeletion(
            selection, id: id, projectId: projectId, request: request, events: 0, identityLinks: 0,
            elapsedMilliseconds: 0, logged: false)
        // The person's sessions, touched before their rows go and once they are gone (settled
        // figures; no round is made while the deletion runs).
        let sessions = try client.rows(
            sql.personSessions(
                projectId: projectId, person: selection.person, anonymousIds: selection.anonymousIds))
        try touchSessions(projectId: projectId, sessions: sessions)
        let clicks = try client.rows(
            sql.personClickGroups(
                projectId: projectId, person: selection.person, anonymousIds: selection.anonymousIds))
        // The daily counts lose the person's events before the events go (the counts of a shard
        // come from its own events).
        for shard in try oneReplicaOfEachShard() {
            _ = try client.execute(
                sql.negativeCounts(
                    projectId: projectId, person: selection.person, anonymousIds: selection.anonymousIds),
                on: shard)
        }
        try mutateEveryShard(
            [
                sql.deletePersonEvents(
                    projectId: projectId, person: selection.person, anonymousIds: selection.anonymousIds)
            ]
                + sql.deletePersonLinks(
                    projectId: projectId, person: selection.person, anonymousIds: selection.anonymousIds)
                + sql.deletePersonAggregates(
                    projectId: projectId, person: selection.person, anonymousIds: selection.anonymousIds)
                + [
                    sql.deletePersonSettled(
                        projectId: projectId, person: selection.person, anonymousIds: selection.anonymousIds),
                    sql.deleteTotals(projectId: projectId),
                ],
            since: started)
        try rebuildElementTexts(projectId: projectId, clicks: clicks, since: started)
        // The records of the deleted copies after the copies: never a moment where a redundant
        // copy is left and its record gone.
        try mutateEveryShard(
            [
                sql.deletePersonCopies(
                    projectId: projectId, person: selection.person, anonymousIds: selection.anonymousIds)
            ], since: started)
        try touchSessions(projectId: projectId, sessions: sessions)
        return try ledger.logPersonDeletion(
            selection, id: id, projectId: projectId, request: request, events: found.events.count,
            identityLinks: found.identityLinks.count,
            elapsedMilliseconds: Int64(Date().timeIntervalSince(started) * 1_000), logged: true)
    }

    /// Builds anew the `element_texts` rows of a deleted person's `clicks` from the events left
    /// (they have no person to delete by), some kinds and keys at a time: their rows deleted on
    /// every shard (waited for), then built from each shard's events. A read meanwhile finds no
    /// text for those elements on those days.
    private func rebuildElementTexts(
        projectId: Int64, clicks: [(kind: RollupKind, key: String, day: Int64)], since started: Date
    ) throws(ServerError) {
        let days = Set(clicks.map(\.day))
        var seen: Set<String> = []
        var keys: [(RollupKind, String)] = []
        for click in clicks where seen.insert("\(click.kind.rawValue) \(click.key)").inserted {
            keys.append((click.kind, click.key))
        }
        for start in stride(from: 0, to: keys.count, by: 500) {
            let groups = ClickHouseSQL.ClickGroups(
                days: days, keys: Array(keys[start..<min(keys.count, start + 500)]))
            try mutateEveryShard(
                [sql.deleteElementTexts(projectId: projectId, groups: groups)], since: started)
            // Not deduplicated: a replicated table would drop a block equal to one inserted
            // before (the same groups built anew by an earlier deletion) as a resend.
            for shard in try oneReplicaOfEachShard() {
                _ = try client.execute(
                    sql.rebuildElementTexts(projectId: projectId, groups: groups),
                    settings: ["insert_deduplicate": "0"], on: shard)
            }
        }
    }

    /// Runs `statements` (`ALTER TABLE … DELETE` of local tables) on every shard (one replica of
    /// each, ``oneReplicaOfEachShard()``), then waits for them there
    /// (``waitForMutations(on:since:)``).
    private func mutateEveryShard(_ statements: [String], since started: Date) throws(ServerError) {
        let shards = try oneReplicaOfEachShard()
        for shard in shards {
            for statement in statements { _ = try client.execute(statement, on: shard) }
        }
        try waitForMutations(on: shards, since: started)
    }

    /// Waits until `shards` have finished this database's mutations (`ALTER TABLE … DELETE`),
    /// at most ``Configuration/requestTimeout`` after `started`.
    private func waitForMutations(on shards: [ClickHouseLocation.Node], since started: Date)
        throws(ServerError)
    {
        let deadline = started.addingTimeInterval(configuration.requestTimeout)
        for shard in shards {
            while true {
                if try client.rows(sql.pendingMutations, on: shard).first ?? 0 == 0 { break }
                guard Date() < deadline else {
                    throw ServerError(
                        code: .unavailable,
                        message:
                            "ClickHouse at \(shard) is still deleting rows; they will be gone when it finishes"
                    )
                }
                usleep(50_000)
            }
        }
    }

    /// Deletes every project's events older than its retention (its own days, else
    /// `defaultDays`) as of `now`: whole UTC days before the day `days` before `now`'s, by
    /// `ALTER TABLE events_local DELETE` on every shard (waited for), then records the horizon.
    /// `chunk` is not used: ClickHouse deletes in the background and ingest never waits.
    /// - Returns: the events deleted per project name.
    @discardableResult
    public func applyRetention(defaultDays: Int?, now: Timestamp, chunk: Int = 0) throws(ServerError)
        -> [String: Int]
    {
        var deleted: [String: Int] = [:]
        for (project, horizonDay) in try ledger.retentionHorizons(defaultDays: defaultDays, now: now) {
            let started = Date()
            let horizon = horizonDay &* 86_400_000
            let count = Int(
                try client.rows(sql.eventsBefore(projectId: project.id, time: horizon)).first ?? 0)
            // A run stopped between deleting the horizon's block of `person_blocks` and building
            // it anew leaves that block short until the next run that deletes events (the next
            // day's, with events still coming in), which deletes and builds it again.
            if count > 0 {
                try mutateEveryShard(
                    [sql.deleteEventsBefore(projectId: project.id, time: horizon)]
                        + sql.deleteAggregatesBefore(projectId: project.id, day: horizonDay),
                    since: started)
                try mutateEveryShard(
                    [sql.deleteCopiesBefore(projectId: project.id, time: horizon)], since: started)
                if let rebuild = sql.rebuildHorizonBlock(projectId: project.id, day: horizonDay) {
                    for shard in try oneReplicaOfEachShard() { _ = try client.execute(rebuild, on: shard) }
                }
            }
            _ = try ledger.deleteSnapshots(projectId: project.id, beforeDay: horizonDay)
            try ledger.recordRetentionHorizon(projectId: project.id, day: horizonDay)
            deleted[project.name] = count
        }
        return deleted
    }

    /// Everything stored about the person `id` names (``PersonSelection``, the reports' rule):
    /// each event, in stored order, and each identity link of the person or its anonymous ids.
    public func exportPerson(id: String, projectId: Int64) throws(ServerError) -> PersonExport {
        try SQLiteEventStore.checkPersonId(id)
        return try exportPerson(
            PersonSelection(id: id, links: try identityLinks(projectId: projectId)), projectId: projectId)
    }

    /// Everything stored about the person `selection` picks out.
    private func exportPerson(_ selection: PersonSelection, projectId: Int64) throws(ServerError)
        -> PersonExport
    {
        let events = try client.rows(
            sql.personEvents(
                projectId: projectId, person: selection.person, anonymousIds: selection.anonymousIds))
        let links = try client.rows(sql.identityLinkTimes(projectId: projectId)).compactMap {
            link -> JSONValue? in
            guard selection.owns(link: link.anonymousId, userId: link.userId) else { return nil }
            return [
                "anonymousId": .string(link.anonymousId), "userId": .string(link.userId),
                "firstSeen": .string(Timestamp(millisecondsSince1970: link.firstSeen).iso8601),
            ]
        }
        return PersonExport(
            person: selection.person, events: events, identityLinks: links,
            snapshots: try ledger.exportSnapshots(of: selection, projectId: projectId))
    }

    public func close() {
        groups.close()
        if let spool, !shipperStopped.withLock({ $0 }) {
            shipperStopped.withLock { $0 = true }
            try? shipHeldSegments()
            spool.close()
            shipperDone.wait()
        }
        if !settlerStopped.withLock({ $0 }) {
            settlerStopped.withLock { $0 = true }
            settlerWake.signal()
            settlerDone.wait()
        }
        if ownsMetadata { ledger.close() }
    }
}

/// The rows the store inserts, in `RowBinary` (``ClickHouseRowBinary``): an ``EventRecord``
/// as a row of ``ClickHouseSQL/eventColumns``, with the columns the reports read computed by the
/// SQLite rollups' own code, and the rows of the identity links, the evicted-event counts and the
/// records of redundant copies.
enum ClickHouseRows {
    /// An event's row; with `insertMark`, its contributions end with the INSERT's mark
    /// (``ClickHouseSQL/insertMarkKind``).
    static func append(
        _ event: EventRecord, project: Int64, sequence: UInt64, insertMark: UInt64? = nil,
        to rows: inout ClickHouseRowBinary
    ) {
        let day = event.time.dayNumber
        let contributions = RollupDelta.contributions(of: event)
        let isView = event.type == .screen || event.type == .page
        let mark = SessionTimeline.mark(
            type: event.type, name: event.name, page: event.page,
            durationMilliseconds: event.durationMilliseconds)
        let markFields = SessionTimeline.StoredMark.fields(of: mark)
        let sessionKey = SessionTimeline.sessionKey(
            sessionId: event.sessionId, anonymousId: event.anonymousId, userId: event.userId, time: event.time
        )
        rows.append(project)
        rows.append(event.anonymousId ?? "")
        rows.append(event.messageId)
        rows.append(sequence)
        rows.append(event.type.rawValue)
        rows.append(event.name)
        rows.append(event.time.millisecondsSince1970)
        rows.append(day)
        rows.append(day >> 6)
        rows.append(UInt64(1) << UInt64(day & 63))
        rows.append(event.clientTimestamp.millisecondsSince1970)
        rows.append(event.sentAt?.millisecondsSince1970)
        rows.append(event.receivedAt.millisecondsSince1970)
        rows.append(event.anonymousId)
        rows.append(event.userId)
        rows.append(event.sessionId)
        rows.append(event.page)
        rows.append(event.elementPath)
        rows.append(event.similarPath)
        rows.append(event.elementText)
        rows.append(event.itemId)
        rows.append(event.durationMilliseconds)
        rows.append(event.appVersion)
        rows.append(event.os)
        rows.append(event.planEventName)
        rows.append(StoredPayload.cutText(of: event))
        var kinds = contributions.map { UInt8($0.kind.rawValue) }
        var keys = contributions.map(\.key)
        var roles = contributions.map {
            UInt8(($0.counted ? 1 : 0) | ($0.perPerson ? 2 : 0) | ($0.timed ? 4 : 0))
        }
        if let insertMark {
            kinds.append(UInt8(ClickHouseSQL.insertMarkKind))
            keys.append(String(insertMark))
            roles.append(1)
        }
        rows.append(kinds)
        rows.append(keys)
        rows.append(roles)
        rows.append(sessionKey)
        rows.append(UInt8(isView ? 1 : 0))
        rows.append(UInt8(markFields.code.rawValue))
        rows.append(markFields.page)
        rows.append(markFields.duration)
    }

    /// An identity link's row: `project_id, anonymous_id, user_id, first_seen`.
    static func appendLink(
        _ link: IdentityLink, project: Int64, firstSeen: Timestamp, to rows: inout ClickHouseRowBinary
    ) {
        rows.append(project)
        rows.append(link.anonymousId)
        rows.append(link.userId)
        rows.append(firstSeen.millisecondsSince1970)
    }

    /// A batch's evicted-event count: `project_id, batch_key, count, received_at, keep`.
    static func appendLostEvents(of batch: IngestBatch, keep: UInt64, to rows: inout ClickHouseRowBinary) {
        rows.append(batch.projectId)
        rows.append(batch.batchKey)
        rows.append(Int64(batch.evictedCount))
        rows.append(batch.receivedAt.millisecondsSince1970)
        rows.append(keep)
    }

    /// A suspect device's record (``UnsettledInserts``): a record of a copy that no event is,
    /// `project_id, device, '', 0, user_id, time`, from a stored copy's `TabSeparated` fields (as
    /// ``appendCopy(_:sequence:project:to:)``). It makes the device one with a redundant copy, so
    /// the reads take its people from its events; it goes with the device's events (a person's
    /// deletion, and retention once the copy's time is past).
    static func appendSuspect(_ fields: [Substring], project: Int64, to rows: inout ClickHouseRowBinary) {
        rows.append(project)
        rows.append(ClickHouseFormat.text(fields[0]) ?? "")
        rows.append("")
        rows.append(UInt64(0))
        rows.append(ClickHouseFormat.text(fields[3]))
        rows.append(ClickHouseFormat.int64(fields[4]))
    }

    /// A redundant copy's record: `project_id, device, message_id, sequence, user_id, time`,
    /// from the copy's `TabSeparated` fields as the copy check read them (`device, message_id,
    /// sequence, user_id, time`).
    static func appendCopy(
        _ fields: [Substring], sequence: UInt64, project: Int64, to rows: inout ClickHouseRowBinary
    ) {
        rows.append(project)
        rows.append(ClickHouseFormat.text(fields[0]) ?? "")
        rows.append(ClickHouseFormat.text(fields[1]) ?? "")
        rows.append(sequence)
        rows.append(ClickHouseFormat.text(fields[3]))
        rows.append(ClickHouseFormat.int64(fields[4]))
    }
}
