import FootprintWire
import Testing

@testable import FootprintServer

/// ``PersonSet`` against Swift's `Set` on random sets, its stored form against hostile bytes,
/// ``PersonMerges``, and the reports from day sets against the reports from person rows.
struct PersonSetTests {
    /// A random set: small numbers (many shared members) or spread over the whole range.
    static func randomNumbers(_ random: inout SeededRandom) -> [UInt32] {
        let count = Int(random.next() % 200)
        let spread = random.next() % 3
        return (0..<count).map { _ in
            switch spread {
            case 0: UInt32(random.next() % 300)
            case 1: UInt32(random.next() % 70_000)
            default: UInt32(truncatingIfNeeded: random.next())
            }
        }
    }

    @Test(arguments: UInt64(1)...40)
    func setOperationsEqualSwiftSets(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let a = Self.randomNumbers(&random)
        let b = Self.randomNumbers(&random)
        let setA = PersonSet(a)
        let setB = PersonSet(b)
        #expect(setA.members == Set(a).sorted())
        #expect(setA.count == Set(a).count)
        #expect(setA.union(setB).members == Set(a).union(b).sorted())
        #expect(setA.intersection(setB).members == Set(a).intersection(b).sorted())
        #expect(setA.subtracting(setB).members == Set(a).subtracting(b).sorted())
        #expect(PersonSet.union([setA, setB, PersonSet()]) == setA.union(setB))
        var formed = setA
        formed.formUnion(setB)
        #expect(formed == setA.union(setB))
        for number in a.prefix(20) + b.prefix(20) {
            #expect(setA.contains(number) == Set(a).contains(number))
        }
        #expect(PersonSet(encoded: setA.encoded()) == setA)
        #expect(PersonSet(encoded: setB.encoded()) == setB)
        // Counted in a bitmap, or by the union when a member is past it.
        let c = Self.randomNumbers(&random)
        #expect(PersonSet.unionCount([setA, setB, PersonSet(c)]) == Set(a).union(b).union(c).count)
        #expect(PersonSet.unionCount([setA]) == setA.count)
        #expect(PersonSet.unionCount([PersonSet]()) == 0)
    }

    /// The bitmap's last member and the first past it count as in the union.
    @Test func unionCountsAtTheBitmapsEdge() {
        let limit = PersonSet.countedByBitmapBelow
        for extra in [limit - 1, limit, UInt32.max] {
            let sets = [PersonSet([0, 5, extra]), PersonSet([5, 64, extra]), PersonSet()]
            #expect(PersonSet.unionCount(sets) == PersonSet.union(sets).count)
            #expect(PersonSet.unionCount(sets) == 4)
        }
    }

    @Test func extremeMembersRoundTrip() {
        for members in [
            [], [0], [UInt32.max], [0, UInt32.max], [UInt32.max - 1, UInt32.max], Array(0..<1_000),
        ] {
            let set = PersonSet(members)
            #expect(PersonSet(encoded: set.encoded()) == set)
        }
    }

