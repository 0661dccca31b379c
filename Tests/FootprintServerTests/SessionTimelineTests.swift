import FootprintWire
import Testing

@testable import FootprintServer

/// The pure pieces the rollups are built from: session timelines, dwell histograms and
/// day bitmasks.
struct SessionTimelineTests {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_793_491_200_000

    static func view(_ page: String, _ seconds: Int64) -> (Int64, SessionTimeline.Mark?, Bool) {
        (start + seconds * 1000, .view(page: page), true)
    }

    static func leave(_ page: String, _ seconds: Int64, _ duration: Int64) -> (
        Int64, SessionTimeline.Mark?, Bool
    ) {
        (start + seconds * 1000, .leave(page: page, durationMilliseconds: duration), false)
    }

    static func timeline(_ events: [(Int64, SessionTimeline.Mark?, Bool)]) -> SessionTimeline {
        var timeline = SessionTimeline()
        for (time, mark, isView) in events { timeline.add(time: time, mark: mark, isPageView: isView) }
        return timeline
    }

    @Test func dwellIsTheLeaveElseTheGapCappedAndTheLastVisitWithoutALeaveHasNone() {
        let timeline = Self.timeline([
            Self.view("Home", 0), Self.leave("Home", 5, 4_000),  // measured by its leave
            Self.view("List", 10), Self.leave("Home", 12, 99),  // a leave of another page: ignored
            Self.view("Detail", 20),  // List: the gap, 10 s
            (Self.start + 7_200_000, nil, false),  // any other event
            Self.view("Cart", 7_200),  // Detail: the gap capped at 30 min
            Self.view("Done", 7_300),
            (  // a negative leave leaves no mark
                Self.start + 7_301_000,
                SessionTimeline.mark(
                    type: .track, name: "$screen_leave", page: "Done", durationMilliseconds: -5),
                false
            ),
        ])
        let dwells = timeline.dwells(cap: 1_800_000)
        #expect(dwells.map(\.page) == ["Home", "List", "Detail", "Cart"])
        #expect(dwells.map(\.milliseconds) == [4_000, 10_000, 1_800_000, 100_000])
        #expect(timeline.pageViews == 5)
        #expect(timeline.start == Self.start)
        #expect(timeline.end == Self.start + 7_301_000)
        #expect(
            timeline.moves().map { "\($0.from)>\($0.to ?? "end")" } == [
                "Home>List", "List>Detail", "Detail>Cart", "Cart>Done", "Done>end",
            ])
    }

    @Test func aVisitBeforeMidnightCountsOnItsOwnDay() {
        let timeline = Self.timeline([Self.view("Home", 86_390), Self.view("List", 86_410)])
        let dwell = timeline.dwells(cap: 1_800_000)
        #expect(dwell.map(\.day) == [(Self.start / Self.day)])
        #expect(timeline.moves().map(\.day) == [Self.start / Self.day, Self.start / Self.day + 1])
    }

    /// Any arrival order gives the same timeline as time order (ties keep arrival order).
    @Test(arguments: 0..<40)
    func arrivalOrderNeverChangesTheFigures(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed))
        var events: [(Int64, SessionTimeline.Mark?, Bool)] = []
        let pages = ["A", "B", "C"]
        for step in 0..<Int.random(in: 1...30, using: &random) {
            let time = Int64(step) * 5 + Int64.random(in: 0...3, using: &random)
            let page = pages.randomElement(using: &random)!
            switch Int.random(in: 0...2, using: &random) {
            case 0: events.append(Self.view(page, time))
            case 1: events.append(Self.leave(page, time, Int64.random(in: 0...9_000, using: &random)))
            default: events.append((Self.start + time * 1000, nil, false))
            }
        }
        // Distinct times for marks so that time order is the only order.
        var seen = Set<Int64>()
        events = events.filter { $0.1 == nil || seen.insert($0.0).inserted }
        let ordered = Self.timeline(events.sorted { $0.0 < $1.0 })
        let shuffled = Self.timeline(events.shuffled(using: &random))
        #expect(shuffled == ordered)
        #expect(shuffled.dwells(cap: 60_000) == ordered.dwells(cap: 60_000))
        #expect(shuffled.moves() == ordered.moves())
    }

    @Test func aTimelineKeepsItsEarliestMarksWhateverTheOrder() {
        var random = SeededRandom(seed: 9)
        let views = (0..<(SessionTimeline.maximumMarks + 500)).map { Self.view("P\($0 % 7)", Int64($0)) }
        let timeline = Self.timeline(views.shuffled(using: &random))
        #expect(timeline.marks.count == SessionTimeline.maximumMarks)
        #expect(timeline.marks.last?.time == Self.start + Int64(SessionTimeline.maximumMarks - 1) * 1000)
        #expect(timeline.pageViews == views.count)
        #expect(timeline.end == Self.start + Int64(views.count - 1) * 1000)
    }

    @Test func storedMarksRoundTripAndDamagedOnesAreRefused() throws {
        let timeline = Self.timeline([
            Self.view("Home \"quoted\" ✓", 0), Self.leave("Home \"quoted\" ✓", 3, 2_500),
            Self.view("Next", 9),
        ])
        let stored = try #require(
            SessionTimeline(
                start: timeline.start!, end: timeline.end!, pageViews: timeline.pageViews,
                encodedMarks: timeline.encodedMarks))
        #expect(stored == timeline)
        for damaged in ["", "{}", "[1]", "[[1]]", "[[\"x\",\"y\"]]", "[[1,\"a\",\"b\"]]", "[[1,\"a\",2,3]]"] {
            #expect(
                SessionTimeline(start: 0, end: 0, pageViews: 0, encodedMarks: damaged) == nil, "\(damaged)")
        }
    }

    /// The marks as bytes read back as written, for timelines of any pages, times (far apart,
    /// out of order, at the ends of `Int64`) and durations.
    @Test(arguments: 0..<8) func storedMarksAsBytesReadBackAsWritten(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) &+ 900)
        let pages = ["Home", "", "Cart ✓", String(repeating: "x", count: 300), "\u{0}nul"]
        for _ in 0..<40 {
            var timeline = SessionTimeline()
            for _ in 0..<Int.random(in: 0...60, using: &random) {
                let time =
                    Bool.random(using: &random)
                    ? Int64.random(in: 1_790_000_000_000...1_790_000_900_000, using: &random)
                    : [Int64.min, Int64.max, 0, -1].randomElement(using: &random)!
                let page = pages.randomElement(using: &random)!
                let mark: SessionTimeline.Mark =
                    Bool.random(using: &random)
                    ? .view(page: page)
                    : .leave(
                        page: page, durationMilliseconds: Int64.random(in: 0...Int64.max, using: &random))
                timeline.add(time: time, mark: mark, isPageView: true)
            }
            guard let start = timeline.start, let end = timeline.end else { continue }
            let bytes = timeline.storedMarks
            let stored = bytes.withUnsafeBytes {
                SessionTimeline(start: start, end: end, pageViews: timeline.pageViews, storedMarks: $0)
            }
            #expect(stored == timeline)
        }
    }

    /// Bytes that are not what the store writes are refused, never read as marks or trapped on:
    /// every cut of a valid encoding, each byte changed, padding, and random bytes.
    @Test func damagedMarkBytesAreRefused() throws {
        let timeline = Self.timeline([
            Self.view("Home", 0), Self.leave("Home", 3, 2_500), Self.view("Next", 9), Self.view("Home", 12),
        ])
        let start = try #require(timeline.start)
        func read(_ bytes: [UInt8]) -> SessionTimeline? {
            bytes.withUnsafeBytes { SessionTimeline(start: start, end: start, pageViews: 3, storedMarks: $0) }
        }
        let bytes = timeline.storedMarks
        #expect(read(bytes) != nil)
        for cut in 0..<bytes.count { #expect(read(Array(bytes[..<cut])) == nil, "cut at \(cut)") }
        #expect(read(bytes + [0]) == nil, "a byte after the end")
        #expect(read([2] + bytes.dropFirst()) == nil, "another format")
        #expect(read([1, 0x81, 0x00]) == nil, "a padded count")
        #expect(read([1, 1, 4, 0]) == nil, "a page place never given")
        #expect(read([1, 1, 0, 2, 0xC3, 0x28, 0]) == nil, "a page that is not UTF-8")
        #expect(read([1, 0xE9, 0x07]) == nil, "more marks than a timeline keeps")
        #expect(read([1, 1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]) == nil, "a page longer than the bytes")
        var random = SeededRandom(seed: 77)
        for _ in 0..<2_000 {
            var changed = bytes
            changed[Int.random(in: 0..<changed.count, using: &random)] = UInt8.random(
                in: 0...255, using: &random)
            _ = read(changed)
            _ = read(
                (0..<Int.random(in: 0...40, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                })
        }
    }

    @Test func sessionKeysUseTheSessionIdElseTheDeviceAndDay() {
        let time = Timestamp(millisecondsSince1970: Self.start + 5)
        #expect(
            SessionTimeline.sessionKey(sessionId: "s", anonymousId: "a", userId: "u", time: time) == "s:s")
        let device = SessionTimeline.sessionKey(sessionId: nil, anonymousId: "a", userId: "u", time: time)
        let nextDay = SessionTimeline.sessionKey(
            sessionId: nil, anonymousId: "a", userId: "u", time: time.adding(milliseconds: Self.day))
        #expect(device != nextDay)
        #expect(device.hasSuffix(":a"))
        #expect(
            SessionTimeline.sessionKey(sessionId: nil, anonymousId: nil, userId: "u", time: time).hasSuffix(
                ":u"))
    }

    // MARK: Dwell histogram

    @Test func bucketsAreOrderedAndNarrow() {
        var previous = DwellHistogram.bucket(of: 0)
        var lowest: [Int64: Int64] = [:]
        var highest: [Int64: Int64] = [:]
        var value: Int64 = 1
        while value < 40_000_000 {
            let bucket = DwellHistogram.bucket(of: value)
            #expect(bucket >= previous)
            previous = bucket
            lowest[bucket] = min(lowest[bucket] ?? value, value)
            highest[bucket] = max(highest[bucket] ?? value, value)
            value += max(1, value / 97)
        }
        for (bucket, low) in lowest {
            #expect(Double(highest[bucket]! - low) <= Double(low) * 0.0625, "bucket \(bucket)")
        }
        #expect(DwellHistogram.bucket(of: -5) == 0)
        #expect((0..<16).allSatisfy { DwellHistogram.bucket(of: Int64($0)) == Int64($0) })
    }

    @Test func theMeanIsExactAndTheMedianWithinABucket() {
        var random = SeededRandom(seed: 3)
        for count in [1, 2, 3, 10, 501, 2_000] {
            let values = (0..<count).map { _ in Int64.random(in: 0...3_600_000, using: &random) }
            var histogram = DwellHistogram()
            for value in values { histogram.add(value) }
            let sorted = values.sorted()
            let exactMean = Int((Double(values.reduce(0, +)) / Double(count)).rounded())
            let exactMedian = ReportEngine.median(values)!
            #expect(histogram.count == count)
            #expect(histogram.average == exactMean)
            #expect(abs(Double(histogram.median! - exactMedian)) <= Double(sorted[count / 2]) * 0.0625 + 1)
        }
        var distinct = DwellHistogram()
        for value: Int64 in [100, 5_000, 9_000, 70_000] { distinct.add(value) }
        #expect(distinct.median == 7_000)
        var emptied = distinct
        emptied.add(bucket: DwellHistogram.bucket(of: 5_000), count: -1, total: -5_000)
        #expect(emptied.median == 9_000)
        #expect(DwellHistogram().median == nil && DwellHistogram().average == nil)
    }

    // MARK: Day bitmasks

    /// People per day over a window equals counting each person's days by brute force.
    @Test(arguments: 0..<20)
    func peoplePerDayWindowsMatchABruteForceCount(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed) &+ 100)
        let firstDay = Int64.random(in: 20_000...20_200, using: &random)
        let dayCount = Int.random(in: 1...140, using: &random)
        var range = RangeDays(firstDay: firstDay, dayCount: dayCount)
        var active: [String: Set<Int64>] = [:]
        for _ in 0..<Int.random(in: 0...60, using: &random) {
            let person = "p\(Int.random(in: 0..<12, using: &random))"
            let block = (firstDay >> 6) + Int64.random(in: -1...3, using: &random)
            let bits =
                UInt64.random(in: 0...UInt64.max, using: &random)
                & UInt64.random(in: 0...UInt64.max, using: &random)
            range.add(RollupPersonDays(key: "", firstDay: block << 6, person: person, days: bits))
            for bit in 0..<64 where bits & (1 << UInt64(bit)) != 0 {
                let day = (block << 6) + Int64(bit)
                if day >= firstDay, day < firstDay + Int64(dayCount) {
                    active[person, default: []].insert(day)
                }
            }
        }
        #expect(range.people == active.count)
        for window in [1, 7, 30] {
            let expected = (0..<dayCount).map { offset -> Int in
                let day = firstDay + Int64(offset)
                return active.values.filter { days in days.contains { $0 <= day && $0 > day - Int64(window) }
                }.count
            }
            #expect(range.peoplePerDay(window: window) == expected, "window \(window)")
        }
    }

    // MARK: Person times

    @Test(arguments: 0..<30)
    func personTimesRoundTripAndConcatenate(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed) &+ 500)
        let day = Int64.random(in: -3_000_000...3_000_000, using: &random)
        let start = PersonTimes.start(ofDay: day)
        func entries(_ count: Int) -> [PersonTimes.Entry] {
            (0..<count).map { _ in
                // Mostly inside the day and small numbers; now and then any value, which must
                // survive too.
                let odd = Int.random(in: 0...9, using: &random) == 0
                return PersonTimes.Entry(
                    member: odd
                        ? UInt64.random(in: 0...UInt64.max, using: &random)
                        : UInt64.random(in: 0..<500_000, using: &random),
                    time: odd
                        ? Int64.random(in: Int64.min...Int64.max, using: &random)
                        : start + Int64.random(in: 0..<86_400_000, using: &random))
            }
        }
        let first = entries(Int.random(in: 0...300, using: &random))
        var encoded: [UInt8] = []
        PersonTimes.encode(first, day: day, into: &encoded)
        #expect(PersonTimes.decode(encoded, day: day) == first)
        // What the writer does in SQL: a transaction's entries appended to the stored bytes.
        let more = entries(5)
        var appended = encoded
        PersonTimes.encode(more, day: day, into: &appended)
        #expect(PersonTimes.decode(appended, day: day) == first + more)
        // Split for storage: the first piece fits the room left, every other a chunk; together
        // they are the entries in order.
        let room = Int.random(in: -5...PersonTimes.chunkBytes, using: &random)
        let all = first + more + entries(Int.random(in: 0...2_000, using: &random))
        let pieces = PersonTimes.pieces(all, day: day, room: room)
        #expect(pieces[0].count <= max(0, room))
        #expect(pieces.dropFirst().allSatisfy { !$0.isEmpty && $0.count <= PersonTimes.chunkBytes })
        #expect(pieces.allSatisfy { PersonTimes.decode($0, day: day) != nil }, "each piece ends on an entry")
        #expect(PersonTimes.decode(Array(pieces.joined()), day: day) == all)
    }

    @Test func personTimesPiecesAndMembers() {
        let entry = PersonTimes.Entry(
            member: PersonTimes.member(number: 3, anonymous: true), time: 86_400_000 + 5)
        #expect(entry.member == 7 && PersonTimes.member(number: 3, anonymous: false) == 6)
        #expect(PersonTimes.member(number: .max, anonymous: true) == UInt64(UInt32.max) << 1 | 1)
        var one: [UInt8] = []
        PersonTimes.encode([entry], day: 1, into: &one)
        #expect(one == [7, 5], "member 7, 5 ms into day 1")
        #expect(PersonTimes.pieces([], day: 1, room: 100) == [[]])
        #expect(PersonTimes.pieces([entry, entry], day: 1, room: 2) == [[7, 5], [7, 5]])
        #expect(PersonTimes.pieces([entry], day: 1, room: 1) == [[], [7, 5]], "no room: a new chunk")
        #expect(PersonTimes.pieces([entry], day: 1, room: 0) == [[], [7, 5]])
        let full = Array(repeating: entry, count: PersonTimes.chunkBytes / 2 + 1)
        #expect(PersonTimes.pieces(full, day: 1, room: 0).map(\.count) == [0, PersonTimes.chunkBytes, 2])
    }

    @Test func damagedPersonTimesAreRefused() {
        #expect(PersonTimes.decode([], day: 0) == [])
        #expect(PersonTimes.decode([0x80], day: 0) == nil, "a number cut short")
        #expect(PersonTimes.decode([0x01], day: 0) == nil, "a member without its time")
        var seen: [PersonTimes.Entry] = []
        #expect(!PersonTimes.decode([0x01, 0x02, 0x03, 0x80], day: 0) { seen.append($0) })
        #expect(seen == [PersonTimes.Entry(member: 1, time: 2)], "the entries before the damage")
        #expect(
            PersonTimes.decode([0x01] + Array(repeating: 0xFF, count: 11) + [0x01], day: 0) == nil,
            "longer than 64 bits")
        let day = Int64(1_796_083_200_000 / 86_400_000)
        var bytes: [UInt8] = []
        PersonTimes.encode(
            [PersonTimes.Entry(member: 400_000, time: PersonTimes.start(ofDay: day) + 86_399_999)], day: day,
            into: &bytes)
        #expect(bytes.count <= 7, "a number below 2^20 and an offset in the day: 3 + 4 bytes")
        #expect(PersonTimes.start(ofDay: -1) == -86_400_000)
    }
}
