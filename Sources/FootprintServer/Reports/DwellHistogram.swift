/// Dwell times as counts and sums per logarithmic bucket: what the dwell rollup keeps per page
/// and day, so that a range's mean and median need no events.
///
/// Buckets are exact below 16 ms and 1/16 of their lower bound wide above, so a bucket's values
/// differ by under 6.25 %. The mean is exact (sums are kept). The median is the mean of the
/// bucket holding the middle value: exact when that bucket holds one distinct value, else
/// within the bucket's width of the true median. Counts and sums saturate at the bounds of
/// `Int64` (a sum past them is held there, never trapping); bins with a count of 0 or less are
/// left out of the figures.
public struct DwellHistogram: Sendable, Hashable {
    /// One bucket's values.
    public struct Bin: Sendable, Hashable {
        /// How many.
        public var count: Int64
        /// Their sum in milliseconds.
        public var total: Int64
    }

    /// The bins by bucket number.
    public private(set) var bins: [Int64: Bin] = [:]

    /// An empty histogram.
    public init() {}

    /// The bucket of a dwell: `milliseconds` itself below 16, then 16 buckets per power of two.
    public static func bucket(of milliseconds: Int64) -> Int64 {
        guard milliseconds >= 16 else { return Swift.max(0, milliseconds) }
        let exponent = Int64(63 - milliseconds.leadingZeroBitCount)
        let mantissa = (milliseconds >> (exponent - 4)) & 15
        return 16 + (exponent - 4) * 16 + mantissa
    }

    /// Adds `count` values (negative to remove them) summing to `total` to `bucket`.
    public mutating func add(bucket: Int64, count: Int64, total: Int64) {
        var bin = bins[bucket] ?? Bin(count: 0, total: 0)
        bin.count.addSaturating(count)
        bin.total.addSaturating(total)
        bins[bucket] = bin.count == 0 ? nil : bin
    }

    /// Adds one dwell.
    public mutating func add(_ milliseconds: Int64) {
        add(bucket: Self.bucket(of: milliseconds), count: 1, total: milliseconds)
    }

    /// The bins that hold dwells (a count above 0).
    private var counted: [Int64: Bin] { bins.filter { $0.value.count > 0 } }

    /// How many dwells.
    public var count: Int { Int(counted.values.map(\.count).saturatingSum()) }

    /// The mean in milliseconds (exact below `Int64.max` in all), `nil` when empty.
    public var average: Int? {
        let bins = counted.values
        let count = bins.map(\.count).saturatingSum()
        guard count > 0 else { return nil }
        return Int(saturating: Double(bins.map(\.total).saturatingSum()) / Double(count))
    }

    /// The median in milliseconds (see the type's note), `nil` when empty.
    public var median: Int? {
        let sorted = counted.sorted { $0.key < $1.key }.map(\.value)
        let count = sorted.map(\.count).saturatingSum()
        guard count > 0 else { return nil }
        func value(at position: Int64) -> Double {
            var seen: Int64 = 0
            for bin in sorted {
                seen.addSaturating(bin.count)
                if position < seen { return Double(bin.total) / Double(bin.count) }
            }
            return Double(sorted.last!.total) / Double(sorted.last!.count)
        }
        return Int(saturating: (value(at: (count - 1) / 2) + value(at: count / 2)) / 2)
    }
}
