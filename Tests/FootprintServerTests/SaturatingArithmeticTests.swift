import FootprintWire
import Testing

@testable import FootprintServer

/// The sums rollups and reports keep hold at the ends of `Int64` instead of trapping.
struct SaturatingArithmeticTests {
    @Test func sumsHoldAtTheEndsOfInt64() {
        #expect(Int64.max.saturatingAdd(1) == .max)
        #expect(Int64.min.saturatingAdd(-1) == .min)
        #expect(Int64.max.saturatingAdd(.min) == -1)
        #expect(Int64.min.saturatingSubtract(1) == .min)
        #expect(Int64.max.saturatingSubtract(-1) == .max)
        #expect(Int64(-1).saturatingMultiply(.max) == -Int64.max)
        #expect(Int64(-1).saturatingMultiply(.min) == .max)
        #expect(Int64(2).saturatingMultiply(.min) == .min)
        #expect([Int64.max, .max, -5].saturatingSum() == .max - 5)
        #expect([Int.max, 1].saturatingSum() == .max)
    }

    @Test(arguments: [
        (Double.nan, 0), (.infinity, Int.max), (-.infinity, Int.min), (0x1p63, Int.max), (-0x1p63, Int.min),
        (9.2e18, 9_200_000_000_000_000_000), (-0.0, 0), (2.5, 3), (-2.5, -3),
    ])
    func doublesBecomeIntsWithinRange(_ value: Double, _ expected: Int) {
        #expect(Int(saturating: value) == expected)
    }

    @Test func aDwellHistogramOfExtremeBinsHasDefinedFigures() {
        var histogram = DwellHistogram()
        histogram.add(bucket: 1000, count: .max, total: .max)
        histogram.add(bucket: 1000, count: .max, total: .max)
        histogram.add(bucket: 1001, count: 1, total: .max)
        histogram.add(bucket: 5, count: -3, total: -15)
        #expect(histogram.count == Int.max)
        #expect(histogram.average == 1)
        #expect(histogram.median == 1)
        var one = DwellHistogram()
        one.add(.max)
        one.add(.max)
        #expect(one.count == 2)
        #expect(one.average == Int(Int64.max / 2) + 1)
        #expect(one.median == Int(Int64.max / 2) + 1)
    }

    @Test func chartAxesReachInt64Max() {
        #expect(SVGChart.niceCeiling(Int.max) == Int.max)
        #expect(SVGChart.niceCeiling(9_000_000_000_000_000_000) == Int.max)
        #expect(SVGChart.niceCeiling(5) == 8)
        let chart = SVGChart.lines(
            [SVGChart.Series(name: "views", values: [0, .max, 3])], labels: ["a", "b", "c"],
            title: "t")
        #expect(chart.contains(Int.max.grouped))
        #expect(HTML.percent(Double(Int.max)).hasSuffix("%"))
    }
}
