/// INSERTs a collector sent but never saw answered: the INSERT failed after it was sent (a
/// server died before answering, the connection closed, a materialized view failed), so a
/// shard may hold its events, and then possibly without some of their aggregate rows. A pure
/// value: the store reads the shards and does what it decides (see docs/ARCHITECTURE.md,
/// *Unsettled INSERTs*).
///
/// Two things can go wrong with such an INSERT, and each is checked once it is *settled*: every
/// replica of every shard answers and, shard by shard, the replicas agree on what they hold of it.
/// - **A copy its twin has not fetched.** A replica that took the events and died before
///   answering holds copies its twin cannot see; the client's resend, checked on the twin, is
///   stored as a first copy. Once the replica returns and its twin fetches them, both would
///   count: so every copy after the first of the INSERT's messages is recorded as redundant, as
///   the copy check does.
/// - **An INSERT cut between its parts.** 18.16 commits the events' part of a shard before its
///   materialized views run, and each view then commits a part of its own, in the order of their
///   names; a server killed in between (or a failing view) leaves events without some of their
///   aggregate rows. Each INSERT's first event of each device carries the INSERT's *mark*
///   (``ClickHouseSQL/insertMarkKind``), which `daily_counts`' view turns into a row of its own:
///   a shard that holds the INSERT's events but not its mark never took its daily counts, and the
///   store adds them from those events (a *repair*). The person aggregates cannot be checked so:
///   the devices of the INSERT's stored events are recorded as *suspect*, and the reads take
///   those devices' people from their events, as they do for a device with a redundant copy.
/// - **A first copy that vanished.** When ZooKeeper dies while a replica commits an INSERT's
///   part, 18.16 answers `UNKNOWN_STATUS_OF_INSERT` but keeps the part, visible to reads, until
///   its check finds it never registered and detaches it (minutes after ZooKeeper returns). The
///   resend's copy check meanwhile takes that part's copies for the first stored and records its
///   own as redundant; once the part is gone, a message whose every stored copy is recorded as
///   redundant would count nowhere. Such a message's first stored copy has its record removed.
struct UnsettledInserts: Sendable {
    typealias StoredCopy = ClickHouseEventStore.StoredCopy

    /// One stored copy as a replica answered it: the fields of
    /// ``ClickHouseSQL/storedCopies(projectId:of:)`` and its sequence.
    typealias Row = (fields: [Substring], sequence: UInt64)

    /// An INSERT's events of one project.
    struct Insert: Sendable, Equatable {
        var projectId: Int64
        /// The INSERT's mark: its first event's sequence.
        var mark: UInt64
        /// The `query_id` the INSERT was sent with: while a server still runs it (a timeout on
        /// the collector's side does not stop it), it is not settled.
        var query: String
        /// Since when (seconds) it is unsettled.
        var since: Double
        /// The copies it sent.
        var copies: [StoredCopy]

        /// Its messages.
        var messages: Set<ClickHouseSQL.Message> { Set(copies.map(\.message)) }
    }

    /// What one replica holds of some INSERTs: every stored copy of their messages, which of
    /// their marks its `daily_counts` holds, and which of their queries it still runs.
    struct Answer: Sendable {
        var copies: [Row]
        var marks: Set<UInt64>
        var running: Set<String> = []
        /// The copies of their messages recorded as redundant (``ClickHouseSQL/recordedCopies(projectId:of:)``).
        var recorded: Set<StoredCopy> = []
    }

    /// What to do for the settled INSERTs of one check.
    struct Settlement {
        /// The marks of the settled INSERTs.
        var settled: Set<UInt64> = []
        /// Every stored copy of their messages (each shard's first replica's), for the record of
        /// the redundant ones.
        var copies: [Row] = []
        /// Per shard, the copies of an INSERT that shard holds without its mark: their daily
        /// counts are to be added, in one INSERT (the mark's row among them).
        var repairs: [(shard: Int, mark: UInt64, copies: [StoredCopy])] = []
        /// Per shard, the copies whose record as redundant is to be removed: of each message of a
        /// settled INSERT whose every stored copy on that shard is recorded, the first stored.
        var unrecorded: [(shard: Int, copies: [StoredCopy])] = []
        /// The suspect devices: for each device of the copies the settled INSERTs stored (each
        /// shard's first replica's), its latest such copy (by time), whose record retention keeps
        /// while that copy is kept.
        var suspects: [Row] = []
    }

    /// The most copies kept; past it, the oldest INSERTs are given up (``givenUp``). Each copy
    /// takes about 100 bytes, and only INSERTs that failed add them.
    let capacity: Int
    /// The INSERTs kept, by project and mark.
    private(set) var inserts: [Key: Insert] = [:]
    /// The copies kept.
    private(set) var count = 0
    /// The copies given up so far because more than ``capacity`` were kept: a copy of one of
    /// them that a returning replica brings back may count twice, and a cut INSERT among them
    /// is not repaired.
    private(set) var givenUp = 0

    /// The shards' parts of settled INSERTs that were repaired (``Settlement/repairs``).
    private(set) var repaired = 0

    /// An INSERT's key.
    struct Key: Hashable, Sendable {
        var projectId: Int64
        var mark: UInt64
    }

