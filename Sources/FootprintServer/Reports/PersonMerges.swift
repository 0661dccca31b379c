/// The identity links of a project as merges of person numbers (see ``PersonSet``): each
/// linked anonymous id's number and the number of the user id it stands for (the smallest
/// linked user id in byte order, the reports' rule; ``EventStore/identityLinks(projectId:)``).
///
/// A day's people are kept as two sets: the numbers of the user ids of events that carried one,
/// and the numbers of the anonymous ids of events that carried none. Links are applied when a
/// report reads them (``resolve(users:anonymous:)``), so a link that arrives after the events —
/// an alias days later — changes the answers exactly as it changes the raw-event scan's.
public struct PersonMerges: Sendable, Hashable {
    /// `targets[a]` is the person number anonymous number `a` stands for, or `a` itself.
    private var targets: [UInt32] = []
    /// How many anonymous numbers are merged.
    public private(set) var count = 0

    /// Merges from `(anonymous, person)` pairs; of two pairs of one anonymous number, the last.
    public init<Pairs: Sequence>(_ pairs: Pairs) where Pairs.Element == (anonymous: UInt32, person: UInt32) {
        for (anonymous, person) in pairs {
            let index = Int(anonymous)
            if index >= targets.count {
                let start = targets.count
                targets.append(contentsOf: (start...index).lazy.map { UInt32(truncatingIfNeeded: $0) })
            }
            if targets[index] == anonymous, person != anonymous { count += 1 }
            if targets[index] != anonymous, person == anonymous { count -= 1 }
            targets[index] = person
        }
    }

    /// The person anonymous number `number` stands for.
    public func person(ofAnonymous number: UInt32) -> UInt32 {
        Int(number) < targets.count ? targets[Int(number)] : number
    }

    /// The people of one day: `users` as they are, each of `anonymous` as the person it stands
    /// for.
    public func resolve(users: PersonSet, anonymous: PersonSet) -> PersonSet {
        guard count > 0 else { return users.union(anonymous) }
        var mapped = anonymous.members
        var moved = false
        for index in mapped.indices {
            let person = self.person(ofAnonymous: mapped[index])
            if person != mapped[index] {
                mapped[index] = person
                moved = true
            }
        }
        return users.union(moved ? PersonSet(mapped) : anonymous)
    }
}
