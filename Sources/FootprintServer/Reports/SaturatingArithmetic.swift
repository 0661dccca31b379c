/// Sums that hold at the type's bounds instead of trapping: every sum the rollups and reports
/// keep goes through these, so that no stored value (even one past `Int64.max`, written by an
/// older version) can crash a report.
extension FixedWidthInteger {
    /// `self + other`, or `.max` / `.min` where that would overflow.
    func saturatingAdd(_ other: Self) -> Self {
        let (sum, overflows) = addingReportingOverflow(other)
        guard overflows else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self - other`, or `.max` / `.min` where that would overflow.
    func saturatingSubtract(_ other: Self) -> Self {
        let (difference, overflows) = subtractingReportingOverflow(other)
        guard overflows else { return difference }
        return other < 0 ? .max : .min
    }

    /// `self * other`, or `.max` / `.min` where that would overflow.
    func saturatingMultiply(_ other: Self) -> Self {
        let (product, overflows) = multipliedReportingOverflow(by: other)
        guard overflows else { return product }
        return (self < 0) == (other < 0) ? .max : .min
    }

    /// Adds `other`, holding at `.max` / `.min`.
    mutating func addSaturating(_ other: Self) {
        self = saturatingAdd(other)
    }
}

extension Sequence where Element: FixedWidthInteger {
    /// The sum of the elements, holding at `.max` / `.min`.
    func saturatingSum() -> Element {
        reduce(0) { $0.saturatingAdd($1) }
    }
}

extension Int {
    /// `value` rounded to the nearest integer and held within `Int`'s range; NaN is 0.
    init(saturating value: Double) {
        let rounded = value.rounded()
        if rounded.isNaN {
            self = 0
        } else if rounded >= 0x1p63 {
            self = .max
        } else if rounded < -0x1p63 {
            self = .min
        } else {
            self = Int(rounded)
        }
    }
}