    /// Nothing kept, at most `capacity` (at least 1) copies.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Keeps the copies an INSERT with `mark` sent of project `projectId`, unsettled since `now`
    /// (an INSERT kept already gains them). Past ``capacity``, the oldest are given up; an INSERT
    /// larger than the capacity alone is given up at once.
    mutating func add(_ copies: [StoredCopy], projectId: Int64, mark: UInt64, query: String, now: Double) {
        guard !copies.isEmpty else { return }
        let key = Key(projectId: projectId, mark: mark)
        guard (inserts[key]?.copies.count ?? 0) + copies.count <= capacity else {
            givenUp &+= copies.count
            return
        }
        inserts[key, default: Insert(projectId: projectId, mark: mark, query: query, since: now, copies: [])]
            .copies += copies
        count += copies.count
        for (key, insert) in inserts.sorted(by: {
            ($0.value.since, $0.key.mark) < ($1.value.since, $1.key.mark)
        })
        where count > capacity {
            inserts[key] = nil
            count -= insert.copies.count
            givenUp &+= insert.copies.count
        }
    }

    /// The INSERTs to check, per project, the oldest first: whole INSERTs up to `limit` copies
    /// a project, and at least one.
    func due(limit: Int) -> [Int64: [Insert]] {
        var due: [Int64: [Insert]] = [:]
        var copies: [Int64: Int] = [:]
        for insert in inserts.values.sorted(by: { ($0.since, $0.mark) < ($1.since, $1.mark) }) {
            let taken = copies[insert.projectId, default: 0]
            guard taken == 0 || taken + insert.copies.count <= limit else { continue }
            due[insert.projectId, default: []].append(insert)
            copies[insert.projectId] = taken + insert.copies.count
        }
        return due
    }

    /// Forgets the INSERTs with `marks` of project `projectId`: they were checked once settled,
    /// and `repaired` of their shards' parts repaired.
    mutating func settle(_ marks: some Sequence<UInt64>, projectId: Int64, repaired: Int = 0) {
        self.repaired &+= repaired
        for mark in marks {
            guard let insert = inserts.removeValue(forKey: Key(projectId: projectId, mark: mark)) else {
                continue
            }
            count -= insert.copies.count
        }
    }

    /// Which of `inserts` (one project's) are settled, from each shard's replicas' answers
    /// (`answers[shard][replica]`, `nil` when that replica could not be read), and what to do
    /// for them.
    ///
    /// None is settled while any replica could not be read (which shard a device belongs to is
    /// ClickHouse's hash; a replica that is down may hold any). Otherwise an INSERT is settled
    /// when no replica still runs its query and, on every shard, all replicas hold the same
    /// copies of each of its messages (by sequence), none included, and all hold its mark or
    /// none does: a part that one replica holds and its twin has yet to fetch, or one that
    /// ZooKeeper never registered (which the replica drops later), keeps it unsettled.
    static func settlement(of inserts: [Insert], answers: [[Answer?]]) -> Settlement {
        var read: [[Answer]] = []
        for shard in answers {
            var replicas: [Answer] = []
            for replica in shard {
                guard let replica else { return Settlement() }
                replicas.append(replica)
            }
            read.append(replicas)
        }
        // Per shard and replica, the sequences of each message it holds.
        let held = read.map { replicas in
            replicas.map { answer in
                Dictionary(grouping: answer.copies, by: message(of:)).mapValues { Set($0.map(\.sequence)) }
            }
        }
        var settlement = Settlement()
        var latest: [Substring: Row] = [:]
        var unrecorded: [Int: Set<StoredCopy>] = [:]
        for insert in inserts {
            let messages = insert.messages
            let finished = read.allSatisfy { $0.allSatisfy { !$0.running.contains(insert.query) } }
            let agreed =
                finished
                && zip(read, held).allSatisfy { replicas, held in
                    messages.allSatisfy { message in held.allSatisfy { $0[message] == held[0][message] } }
                        && replicas.allSatisfy {
                            $0.marks.contains(insert.mark) == replicas[0].marks.contains(insert.mark)
                        }
                }
            guard agreed else { continue }
            settlement.settled.insert(insert.mark)
            let sent = Set(insert.copies)
            for (shard, replicas) in read.enumerated() {
                guard let first = replicas.first else { continue }
                let ofInsert = first.copies.filter { messages.contains(message(of: $0)) }
                settlement.copies += ofInsert
                for copies in Dictionary(grouping: ofInsert.map(StoredCopy.init), by: \.message).values
                where copies.allSatisfy(first.recorded.contains) {
                    if let firstStored = copies.min(by: { $0.sequence < $1.sequence }) {
                        unrecorded[shard, default: []].insert(firstStored)
                    }
                }
                let stored = ofInsert.filter { sent.contains(StoredCopy($0)) }
                for copy in stored {
                    let device = copy.fields[0]
                    if let kept = latest[device], time(of: kept) >= time(of: copy) { continue }
                    latest[device] = copy
                }
                if !stored.isEmpty, !first.marks.contains(insert.mark) {
                    settlement.repairs.append((shard, insert.mark, stored.map(StoredCopy.init)))
                }
            }
        }
        settlement.suspects = Array(latest.values)
        settlement.unrecorded = unrecorded.sorted { $0.key < $1.key }.map {
            (
                $0.key,
                $0.value.sorted {
                    ($0.device, $0.messageId, $0.sequence) < ($1.device, $1.messageId, $1.sequence)
                }
            )
        }
        return settlement
    }

    /// A stored copy's time (ms since 1970).
    private static func time(of row: Row) -> Int64 { ClickHouseFormat.int64(row.fields[4]) }

    /// The message a stored copy's row is a copy of.
    static func message(of row: Row) -> ClickHouseSQL.Message {
        ClickHouseSQL.Message(
            device: ClickHouseFormat.text(row.fields[0]) ?? "",
            messageId: ClickHouseFormat.text(row.fields[1]) ?? "")
    }
}
