import FootprintWire
import Testing

/// `Timestamp(httpDate:now:)`: the three forms RFC 9110 names, range checks, and random texts.
struct HTTPDateTests {
    let now = Timestamp(iso8601: "2026-11-29T20:00:00Z")!

    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", "1994-11-06T08:49:37Z"),
        ("Sunday, 06-Nov-94 08:49:37 GMT", "1994-11-06T08:49:37Z"),
        ("Sun Nov  6 08:49:37 1994", "1994-11-06T08:49:37Z"),
        ("Sun Nov 16 08:49:37 1994", "1994-11-16T08:49:37Z"),
        ("Sun, 29 Nov 2026 20:00:10 GMT", "2026-11-29T20:00:10Z"),
        ("Tue, 29 Feb 2028 23:59:59 GMT", "2028-02-29T23:59:59Z"),
        ("Thu, 01 Jan 1970 00:00:00 GMT", "1970-01-01T00:00:00Z"),
        // A leap second is read as the second before it.
        ("Wed, 31 Dec 2025 23:59:60 GMT", "2025-12-31T23:59:59Z"),
        // Two-digit years: not more than 50 years ahead of now (2026).
        ("Monday, 01-Jan-76 00:00:00 GMT", "2076-01-01T00:00:00Z"),
        ("Monday, 01-Jan-77 00:00:00 GMT", "1977-01-01T00:00:00Z"),
    ])
    func readsEachForm(text: String, expected: String) throws {
        let time = try #require(Timestamp(httpDate: text, now: now))
        #expect(time == Timestamp(iso8601: expected))
    }

    @Test(arguments: [
        "", "soon", "120", "Sun, 31 Feb 2026 00:00:00 GMT", "Sun, 29 Nov 2026 24:00:00 GMT",
        "Sun, 29 Nov 2026 20:60:00 GMT", "Sun, 29 Nov 2026 20:00:61 GMT", "Sun, 29 Nov 2026 20:00:00 UTC",
        "Sun, 29 Nov 2026 20:00:00 +0000", "Sun, 29 Nov 2026 20:00:00 GMT ", "sun, 29 Nov 2026 20:00:00 GMT",
        "Sun, 29 nov 2026 20:00:00 GMT", "Sun, 9 Nov 2026 20:00:00 GMT", "Sun, 00 Nov 2026 20:00:00 GMT",
        "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov 6 08:49:37 1994", "Sun, 29 Nov 2026 20:00 GMT",
        "Caturday, 29 Nov 2026 20:00:00 GMT",
        "Sun, 29 Nov 2026 20:00:00 GMT" + String(repeating: " ", count: 40),
    ])
    func refusesTheRest(text: String) {
        #expect(Timestamp(httpDate: text, now: now) == nil)
    }

    /// Every second of four centuries written in IMF-fixdate reads back as the same time the
    /// ISO-8601 parser gives for it.
    @Test func agreesWithTheISOParserOnRandomDates() throws {
        let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var generator = SeededRandom(seed: 11)
        func two(_ value: UInt64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        for _ in 0..<5_000 {
            let year = 1800 + generator.next() % 400
            let month = 1 + generator.next() % 12
            let day = 1 + generator.next() % 28
            let (hour, minute, second) = (generator.next() % 24, generator.next() % 60, generator.next() % 60)
            let iso = "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))Z"
            let http =
                "\(days[Int(generator.next() % 7)]), \(two(day)) \(months[Int(month) - 1]) \(year) "
                + "\(two(hour)):\(two(minute)):\(two(second)) GMT"
            #expect(Timestamp(httpDate: http, now: now) == Timestamp(iso8601: iso), "\(http)")
        }
    }

    /// Damaged dates (bytes replaced, cut or repeated) are refused or read, never a crash.
    @Test func damagedTextsNeverCrash() {
        var generator = SeededRandom(seed: 12)
        let seeds = [
            "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        ]
        let alphabet = Array("0123456789 ,:-GMTSunNovday\u{0}é".utf8)
        var read = 0
        for _ in 0..<20_000 {
            var bytes = Array(seeds[Int(generator.next() % 3)].utf8)
            for _ in 0..<(1 + generator.next() % 3) {
                let at = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[at] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                case 1: bytes.removeSubrange(at...)
                default: bytes.insert(contentsOf: bytes[at...], at: at)
                }
                if bytes.isEmpty { break }
            }
            if let time = Timestamp(httpDate: String(decoding: bytes, as: UTF8.self), now: now) {
                read += 1
                #expect(time.millisecondsSince1970 % 1000 == 0)
            }
        }
        #expect(read < 20_000)
    }
}
