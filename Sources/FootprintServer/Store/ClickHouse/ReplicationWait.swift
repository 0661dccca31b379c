/// Whether every replica that should hold a write's rows holds them: the wait before a write on
/// replicated shards is answered (see docs/ARCHITECTURE.md, *What a 200 means*). A pure value:
/// the store reads what the replicas report (`system.replicas`, then `system.replication_queue`)
/// and feeds it here until it is ``done`` or its time is up.
///
/// An INSERT is answered by one replica of each shard once that replica has written the parts
/// and logged them in ZooKeeper; its twin then pulls the log entries into its queue and fetches
/// the parts. A replica *holds* the write when
/// 1. it has pulled every table's log past the entries there were once the INSERT was answered
///    (`log_pointer` above the `log_max_index` first read), and
/// 2. none of the parts it had yet to fetch at that moment (`GET_PART` entries of its queue
///    logged since shortly before the write started: ``ClickHouseEventStore/partsLoggedBefore``)
///    is still to fetch: a later read of its queue no longer has them.
///
/// A replica that cannot be read or turns read-only (no ZooKeeper session), or whose fetches
/// were already behind by more than ``maximumDelay`` seconds at the first read (`absolute_delay`:
/// catching up after a restart), is *passed over*: the write is answered without it, and the
/// store counts the answer (``passedOver``). A replica that does not hold the write by the
/// deadline fails it: the client resends, and the INSERT is kept as unsettled.
struct ReplicationWait: Sendable, Equatable {
    /// One replicated table as one replica reports it (a row of `system.replicas`).
    struct Table: Sendable, Equatable {
        var name: String
        /// The last entry of the table's log in ZooKeeper.
        var logMaxIndex: UInt64
        /// The next entry of the log this replica pulls into its queue.
        var logPointer: UInt64
        /// Whether it takes no writes or lost its ZooKeeper session.
        var readOnly: Bool
        /// Seconds its oldest insert still to fetch is behind.
        var absoluteDelay: UInt64
    }

    /// What one replica reports: its tables, then the parts of each table it has yet to fetch.
    struct Report: Sendable, Equatable {
        var tables: [Table]
        var fetching: [String: Set<String>] = [:]
    }

    /// Where one replica stands.
    enum State: Sendable, Equatable {
        /// It holds the write.
        case holds
        /// It has not pulled every table's log past the write yet.
        case pulling
        /// It pulled the logs; these parts (by table) are still to fetch.
        case fetching([String: Set<String>])
        /// It is passed over (down, read-only, lagging or without a table).
        case passedOver
    }

    /// Seconds a replica's fetches may be behind at the first read for the write to wait for it.
    let maximumDelay: UInt64
    /// Per shard, the log entry of each table past which its replicas must pull.
    private(set) var targets: [[String: UInt64]]
    /// Per shard and replica, where it stands.
    private(set) var states: [[State]]

    /// The wait after a write, from each shard's replicas' first reports (`reports[shard][replica]`,
    /// `nil` for one that could not be read), read once the write was answered.
    init(first reports: [[Report?]], maximumDelay: UInt64) {
        self.maximumDelay = maximumDelay
        targets = reports.map { replicas in
            var target: [String: UInt64] = [:]
            for table in replicas.compactMap({ $0 }).flatMap(\.tables) {
                target[table.name] = max(target[table.name] ?? 0, table.logMaxIndex)
            }
            return target
        }
        states = reports.map { $0.map { _ in .pulling } }
        for (shard, replicas) in reports.enumerated() {
            for (replica, report) in replicas.enumerated() {
                if let report, report.tables.contains(where: { $0.absoluteDelay > maximumDelay }) {
                    states[shard][replica] = .passedOver
                } else {
                    observe(report, shard: shard, replica: replica)
                }
            }
        }
    }

    /// Takes a later report of one replica (`nil`: it could not be read; it, or one with a
    /// read-only table, is passed over).
    mutating func observe(_ report: Report?, shard: Int, replica: Int) {
        guard states.indices.contains(shard), states[shard].indices.contains(replica) else { return }
        let target = targets[shard]
        switch states[shard][replica] {
        case .holds, .passedOver:
            return
        case _ where report.map { $0.tables.contains(where: \.readOnly) } ?? true:
            states[shard][replica] = .passedOver
        case .pulling:
            guard let report else { return }
            let tables = Dictionary(
                report.tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            if target.keys.contains(where: { tables[$0] == nil }) {
                states[shard][replica] = .passedOver
            } else if target.allSatisfy({ name, index in
                tables[name].map { Self.pulled($0, past: index) } ?? false
            }) {
                states[shard][replica] = Self.fetching(
                    target.keys.reduce(into: [:]) { $0[$1] = report.fetching[$1] ?? [] })
            }
        case .fetching(let parts):
            guard let report else { return }
            states[shard][replica] = Self.fetching(
                parts.reduce(into: [:]) { $0[$1.key] = $1.value.intersection(report.fetching[$1.key] ?? []) })
        }
    }

    /// Whether `table` pulled its log past entry `index`. An empty log reads as a last entry of
    /// 0 and a pointer of 0, as does a log whose entry 0 is not pulled yet: so a last entry of 0
    /// counts as pulled (the one write not waited for is a table's very first on its shard).
    static func pulled(_ table: Table, past index: UInt64) -> Bool {
        table.logPointer > index || index == 0
    }

    /// What the replicas still waited for have yet to do, for an error message.
    var description: String {
        waitingFor.map { shard, replica in
            let state: String
            switch states[shard][replica] {
            case .fetching(let parts):
                state =
                    "to fetch "
                    + parts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.sorted())" }
                    .joined(separator: ", ")
            default:
                state =
                    "to pull the logs past "
                    + targets[shard].sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                    .joined(separator: ", ")
            }
            return "shard \(shard + 1) replica \(replica + 1) has \(state)"
        }.joined(separator: "; ")
    }

    /// `.fetching(parts)`, or `.holds` when no part is left.
    private static func fetching(_ parts: [String: Set<String>]) -> State {
        parts.values.allSatisfy(\.isEmpty) ? .holds : .fetching(parts.filter { !$0.value.isEmpty })
    }

    /// The replicas still waited for.
    var waitingFor: [(shard: Int, replica: Int)] {
        states.enumerated().flatMap { shard, replicas in
            replicas.indices.compactMap { replica in
                switch replicas[replica] {
                case .pulling, .fetching: (shard, replica)
                case .holds, .passedOver: nil
                }
            }
        }
    }

    /// Whether no replica is waited for any more.
    var done: Bool { waitingFor.isEmpty }

    /// How many replicas were passed over.
    var passedOver: Int { states.joined().count { $0 == .passedOver } }
}
