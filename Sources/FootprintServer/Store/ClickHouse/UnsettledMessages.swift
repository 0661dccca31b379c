/// Messages whose INSERT a collector began but never saw answered, on replicated shards: the
/// INSERT failed after it was sent (a replica died before answering, the connection closed), so
/// a replica may hold a copy that its twin has not fetched. The client resends, and the resend's
/// copy check, run on the twin, cannot see that copy: once the replica returns and the twin
/// fetches it, both copies would count. So the collector keeps these messages and checks their
/// copies again once they are *settled*: every replica of every shard answers and, shard by
/// shard, the replicas hold the same copies of them (see docs/ARCHITECTURE.md, *Replicated
/// shards*). A pure value: the store reads the replicas and records what it decides.
struct UnsettledMessages: Sendable {
    /// A message of a project.
    struct Key: Hashable, Sendable {
        var projectId: Int64
        var message: ClickHouseSQL.Message
    }

    /// One stored copy as a replica answered it: the fields of
    /// ``ClickHouseSQL/storedCopies(projectId:of:)`` and its sequence.
    typealias Row = (fields: [Substring], sequence: UInt64)

    /// The most messages kept; past it, the oldest are given up (``givenUp``). Each takes about
    /// 100 bytes, and only INSERTs that failed add them.
    let capacity: Int
    /// Each message kept, with the time (seconds) since which it is unsettled.
    private(set) var since: [Key: Double] = [:]
    /// The messages given up so far because more than ``capacity`` were kept: a copy of one of
    /// them that a returning replica brings back may count twice.
    private(set) var givenUp = 0

    /// No messages, at most `capacity` (at least 1) kept.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The messages kept.
    var count: Int { since.count }

    /// Keeps `messages` of project `projectId`, unsettled since `now` (a message kept already
    /// keeps its earlier time). Past ``capacity``, the oldest are given up.
    mutating func add(_ messages: some Sequence<ClickHouseSQL.Message>, projectId: Int64, now: Double) {
        for message in messages where since[Key(projectId: projectId, message: message)] == nil {
            since[Key(projectId: projectId, message: message)] = now
        }
        guard since.count > capacity else { return }
        let excess = since.count - capacity
        for (key, _) in since.sorted(by: { $0.value < $1.value }).prefix(excess) {
            since[key] = nil
        }
        givenUp &+= excess
    }

    /// Up to `limit` messages of each project to check again, the oldest first.
    func due(limit: Int) -> [Int64: [ClickHouseSQL.Message]] {
        var due: [Int64: [ClickHouseSQL.Message]] = [:]
        for (key, _) in since.sorted(by: { $0.value < $1.value })
        where due[key.projectId, default: []].count < limit {
            due[key.projectId, default: []].append(key.message)
        }
        return due
    }

    /// Forgets `messages` of project `projectId`: their copies were checked once settled.
    mutating func settle(_ messages: some Sequence<ClickHouseSQL.Message>, projectId: Int64) {
        for message in messages { since[Key(projectId: projectId, message: message)] = nil }
    }

    /// Which of `messages` are settled, from each shard's replicas' answers (`answers[shard]
    /// [replica]`: the copies of `messages` that replica holds, `nil` when it could not be read),
    /// and the copies of the settled ones (each shard's first replica's).
    ///
    /// None is settled while any replica could not be read (which shard a message belongs to is
    /// ClickHouse's hash; a replica that is down may hold a copy of any). Otherwise a message is
    /// settled when, on every shard, all replicas hold the same copies of it (by sequence), none
    /// included: a part that one replica holds and its twin has yet to fetch, or one that
    /// ZooKeeper never registered (which the replica drops later), keeps it unsettled.
    static func settlement(of messages: Set<ClickHouseSQL.Message>, answers: [[[Row]?]]) -> (
        settled: Set<ClickHouseSQL.Message>, copies: [Row]
    ) {
        var read: [[[Row]]] = []
        for shard in answers {
            var replicas: [[Row]] = []
            for replica in shard {
                guard let replica else { return ([], []) }
                replicas.append(replica)
            }
            read.append(replicas)
        }
        var settled = messages
        for replicas in read {
            let held = replicas.map { rows in
                Dictionary(grouping: rows, by: message(of:)).mapValues { Set($0.map(\.sequence)) }
            }
            for message in Set(held.flatMap(\.keys))
            where held.contains(where: { $0[message] != held[0][message] }) {
                settled.remove(message)
            }
        }
        let copies = read.flatMap { $0.first ?? [] }.filter { settled.contains(message(of: $0)) }
        return (settled, copies)
    }

    /// The message a stored copy's row is a copy of.
    static func message(of row: Row) -> ClickHouseSQL.Message {
        ClickHouseSQL.Message(
            device: ClickHouseFormat.text(row.fields[0]) ?? "",
            messageId: ClickHouseFormat.text(row.fields[1]) ?? "")
    }
}
