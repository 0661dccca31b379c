/// A set of person numbers (the dense per-project numbers the SQLite store gives each id on
/// first sight): sorted, without duplicates. What `person_sets` keeps per day, kind and key, so
/// that a report counts people as unions of sets instead of grouping every person's rows.
///
/// Pure and value-typed. Its stored form (``encoded()``) is a count and the gaps between
/// members as unsigned LEB128 varints; ``init(encoded:)`` checks every byte, for a blob read
/// back is input like any other.
public struct PersonSet: Sendable, Hashable {
    /// The members, ascending, each once.
    public private(set) var members: [UInt32]

    /// The empty set.
    public init() {
        members = []
    }

    /// The set of `numbers` (in any order, duplicates allowed).
    public init<Numbers: Sequence>(_ numbers: Numbers) where Numbers.Element == UInt32 {
        var sorted = Array(numbers)
        sorted.sort()
        members = Self.unique(sorted)
    }

    /// A set of members already ascending and unique (unchecked but in debug builds).
    init(sortedUnique members: [UInt32]) {
        assert(zip(members, members.dropFirst()).allSatisfy { $0 < $1 })
        self.members = members
    }

    /// How many people.
    public var count: Int { members.count }

    /// Whether it has no member.
    public var isEmpty: Bool { members.isEmpty }

    /// Whether `number` is a member (a binary search).
    public func contains(_ number: UInt32) -> Bool {
        var low = 0
        var high = members.count
        while low < high {
            let middle = (low + high) / 2
            if members[middle] < number {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low < members.count && members[low] == number
    }

    /// The members of either set.
    public func union(_ other: PersonSet) -> PersonSet {
        if other.isEmpty { return self }
        if isEmpty { return other }
        return merged(with: other, onlyHere: true, onlyThere: true, both: true)
    }

    /// Adds the members of `other`.
    public mutating func formUnion(_ other: PersonSet) {
        self = union(other)
    }

    /// The members of both sets.
    public func intersection(_ other: PersonSet) -> PersonSet {
        merged(with: other, onlyHere: false, onlyThere: false, both: true)
    }

    /// The members of this set that are not in `other`.
    public func subtracting(_ other: PersonSet) -> PersonSet {
        merged(with: other, onlyHere: true, onlyThere: false, both: false)
    }

    /// One walk through both sets in order, keeping the members only in this one, only in
    /// `other`, or in both, as asked.
    private func merged(with other: PersonSet, onlyHere: Bool, onlyThere: Bool, both: Bool) -> PersonSet {
        let a = members
        let b = other.members
        var result: [UInt32] = []
        result.reserveCapacity((onlyHere ? a.count : 0) + (onlyThere ? b.count : 0))
        var i = 0
        var j = 0
        while i < a.count, j < b.count {
            if a[i] < b[j] {
                if onlyHere { result.append(a[i]) }
                i += 1
            } else if b[j] < a[i] {
                if onlyThere { result.append(b[j]) }
                j += 1
            } else {
                if both { result.append(a[i]) }
                i += 1
                j += 1
            }
        }
        if onlyHere { result.append(contentsOf: a[i...]) }
        if onlyThere { result.append(contentsOf: b[j...]) }
        return PersonSet(sortedUnique: result)
    }

    /// The union of many sets (one sort instead of a merge per set).
    public static func union<Sets: Sequence>(_ sets: Sets) -> PersonSet where Sets.Element == PersonSet {
        var all: [UInt32] = []
        for set in sets { all.append(contentsOf: set.members) }
        all.sort()
        return PersonSet(sortedUnique: unique(all))
    }

    /// How many members the sets hold together: the count of their ``union(_:)-swift.type.method``
    /// without making it. Person numbers are dense, so each member is marked in a bitmap of the
    /// numbers up to the largest (one load and store per member, no sort), unless a member is
    /// ``countedByBitmapBelow`` or more.
    public static func unionCount<Sets: Collection>(_ sets: Sets) -> Int where Sets.Element == PersonSet {
        guard sets.count > 1 else { return sets.first?.count ?? 0 }
        let largest = sets.lazy.compactMap(\.members.last).max() ?? 0
        guard largest < countedByBitmapBelow else { return union(sets).count }
        var words = [UInt64](repeating: 0, count: Int(largest >> 6) + 1)
        var count = 0
        for set in sets {
            for member in set.members {
                let bit = UInt64(1) << UInt64(member & 63)
                let word = Int(member >> 6)
                if words[word] & bit == 0 {
                    words[word] |= bit
                    count += 1
                }
            }
        }
        return count
    }

    /// The members ``unionCount(_:)`` counts in a bitmap (of up to 2 MiB) when all are below it.
    static let countedByBitmapBelow: UInt32 = 1 << 24

    private static func unique(_ sorted: [UInt32]) -> [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(sorted.count)
        for number in sorted where result.last != number { result.append(number) }
        return result
    }

    // MARK: Stored form

    /// The stored form: the count, the first member, then each member's gap to the one before
    /// (at least 1), all unsigned LEB128 varints of at most 5 bytes.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(members.count * 2 + 5)
        Self.appendVarint(UInt32(members.count), to: &bytes)
        var previous: UInt32 = 0
        for (index, number) in members.enumerated() {
            Self.appendVarint(index == 0 ? number : number - previous, to: &bytes)
            previous = number
        }
        return bytes
    }

    /// Reads a stored form back, or `nil` when it is not exactly one written by ``encoded()``:
    /// a varint longer than 5 bytes, not in its shortest form or past 2^32 − 1, a member past 2^32 − 1, a gap of 0, a
    /// count that the bytes do not hold, or bytes left over. Never traps, whatever the bytes.
    public init?(encoded bytes: [UInt8]) {
        guard let decoded = bytes.withUnsafeBytes({ Self.decode($0) }) else { return nil }
        members = decoded
    }

    /// ``init(encoded:)`` over bytes in place (a blob column read without copying it).
    public init?(encoded buffer: UnsafeRawBufferPointer) {
        guard let decoded = Self.decode(buffer) else { return nil }
        members = decoded
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer) -> [UInt32]? {
        var offset = 0
        func varint() -> UInt32? {
            var value: UInt64 = 0
            for shift in stride(from: UInt64(0), through: 28, by: 7) {
                guard offset < bytes.count else { return nil }
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 {
                    // The shortest form only: a last byte of 0 after others pads the number.
                    guard byte != 0 || shift == 0 else { return nil }
                    return value <= UInt64(UInt32.max) ? UInt32(value) : nil
                }
            }
            return nil
        }
        guard let count = varint() else { return nil }
        // Every member takes at least one byte.
        guard Int(count) <= bytes.count - offset else { return nil }
        var members: [UInt32] = []
        members.reserveCapacity(Int(count))
        var previous: UInt32 = 0
        for index in 0..<Int(count) {
            guard let step = varint() else { return nil }
            if index == 0 {
                previous = step
            } else {
                guard step > 0 else { return nil }
                let (sum, overflow) = previous.addingReportingOverflow(step)
                guard !overflow else { return nil }
                previous = sum
            }
            members.append(previous)
        }
        guard offset == bytes.count else { return nil }
        return members
    }

    private static func appendVarint(_ value: UInt32, to bytes: inout [UInt8]) {
        var number = value
        while number >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: number) | 0x80)
            number >>= 7
        }
        bytes.append(UInt8(number))
    }
}
