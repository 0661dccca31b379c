import Foundation

// Benchmarks: `make bench` runs them all in a release build; `make bench BENCH="queue"` picks
// suites by name. Each suite prints a table; docs/BENCHMARKS.md records the numbers.

if CommandLine.arguments.dropFirst().first == "loadgen" {
    LoadGenerator.main(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}

let suites: [BenchmarkSuite] = [
    wireSuite,
    sdkSuite,
    captureSuite,
    exposureSuite,
    listSizeSuite,
    adapterSuite,
    serverSuite,
    ingestDecodeSuite,
    reportSuite,
    privacySuite,
    clickHouseSuite,
    clickHouse100MSuite,
]

// `clickhouse` and `clickhouse-100m` need the cluster make bench BENCH=clickhouse starts: only when
// named.
let wanted = Set(CommandLine.arguments.dropFirst())
let onlyWhenNamed = [clickHouseSuite.name, clickHouse100MSuite.name]
for suite in suites where wanted.isEmpty ? !onlyWhenNamed.contains(suite.name) : wanted.contains(suite.name) {
    do {
        printTable(suite.name, try suite.run())
    } catch {
        print("\n## \(suite.name)\n\nfailed: \(error)")
    }
}
