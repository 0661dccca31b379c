/// Event times as a compact sorted list: what `rollup_person_times` stores per person, event
/// and 8-day block, so that a funnel reads a few bytes per event instead of an index row.
///
/// Encoding: the times in ascending order, the first as is and each next as the difference to
/// the one before, every number as an unsigned LEB128 varint (times within a block differ by
/// under 2^30 ms, so most take 2–4 bytes).
enum TimeList {
    /// Encodes `times` (any order; negative times are kept as their bit pattern).
    static func encode(_ times: [Int64]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(times.count * 3 + 8)
        var previous: UInt64 = 0
        for (index, time) in times.sorted().enumerated() {
            let value = UInt64(bitPattern: time)
            var number = index == 0 ? value : value &- previous
            previous = value
            while number >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: number) | 0x80)
                number >>= 7
            }
            bytes.append(UInt8(number))
        }
        return bytes
    }

    /// Decodes what ``encode(_:)`` wrote, ascending; `nil` when the bytes are not such a list.
    static func decode(_ bytes: some Collection<UInt8>) -> [Int64]? {
        var times: [Int64] = []
        var number: UInt64 = 0
        var shift: UInt64 = 0
        var previous: UInt64 = 0
        for byte in bytes {
            guard shift < 64 else { return nil }
            number |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 != 0 {
                shift += 7
                continue
            }
            previous = times.isEmpty ? number : previous &+ number
            times.append(Int64(bitPattern: previous))
            number = 0
            shift = 0
        }
        return shift == 0 ? times : nil
    }

    /// `stored` (an encoded list, or nothing) with `added` merged in.
    static func merge(_ stored: [UInt8]?, _ added: [Int64]) -> [UInt8] {
        encode((stored.flatMap { decode($0) } ?? []) + added)
    }

    /// The 8-day block of a day (days since 1970-01-01).
    static func block(ofDay day: Int64) -> Int64 { day >> 3 }
}