    /// Any bytes: decoding never traps, and what decodes is exactly what ``PersonSet/encoded()``
    /// would write for it (one stored form per set).
    @Test(arguments: UInt64(1)...30)
    func hostileBytesNeverTrapAndDecodeCanonically(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<2_000 {
            var bytes = (0..<Int(random.next() % 24)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if random.next() % 2 == 0, !bytes.isEmpty {
                // A plausible count, so that more inputs reach the members.
                bytes[0] = UInt8(random.next() % 8)
            }
            if let set = PersonSet(encoded: bytes) {
                #expect(set.encoded() == bytes)
                #expect(zip(set.members, set.members.dropFirst()).allSatisfy { $0 < $1 })
            }
        }
        // Mutations of valid forms: each is refused or decodes to its own canonical form.
        for _ in 0..<500 {
            var bytes = PersonSet(Self.randomNumbers(&random)).encoded()
            let index = Int(random.next() % UInt64(bytes.count))
            switch random.next() % 3 {
            case 0: bytes[index] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            case 1: bytes.remove(at: index)
            default: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: index)
            }
            if let set = PersonSet(encoded: bytes) { #expect(set.encoded() == bytes) }
        }
    }

    @Test(
        arguments: [
            ([], "empty"),
            ([2, 5], "count past the bytes"),
            ([1, 0x80], "unfinished varint"),
            ([1, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], "varint longer than 5 bytes"),
            ([1, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F], "member past 2^32 - 1"),
            ([2, 4, 0], "gap of 0"),
            ([2, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F, 2], "sum past 2^32 - 1"),
            ([1, 4, 9], "bytes left over"),
            ([1, 0x84, 0x00], "varint not in its shortest form"),
            ([0xFF, 0xFF, 0xFF, 0xFF, 0x0F], "count of 2^32 - 1 without members"),
        ] as [([UInt8], String)])
    func malformedStoredFormsAreRefused(bytes: [UInt8], reason: String) {
        #expect(PersonSet(encoded: bytes) == nil, Comment(rawValue: reason))
    }

    @Test(arguments: UInt64(1)...20)
    func mergesMapAnonymousNumbersOnly(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let pairs = (0..<Int(random.next() % 40)).map { _ in
            (anonymous: UInt32(random.next() % 100), person: UInt32(random.next() % 100))
        }
        let merges = PersonMerges(pairs)
        var expected: [UInt32: UInt32] = [:]
        for pair in pairs { expected[pair.anonymous] = pair.person }
        #expect(merges.count == expected.filter { $0.key != $0.value }.count)
        let users = PersonSet(Self.randomNumbers(&random).map { $0 % 120 })
        let anonymous = PersonSet(Self.randomNumbers(&random).map { $0 % 120 })
        #expect(
            merges.resolve(users: users, anonymous: anonymous).members
                == Set(users.members).union(anonymous.members.map { expected[$0] ?? $0 }).sorted())
    }

    /// A range of 1 to `days` whole days from a random day.
    static func randomRange(_ random: inout SeededRandom, days: Int) -> (
        firstDay: Int64, dayCount: Int, filter: ReportFilter
    ) {
        let firstDay = Int64(20_000 + Int(random.next() % 100))
        let dayCount = 1 + Int(random.next() % UInt64(days))
        let filter = ReportFilter(
            from: Timestamp(millisecondsSince1970: firstDay * 86_400_000),
            to: Timestamp(millisecondsSince1970: (firstDay + Int64(dayCount)) * 86_400_000))
        return (firstDay, dayCount, filter)
    }

