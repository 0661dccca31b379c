extension Timestamp {
    /// Parses an HTTP date (RFC 9110 §5.6.7), as in a `Retry-After` header, by hand: no
    /// `DateFormatter` (its calendar set-up is not safe to run beside other threads on Linux).
    ///
    /// Accepts the three forms a recipient must: IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`,
    /// the obsolete RFC 850 form `Sunday, 06-Nov-94 08:49:37 GMT` and asctime
    /// `Sun Nov  6 08:49:37 1994`. The weekday is read but not checked against the date (as the
    /// RFC allows); every other field is range-checked. A two-digit year is the one closest to
    /// `now` that is not more than 50 years ahead of it. Returns `nil` for anything else,
    /// including texts over 64 bytes.
    public init?(httpDate text: String, now: Timestamp) {
        let bytes = Array(text.utf8)
        guard bytes.count <= 64 else { return nil }
        var reader = HTTPDateReader(bytes: bytes)
        guard let parsed = reader.read(nowYear: Timestamp.civil(fromDays: now.dayNumber).0), reader.isAtEnd
        else { return nil }
        let (year, month, day, hour, minute, second) = parsed
        guard (1...12).contains(month), day >= 1, day <= Self.daysInMonth(year: year, month: month),
            hour < 24,
            minute < 60, second < 61
        else { return nil }
        let days = Self.days(fromCivil: year, month, day)
        self.init(millisecondsSince1970: (days * 86_400 + hour * 3600 + minute * 60 + min(second, 59)) * 1000)
    }
}

/// Reads the fields of an HTTP date from its bytes, left to right.
private struct HTTPDateReader {
    let bytes: [UInt8]
    var index = 0

    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .map { Array($0.utf8) }
    static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    var isAtEnd: Bool { index == bytes.count }

    /// Year, month, day, hour, minute and second, or `nil` when the text has none of the forms.
    mutating func read(nowYear: Int64) -> (Int64, Int64, Int64, Int64, Int64, Int64)? {
        guard let weekday = word() else { return nil }
        if Self.days.contains(weekday), take(","), take(" ") {
            // IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
            guard let day = number(digits: 2), take(" "), let month = month(), take(" "),
                let year = number(digits: 4), take(" "), let time = time(), take(" GMT")
            else { return nil }
            return (year, month, day, time.0, time.1, time.2)
        }
        if Self.longDays.contains(weekday), take(","), take(" ") {
            // RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`.
            guard let day = number(digits: 2), take("-"), let month = month(), take("-"),
                let shortYear = number(digits: 2), take(" "), let time = time(), take(" GMT")
            else { return nil }
            return (Self.fullYear(shortYear, nowYear: nowYear), month, day, time.0, time.1, time.2)
        }
        if Self.days.contains(weekday), take(" ") {
            // asctime: `Sun Nov  6 08:49:37 1994` (a one-digit day after a space).
            guard let month = month(), take(" ") else { return nil }
            let day: Int64?
            if take(" ") { day = number(digits: 1) } else { day = number(digits: 2) }
            guard let day, take(" "), let time = time(), take(" "), let year = number(digits: 4) else {
                return nil
            }
            return (year, month, day, time.0, time.1, time.2)
        }
        return nil
    }

    /// The year a two-digit `short` year names: not more than 50 years after `nowYear`.
    static func fullYear(_ short: Int64, nowYear: Int64) -> Int64 {
        let century = nowYear - nowYear % 100
        let year = century + short
        return year > nowYear + 50 ? year - 100 : year
    }

    /// Letters up to the next non-letter.
    mutating func word() -> String? {
        let start = index
        while index < bytes.count, (bytes[index] | 0x20) >= UInt8(ascii: "a"),
            (bytes[index] | 0x20) <= UInt8(ascii: "z")
        {
            index += 1
        }
        guard index > start else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// Takes `text` when the bytes continue with it.
    mutating func take(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let expected = UnsafeBufferPointer(start: text.utf8Start, count: count)
        guard bytes[index..<index + count].elementsEqual(expected) else { return false }
        index += count
        return true
    }

    /// Exactly `digits` decimal digits.
    mutating func number(digits: Int) -> Int64? {
        guard index + digits <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[index..<index + digits] {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        index += digits
        return value
    }

    /// A month's three-letter name, as its number.
    mutating func month() -> Int64? {
        guard index + 3 <= bytes.count,
            let found = Self.months.firstIndex(where: { bytes[index..<index + 3].elementsEqual($0) })
        else { return nil }
        index += 3
        return Int64(found + 1)
    }

    /// `HH:MM:SS`.
    mutating func time() -> (Int64, Int64, Int64)? {
        guard let hour = number(digits: 2), take(":"), let minute = number(digits: 2), take(":"),
            let second = number(digits: 2)
        else { return nil }
        return (hour, minute, second)
    }
}
