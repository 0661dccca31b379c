import FootprintWire
import Testing

struct TimestampTests {
    @Test(arguments: [
        ("1970-01-01T00:00:00.000Z", Int64(0)),
        ("2026-11-29T19:50:00.123Z", Int64(1_795_981_800_123)),
        ("2026-11-29T21:50:00.123+02:00", Int64(1_795_981_800_123)),
        ("2026-11-29T19:50:00.123456Z", Int64(1_795_981_800_123)),
        ("2026-11-29T19:50:00Z", Int64(1_795_981_800_000)),
        ("2026-11-29", Int64(1_795_910_400_000)),
        ("1969-12-31T23:59:59.999Z", Int64(-1)),
        ("2000-02-29T12:00:00.5Z", Int64(951_825_600_500)),
    ])
    func parses(text: String, milliseconds: Int64) throws {
        let time = try #require(Timestamp(iso8601: text))
        #expect(time.millisecondsSince1970 == milliseconds)
    }

    @Test(arguments: [
        "", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "yesterday", "2026-11-29T19:50:00.Z",
        "2026-11-29T25:00:00Z", "2026-11-29T19:50:00+2",
    ])
    func rejects(text: String) {
        #expect(Timestamp(iso8601: text) == nil)
    }

    @Test func formatsAndParsesBackOverCenturies() {
        var generator = SeededRandom(seed: 7)
        for _ in 0..<10_000 {
            let milliseconds = Int64(bitPattern: generator.next() % 8_000_000_000_000) - 2_000_000_000_000
            let time = Timestamp(millisecondsSince1970: milliseconds)
            #expect(Timestamp(iso8601: time.iso8601) == time)
        }
    }

    @Test func uuidv7CarriesItsTimeAndVersion() throws {
        let time = Timestamp(millisecondsSince1970: 1_795_981_800_123)
        let id = UUIDv7.make(at: time)
        #expect(id.count == 36)
        #expect(Array(id)[14] == "7")
        #expect("89ab".contains(Array(id)[19]))
        #expect(UUIDv7.timestamp(of: id) == time)
        #expect(UUIDv7.make(at: time) != id)
    }

    @Test func uuidv7SortsByTime() {
        let ids = (0..<100).map {
            UUIDv7.make(at: Timestamp(millisecondsSince1970: 1_700_000_000_000 + Int64($0)))
        }
        #expect(ids.sorted() == ids)
    }
}
