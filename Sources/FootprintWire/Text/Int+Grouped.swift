extension Int {
    /// The number with thousands separators, for people: `1234567` → `1,234,567`. Used by the
    /// dashboard, the demo's report and the benchmark tables alike.
    public var grouped: String {
        let digits = String(magnitude)
        var result = ""
        result.reserveCapacity(digits.count + digits.count / 3 + 1)
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return self < 0 ? "-" + result : result
    }
}
