import Dispatch
import Footprint
import FootprintWire

/// One benchmark suite: a name and a function that measures and returns rows for the table.
struct BenchmarkSuite: Sendable {
    /// Short name, used to pick suites on the command line (`make bench BENCH=queue`).
    var name: String
    /// Runs the measurements.
    var run: @Sendable () throws -> [BenchmarkRow]
}

/// One line of the printed table.
struct BenchmarkRow {
    var metric: String
    var value: String
    var note: String = ""
}

/// Timing helpers shared by all suites.
enum Measure {
    /// Nanoseconds on the monotonic clock.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Runs `body` `iterations` times (after `warmup` untimed runs) and returns each run's
    /// duration in nanoseconds, sorted.
    static func samples(iterations: Int, warmup: Int = 100, _ body: () -> Void) -> [Double] {
        for _ in 0..<warmup { body() }
        var result: [Double] = []
        result.reserveCapacity(iterations)
        for _ in 0..<iterations {
            let start = now()
            body()
            result.append(Double(now() - start))
        }
        return result.sorted()
    }

    /// The `q` quantile (0...1) of sorted samples.
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q))]
    }

    /// Seconds taken by `body`.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = now()
        try body()
        return Double(now() - start) / 1e9
    }

    /// Nanoseconds written for people: `850 ns`, `12.3 µs`, `4.5 ms`.
    static func duration(_ nanoseconds: Double) -> String {
        if nanoseconds < 1000 { return "\(Int(nanoseconds.rounded())) ns" }
        if nanoseconds < 1e6 { return "\(fixed(nanoseconds / 1e3, 2)) µs" }
        if nanoseconds < 1e9 { return "\(fixed(nanoseconds / 1e6, 2)) ms" }
        return "\(fixed(nanoseconds / 1e9, 2)) s"
    }

    /// A rate written for people: `123,456 /s`.
    static func rate(_ perSecond: Double) -> String { "\(grouped(Int(perSecond.rounded()))) /s" }

    /// `value` with `digits` decimals.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        let whole = scaled / Int(scale)
        let fraction = String(abs(scaled) % Int(scale))
        return digits == 0
            ? "\(whole)" : "\(whole).\(String(repeating: "0", count: digits - fraction.count))\(fraction)"
    }

    /// An integer with thousands separators.
    static func grouped(_ value: Int) -> String { value.grouped }
}

/// Prints a suite's rows as an aligned table.
func printTable(_ suite: String, _ rows: [BenchmarkRow]) {
    let metricWidth = max(6, rows.map(\.metric.count).max() ?? 0)
    let valueWidth = max(5, rows.map(\.value.count).max() ?? 0)
    func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
    print("\n## \(suite)\n")
    print("| \(pad("metric", metricWidth)) | \(pad("value", valueWidth)) | note")
    print(
        "|-\(String(repeating: "-", count: metricWidth))-|-\(String(repeating: "-", count: valueWidth))-|-----"
    )
    for row in rows {
        print("| \(pad(row.metric, metricWidth)) | \(pad(row.value, valueWidth)) | \(row.note)")
    }
}

/// A capture sink that only counts (single-threaded benchmarks).
final class CountingSink: CaptureSink, @unchecked Sendable {
    var count = 0
    func record(_ event: CapturedEvent) { count += 1 }
}
