import FootprintServer
import FootprintWire
import Foundation

/// Ingest over loopback HTTP (load from a separate process) against the ceiling: the same rows
/// inserted by one process straight into the same SQLite store with the same schema, indexes
/// and durability (`synchronous=FULL`, WAL).
let serverSuite = BenchmarkSuite(name: "server") {
    let directory =
        NSTemporaryDirectory() + "footprint-bench-\(UUIDv7.make(at: Timestamp(millisecondsSince1970: 0)))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var rows: [BenchmarkRow] = []

    // The ceiling: rows straight into SQLite, one transaction per N rows; the best N counts.
    var ceiling = 0.0
    let received = Timestamp(millisecondsSince1970: 1_795_981_800_000)
    for rowsPerTransaction in [100, 1000, 5000] {
        let store = try SQLiteEventStore(path: directory + "/ceiling-\(rowsPerTransaction).sqlite")
        let project = try store.createProject(named: "bench")
        let total = 50_000
        var generator = SystemRandomNumberGenerator()
        let batches = (0..<(total / rowsPerTransaction)).map { batch in
            IngestBatch(
                projectId: project.id,
                events: (0..<rowsPerTransaction).map { index in
                    let message = LoadGenerator.sampleMessage(
                        messageId: UUIDv7.make(at: received, using: &generator),
                        visitor: "device-\(batch % 50)",
                        index: index, time: received)
                    return EventRecord(message: message, time: received, receivedAt: received)
                }, receivedAt: received)
        }
        let seconds = try Measure.seconds {
            for batch in batches { _ = try store.write(batch) }
        }
        store.close()
        let rate = Double(total) / seconds
        ceiling = max(ceiling, rate)
        rows.append(
            BenchmarkRow(
                metric: "direct SQLite, \(rowsPerTransaction) rows/transaction", value: Measure.rate(rate),
                note: "\(total) rows"))
    }
    rows.append(BenchmarkRow(metric: "ceiling (best direct rate)", value: Measure.rate(ceiling)))

    // Ingest over HTTP from the load generator process.
    var configuration = AnalyticsServer.Configuration(databasePath: directory + "/http.sqlite")
    configuration.http.port = 0
    let server = try AnalyticsServer(configuration: configuration)
    defer { server.stop() }
    let connections = 16
    let batchesPerConnection = 40
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = [
        "loadgen", String(server.port), server.defaultProject!.writeKey, String(connections),
        String(batchesPerConnection),
    ]
    let output = Pipe()
    process.standardOutput = output
    let serverCPUBefore = cpuSeconds(RUSAGE_SELF.rawValue)
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let serverCPU = cpuSeconds(RUSAGE_SELF.rawValue) - serverCPUBefore
    let loadCPU = cpuSeconds(RUSAGE_CHILDREN.rawValue)
    let summary = try JSONParser().parse(Array(data))
    let events = Double(summary["events"]?.int64Value ?? 0)
    let seconds = summary["seconds"]?.doubleValue ?? 1
    let rate = events / seconds
    let stored = try server.store.eventCount(projectId: server.defaultProject!.id)
    rows.append(
        BenchmarkRow(
            metric: "HTTP ingest, batches of 100", value: Measure.rate(rate),
            note:
                "\(connections) connections, \(Int(events)) events, \(stored) stored, \(summary["failures"]?.int64Value ?? -1) failed requests"
        ))
    rows.append(
        BenchmarkRow(metric: "request latency p50", value: Measure.duration(summary["p50"]?.doubleValue ?? 0))
    )
    rows.append(
        BenchmarkRow(metric: "request latency p99", value: Measure.duration(summary["p99"]?.doubleValue ?? 0))
    )
    rows.append(
        BenchmarkRow(
            metric: "CPU per 1,000 events", value: "\(Measure.fixed(serverCPU / events * 1e6, 1)) ms",
            note: "server process; load generator: \(Measure.fixed(loadCPU / events * 1e6, 1)) ms"))
    rows.append(
        BenchmarkRow(
            metric: "HTTP ingest / ceiling", value: "\(Measure.fixed(rate / ceiling * 100, 1)) %",
            note: "target ≥ 50 %"))
    return rows
}

/// User + system CPU seconds of this process (`RUSAGE_SELF`) or its finished children.
private func cpuSeconds(_ who: Int32) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(who), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
