/// The events of one project, kind, key, day, page, app version and OS as (person, time) pairs:
/// what `rollup_times` stores, so that a funnel reads a few bytes per event, many people to a
/// row, and no id.
///
/// Encoding: per event its *member* (``member(number:anonymous:)``: the person number of the
/// event's user id, or of its anonymous id when it carried no user id, and which of the two) and
/// its offset from the start of its day in milliseconds, each an unsigned LEB128 varint (an
/// offset is under 2^27, four bytes at most). Lists concatenate: the writer appends a
/// transaction's pairs to the stored bytes in SQL (`entries || ?`), without reading them back,
/// and starts a new chunk of the row once a chunk holds ``chunkBytes``.
enum PersonTimes {
    /// One event: its member and its time (milliseconds since 1970).
    struct Entry: Hashable, Sendable {
        var member: UInt64
        var time: Int64
    }

    /// The size a stored chunk grows to before the next chunk starts: an append rewrites at
    /// most this many bytes.
    static let chunkBytes = 4096

    /// A member: `number` (a ``PersonSetWriter`` person number) shifted left once, its low bit
    /// set for the anonymous id of an event without a user id (links apply to those only).
    static func member(number: UInt32, anonymous: Bool) -> UInt64 {
        UInt64(number) << 1 | (anonymous ? 1 : 0)
    }

    /// The first millisecond of `day` (days since 1970-01-01). Wraps for the days at the ends of
    /// `Int64`, as ``encode(_:day:into:)`` and `decode` do, so every time round-trips.
    static func start(ofDay day: Int64) -> Int64 { day &* 86_400_000 }

    /// Appends the encoding of `entries`, all on `day`, in their order.
    static func encode(_ entries: some Sequence<Entry>, day: Int64, into bytes: inout [UInt8]) {
        let start = start(ofDay: day)
        for entry in entries {
            Varint.append(entry.member, to: &bytes)
            Varint.append(UInt64(bitPattern: entry.time &- start), to: &bytes)
        }
    }

    /// The encoding of `entries` in pieces to store: the first at most `room` bytes (empty when
    /// not even the first entry fits), every other at most ``chunkBytes`` (or one entry when an
    /// entry alone is longer, which a valid entry never is).
    static func pieces(_ entries: [Entry], day: Int64, room: Int) -> [[UInt8]] {
        var pieces: [[UInt8]] = [[]]
        var limit = max(0, room)
        var one: [UInt8] = []
        for entry in entries {
            one.removeAll(keepingCapacity: true)
            encode(CollectionOfOne(entry), day: day, into: &one)
            // A full piece ends; an empty piece after the first takes the entry whatever its size.
            if !(pieces.count > 1 && pieces[pieces.count - 1].isEmpty),
                pieces[pieces.count - 1].count + one.count > limit
            {
                pieces.append([])
                limit = chunkBytes
            }
            pieces[pieces.count - 1] += one
        }
        return pieces
    }

    /// Calls `body` with each entry of `bytes` (one list or several concatenated, in order);
    /// returns `false` when the bytes are not such a list (after calling it with the entries
    /// before the damage).
    static func decode(_ bytes: some Collection<UInt8>, day: Int64, _ body: (Entry) -> Void) -> Bool {
        let start = start(ofDay: day)
        var number: UInt64 = 0
        var shift: UInt64 = 0
        var member: UInt64?
        for byte in bytes {
            guard shift < 64 else { return false }
            number |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 != 0 {
                shift += 7
                continue
            }
            if let known = member {
                body(Entry(member: known, time: start &+ Int64(bitPattern: number)))
                member = nil
            } else {
                member = number
            }
            number = 0
            shift = 0
        }
        return shift == 0 && member == nil
    }

    /// The entries of `bytes`, or `nil` when they are not such a list.
    static func decode(_ bytes: some Collection<UInt8>, day: Int64) -> [Entry]? {
        var entries: [Entry] = []
        return decode(bytes, day: day) { entries.append($0) } ? entries : nil
    }
}
