// Benchmarks: `make bench` runs them all in a release build; `make bench BENCH="queue"` picks
// suites by name. Each suite prints a table; docs/BENCHMARKS.md records the numbers.

let suites: [BenchmarkSuite] = [
    wireSuite,
    sdkSuite,
    captureSuite,
    exposureSuite,
    adapterSuite,
]

let wanted = Set(CommandLine.arguments.dropFirst())
for suite in suites where wanted.isEmpty || wanted.contains(suite.name) {
    do {
        printTable(suite.name, try suite.run())
    } catch {
        print("\n## \(suite.name)\n\nfailed: \(error)")
    }
}
