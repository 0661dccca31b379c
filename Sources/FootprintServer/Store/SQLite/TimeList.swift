/// Event times as a compact list: what `rollup_person_times` stores per person, key, page and
/// 8-day block, so that a funnel reads a few bytes per event instead of an index row.
///
/// Encoding: each time as its offset from the start of its block, an unsigned LEB128 varint
/// (offsets are under 8 days, 2^30 ms, so each takes at most 5 bytes). Lists concatenate: the
/// writer appends a transaction's times to the stored bytes in SQL (`times || excluded.times`),
/// without reading them back, so the times come back in the order they were added.
enum TimeList {
    /// The 8-day block of a day (days since 1970-01-01).
    static func block(ofDay day: Int64) -> Int64 { day >> 3 }

    /// The first millisecond of `block`.
    /// Wraps for the blocks at the ends of `Int64`, as ``encode(_:block:)`` and `decode` do, so
    /// every time round-trips.
    static func start(ofBlock block: Int64) -> Int64 { block &* (8 * 86_400_000) }

    /// Encodes `times`, all in `block`, in their order.
    static func encode(_ times: [Int64], block: Int64) -> [UInt8] {
        let start = start(ofBlock: block)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(times.count * 5)
        for time in times {
            var number = UInt64(bitPattern: time &- start)
            while number >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: number) | 0x80)
                number >>= 7
            }
            bytes.append(UInt8(number))
        }
        return bytes
    }

    /// Decodes what ``encode(_:block:)`` wrote (one list or several concatenated), in order;
    /// `nil` when the bytes are not such a list.
    static func decode(_ bytes: some Collection<UInt8>, block: Int64) -> [Int64]? {
        var times: [Int64] = []
        return decode(bytes, block: block, into: &times) ? times : nil
    }

    /// Appends the decoded times of `bytes` to `times`; returns `false` (with `times` as it
    /// was) when the bytes are not such a list.
    static func decode(_ bytes: some Collection<UInt8>, block: Int64, into times: inout [Int64]) -> Bool {
        let start = start(ofBlock: block)
        let count = times.count
        var number: UInt64 = 0
        var shift: UInt64 = 0
        for byte in bytes {
            guard shift < 64 else {
                times.removeSubrange(count...)
                return false
            }
            number |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 != 0 {
                shift += 7
                continue
            }
            times.append(start &+ Int64(bitPattern: number))
            number = 0
            shift = 0
        }
        guard shift == 0 else {
            times.removeSubrange(count...)
            return false
        }
        return true
    }
}
