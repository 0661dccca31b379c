/// An instant in UTC with millisecond precision, written on the wire as ISO-8601
/// (`2026-11-29T19:50:00.123Z`).
///
/// Formatting and parsing are done by hand (no `DateFormatter`): they run for every event.
public struct Timestamp: Sendable, Hashable, Comparable, Codable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var millisecondsSince1970: Int64

    /// Creates a timestamp from milliseconds since the Unix epoch.
    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    /// This instant moved by `milliseconds`.
    public func adding(milliseconds: Int64) -> Timestamp {
        Timestamp(millisecondsSince1970: millisecondsSince1970 &+ milliseconds)
    }

    /// The UTC day this instant falls on, as days since 1970-01-01.
    public var dayNumber: Int64 {
        Self.floorDivide(millisecondsSince1970, 86_400_000)
    }

    /// The UTC calendar day (`2026-11-29`).
    public var dayString: String {
        let (year, month, day) = Self.civil(fromDays: dayNumber)
        return "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Timestamp(iso8601: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not an ISO-8601 time: \(text)")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }
}

extension Timestamp {
    /// The ISO-8601 text in UTC with milliseconds: `2026-11-29T19:50:00.123Z`.
    public var iso8601: String {
        let days = dayNumber
        // Wrapping: the true difference is always in 0..<86_400_000, even where the product is not.
        let msOfDay = millisecondsSince1970 &- days &* 86_400_000
        let (year, month, day) = Self.civil(fromDays: days)
        guard (0...9999).contains(year) else { return iso8601Padded(year, month, day, msOfDay) }
        // Written digit by digit into the string's own storage: this runs for every event.
        return String(unsafeUninitializedCapacity: 24) { buffer in
            func put(_ value: Int64, _ width: Int, at offset: Int) {
                var rest = value
                for position in stride(from: offset + width - 1, through: offset, by: -1) {
                    buffer[position] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
                    rest /= 10
                }
            }
            put(year, 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(month, 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(day, 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            put(msOfDay / 3_600_000, 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(msOfDay / 60_000 % 60, 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            put(msOfDay / 1000 % 60, 2, at: 17)
            buffer[19] = UInt8(ascii: ".")
            put(msOfDay % 1000, 3, at: 20)
            buffer[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    /// ``iso8601`` for years outside 0...9999.
    private func iso8601Padded(_ year: Int64, _ month: Int64, _ day: Int64, _ msOfDay: Int64) -> String {
        let hour = msOfDay / 3_600_000
        let minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60
        let millisecond = msOfDay % 1000
        return "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))T\(Self.pad(hour, 2)):"
            + "\(Self.pad(minute, 2)):\(Self.pad(second, 2)).\(Self.pad(millisecond, 3))Z"
    }

    /// Parses an ISO-8601 / RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS`, optional fraction of any
    /// length (kept to the millisecond), then `Z`, `±HH:MM`, `±HHMM` or nothing (taken as UTC).
    /// A date alone (`YYYY-MM-DD`) is midnight UTC. Returns `nil` for anything else.
    public init?(iso8601 text: String) {
        var utf8 = Array(text.utf8)
        if utf8.count == 10 { utf8 += Array("T00:00:00Z".utf8) }
        guard utf8.count >= 19 else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for i in range {
                let byte = utf8[i]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), utf8[4] == UInt8(ascii: "-"),
            let month = number(5..<7), utf8[7] == UInt8(ascii: "-"),
            let day = number(8..<10),
            utf8[10] == UInt8(ascii: "T") || utf8[10] == UInt8(ascii: "t") || utf8[10] == UInt8(ascii: " "),
            let hour = number(11..<13), utf8[13] == UInt8(ascii: ":"),
            let minute = number(14..<16), utf8[16] == UInt8(ascii: ":"),
            let second = number(17..<19)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= Self.daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var millisecond: Int64 = 0
        if index < utf8.count, utf8[index] == UInt8(ascii: ".") || utf8[index] == UInt8(ascii: ",") {
            index += 1
            var digits = 0
            while index < utf8.count, utf8[index] >= 0x30, utf8[index] <= 0x39 {
                if digits < 3 { millisecond = millisecond * 10 + Int64(utf8[index] - 0x30) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { millisecond *= 10 } }
        }
        var offsetMinutes: Int64 = 0
        if index < utf8.count {
            switch utf8[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                index += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign: Int64 = utf8[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
                guard index + 2 <= utf8.count, let hours = number(index..<index + 2) else { return nil }
                index += 2
                if index < utf8.count, utf8[index] == UInt8(ascii: ":") { index += 1 }
                guard index + 2 <= utf8.count, let minutes = number(index..<index + 2) else { return nil }
                index += 2
                guard hours < 24, minutes < 60 else { return nil }
                offsetMinutes = sign * (hours * 60 + minutes)
            default:
                return nil
            }
        }
        guard index == utf8.count else { return nil }
        let days = Self.days(fromCivil: year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offsetMinutes * 60
        self.init(millisecondsSince1970: seconds * 1000 + millisecond)
    }

    static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// `a / b` rounded toward negative infinity (`b` > 0); defined for every `a`.
    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return a % b < 0 ? quotient - 1 : quotient
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day number (inverse of ``days(fromCivil:_:_:)``).
    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
