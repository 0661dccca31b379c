/// The copy check's decision over every stored copy of some messages, as read back from the
/// shards (a pure value: ``ClickHouseEventStore`` reads the copies and records what it says).
///
/// A message's copy that counts is its first stored, the one with the smallest sequence; every
/// later copy is *redundant* and gets a record. Two copies with that same smallest sequence
/// (stored by two collectors of one tag in the same 16 microseconds, see `--collector-tag`)
/// cannot be told apart by a record, which names a copy by device, message id and sequence: a
/// record would leave out both. So neither is recorded and the message counts twice, never not at
/// all; the decision counts such messages as *tied*, and the store reports them
/// (`footprint_tied_messages_total`).
struct CopyDecision {
    typealias Row = UnsettledInserts.Row

    /// The copies to record as redundant: of each message, every copy after the first stored.
    private(set) var redundant: [Row] = []
    /// Each message's first stored copy.
    private(set) var first: Set<ClickHouseEventStore.StoredCopy> = []
    /// The messages whose smallest sequence two copies or more hold.
    private(set) var tied = 0

    /// The decision over `rows`: every stored copy of some messages (their device and message
    /// id first), in any order.
    init(_ rows: [Row]) {
        var messages: [[Substring]: [Row]] = [:]
        for row in rows {
            messages[[row.fields[0], row.fields[1]], default: []].append(row)
        }
        for copies in messages.values {
            let smallest = copies.map(\.sequence).min() ?? 0
            var firsts = 0
            for copy in copies {
                if copy.sequence > smallest {
                    redundant.append(copy)
                } else {
                    first.insert(ClickHouseEventStore.StoredCopy(copy))
                    firsts += 1
                }
            }
            if firsts > 1 { tied += 1 }
        }
    }

    /// The devices of the redundant copies.
    var devices: Set<String> {
        Set(redundant.map { ClickHouseFormat.text($0.fields[0]) ?? "" })
    }
}