    /// Random person rows and the day sets made from them (each person a number): activity,
    /// people per key and retention are equal, over ranges across 64-day blocks.
    @Test(arguments: UInt64(1)...25)
    func reportsFromDaySetsEqualReportsFromPersonRows(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let (firstDay, dayCount, filter) = Self.randomRange(&random, days: 90)
        let keys = ["Home", "Cart", "$element_click", "Buy"]
        var rows: [RollupKind: [RollupPersonDays]] = [:]
        var sets: [RollupKind: [String: RollupReports.DaySets]] = [:]
        for kind in [RollupKind.anyEvent, .pageViews, .trackEvents] {
            for _ in 0..<Int(random.next() % 300) {
                let person = UInt32(random.next() % 60)
                let key = kind == .anyEvent ? "" : keys[Int(random.next() % UInt64(keys.count))]
                // Blocks around the range, some days outside it.
                let block = (firstDay >> 6) - 1 + Int64(random.next() % 4)
                let days = random.next() & random.next()
                rows[kind, default: []].append(
                    RollupPersonDays(key: key, firstDay: block << 6, person: "p\(person)", days: days))
                var bits = days
                while bits != 0 {
                    let day = (block << 6) + Int64(bits.trailingZeroBitCount)
                    bits &= bits - 1
                    guard day >= firstDay, day < firstDay + Int64(dayCount) else { continue }
                    sets[kind, default: [:]][key, default: [:]][day, default: PersonSet()].formUnion(
                        PersonSet([person]))
                }
            }
        }
        let fromRows = RollupReports.activity(
            active: rows[.anyEvent] ?? [], viewers: rows[.pageViews] ?? [], filter: filter)
        let fromSets = RollupReports.activity(
            active: sets[.anyEvent]?[""] ?? [:], viewers: sets[.pageViews] ?? [:], filter: filter)
        #expect(fromSets.people == fromRows.people)
        #expect(fromSets.daily == fromRows.daily)
        #expect(fromSets.weekly == fromRows.weekly)
        #expect(fromSets.monthly == fromRows.monthly)
        #expect(fromSets.visitors == fromRows.visitors)
        #expect(fromSets.pages == fromRows.pages.filter { $0.value.people > 0 })
        #expect(
            RollupReports.people(sets[.trackEvents] ?? [:], filter: filter)
                == RollupReports.people(rows[.trackEvents] ?? [], filter: filter).filter { $0.value > 0 })
        for returnEvent in [nil, "Buy"] as [String?] {
            let returns = returnEvent.map { event in (rows[.trackEvents] ?? []).filter { $0.key == event } }
            #expect(
                RollupReports.retention(
                    active: sets[.anyEvent]?[""] ?? [:],
                    returns: returnEvent.map { sets[.trackEvents]?[$0] ?? [:] },
                    returnEvent: returnEvent, days: 7, filter: filter)
                    == RollupReports.retention(
                        active: rows[.anyEvent] ?? [], returns: returns, returnEvent: returnEvent, days: 7,
                        filter: filter))
        }
    }

    /// Random person rows on pages, and selections of their kinds, keys and pages: a selection
    /// that holds every page its keys are counted on has whole keys, whose people from day sets
    /// equal its selectors' people from the rows; one that misses a page has none.
    @Test(arguments: UInt64(1)...25)
    func wholeKeysCountTheSelectorsPeopleFromDaySets(seed: UInt64) {
        typealias Selector = RollupReports.PeopleSelector
        var random = SeededRandom(seed: seed)
        let (firstDay, dayCount, filter) = Self.randomRange(&random, days: 40)
        var rows: [RollupKind: [RollupPersonDays]] = [:]
        var sets: [RollupKind: [String: RollupReports.DaySets]] = [:]
        // The kind, key and page of the counts of the range's days.
        var counted: Set<Selector> = []
        for kind in [RollupKind.pageViews, .elementClicks] {
            for _ in 0..<Int(random.next() % 200) {
                let person = UInt32(random.next() % 50)
                let key = ["Home", "Cart", "#buy:#A"].randomElement(using: &random)!
                let page = ["Home", "Cart", ""].randomElement(using: &random)!
                // Some days before or after the range.
                let day = firstDay - 3 + Int64(random.next() % UInt64(dayCount + 6))
                rows[kind, default: []].append(
                    RollupPersonDays(
                        key: key, firstDay: (day >> 6) << 6, person: "p\(person)", page: page,
                        days: 1 << UInt64(day & 63)))
                sets[kind, default: [:]][key, default: [:]][day, default: PersonSet()].formUnion(
                    PersonSet([person]))
                if day >= firstDay, day < firstDay + Int64(dayCount) {
                    counted.insert(Selector(kind: kind, key: key, page: page))
                }
            }
        }
        var whole = 0
        for _ in 0..<30 {
            // Every page of some keys, one of them sometimes left out.
            let chosen = Set(counted.map { "\($0.kind) \($0.key)" }.filter { _ in random.next() % 2 == 0 })
            var selection = counted.filter { chosen.contains("\($0.kind) \($0.key)") }
            if random.next() % 2 == 0, let left = selection.randomElement(using: &random) {
                selection.remove(left)
            }
            let keys = RollupReports.wholeKeys(of: selection, pagesIn: counted)
            let holdsEveryPage = counted.allSatisfy { group in
                selection.contains(group)
                    || !selection.contains { ($0.kind, $0.key) == (group.kind, group.key) }
            }
            #expect((keys != nil) == holdsEveryPage)
            guard let keys else { continue }
            whole += 1
            #expect(keys == Set(selection.map { RollupReports.PeopleKey(kind: $0.kind, key: $0.key) }))
            #expect(
                RollupReports.people(ofKeys: keys, sets: sets, filter: filter)
                    == RollupReports.people(of: [selection], rows: rows, filter: filter)[0])
        }
        #expect(whole > 0)
        // Other messages are counted as any event's people on their page: never whole keys.
        #expect(
            RollupReports.wholeKeys(of: [Selector(kind: .anyEvent, key: "", page: "Home")], pagesIn: counted)
                == nil)
    }
}
