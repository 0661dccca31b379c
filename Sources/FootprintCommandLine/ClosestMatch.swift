/// What a mistyped name most likely meant, among the names that exist: `reprot` → `report`,
/// `database` → `db`, `p` → `port`.
///
/// A candidate is close when its edit distance to the word (insertions, deletions,
/// substitutions and swaps of two neighbouring letters) is at most a third of the word's length
/// (at least 1), or when it starts with the same letter and one of the two is the other with
/// letters left out (an abbreviation: `db` of `database`, `p` of `port`). The closest of those
/// by edit distance wins; on a tie, the one listed first.
public struct ClosestMatch: Sendable, Hashable {
    /// The names that exist, in order of preference.
    public var candidates: [String]

    /// Creates a matcher over `candidates`.
    public init(_ candidates: some Sequence<String>) {
        self.candidates = Array(candidates)
    }

    /// The candidate closest to `word`, or `nil` when none is close (or `word` is one of them).
    public func closest(to word: String) -> String? {
        guard !word.isEmpty, !candidates.contains(word) else { return nil }
        let limit = max(1, word.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = Self.distance(word, candidate)
            guard distance <= limit || Self.abbreviates(word, candidate) else { continue }
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        return best?.name
    }

    /// The optimal-string-alignment distance: the fewest insertions, deletions, substitutions
    /// and swaps of neighbouring characters that turn `a` into `b`.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        // Three rows of the table: two back, one back, and the one being filled.
        var twoBack = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], twoBack[j - 2] + 1)
                }
            }
            (twoBack, previous, current) = (previous, current, twoBack)
        }
        return previous[b.count]
    }

    /// Whether the shorter of the two starts like the longer and is it with letters left out.
    static func abbreviates(_ a: String, _ b: String) -> Bool {
        let (short, long) = a.count <= b.count ? (a, b) : (b, a)
        guard let first = short.first, long.first == first else { return false }
        var remaining = long[...]
        for character in short {
            guard let found = remaining.firstIndex(of: character) else { return false }
            remaining = remaining[remaining.index(after: found)...]
        }
        return true
    }
}
