import FootprintServer
import FootprintWire
import Foundation

/// Ingest over loopback HTTP (load from a separate process) against the ceiling: the same rows
/// inserted by one process straight into the same SQLite store with the same schema, indexes
/// and durability (`synchronous=FULL`, WAL). The machine is shared, so the two are measured in
/// alternating rounds and the best round of each counts.
let serverSuite = BenchmarkSuite(name: "server") {
    let directory =
        NSTemporaryDirectory() + "footprint-bench-\(UUIDv7.make(at: Timestamp(millisecondsSince1970: 0)))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }

    let transactionSizes = [100, 1000, 5000]
    var bestDirect: [Int: Double] = [:]
    var best: [LoadShape: IngestRun] = [:]
    for round in 0..<3 {
        for size in transactionSizes {
            let rate = try directInsertRate(
                path: directory + "/direct-\(round)-\(size).sqlite", rowsPerTransaction: size)
            bestDirect[size] = max(bestDirect[size] ?? 0, rate)
        }
        for (index, shape) in LoadShape.all.enumerated() {
            let run = try httpIngestRun(path: directory + "/http-\(round)-\(index).sqlite", shape: shape)
            if run.rate > best[shape]?.rate ?? 0 { best[shape] = run }
        }
    }
    let ceiling = bestDirect.values.max() ?? 1
    guard let reference = best[.reference] else { return [] }

    var rows = transactionSizes.map { size in
        BenchmarkRow(
            metric: "direct SQLite, \(size) rows/transaction", value: Measure.rate(bestDirect[size] ?? 0),
            note: "50,000 rows, best of 3")
    }
    rows.append(BenchmarkRow(metric: "ceiling (best direct rate)", value: Measure.rate(ceiling)))
    for shape in LoadShape.all {
        guard let run = best[shape] else { continue }
        rows += [
            BenchmarkRow(
                metric: "HTTP ingest, \(shape.label)", value: Measure.rate(run.rate),
                note:
                    "\(Measure.grouped(run.events)) events, \(Measure.grouped(run.stored)) stored, \(run.failures) failed requests; best of 3"
            ),
            BenchmarkRow(
                metric: "  latency p50 / p99",
                value: "\(Measure.duration(run.p50)) / \(Measure.duration(run.p99))"),
            BenchmarkRow(
                metric: "  server RSS, threads",
                value:
                    "+\(Measure.grouped(run.residentGrowthKilobytes / 1024)) MB (\(Measure.grouped(run.residentKilobytes / 1024)) MB), \(run.threads)",
                note:
                    "growth since the server started (the benchmark process's total), sampled when the batches are done with \(Measure.grouped(run.connectionsOpen)) idle connections still open"
            ),
        ]
    }
    rows += [
        BenchmarkRow(
            metric: "CPU per 1,000 events (\(LoadShape.reference.active) connections)",
            value: "\(Measure.fixed(reference.serverCPU / Double(reference.events) * 1e6, 1)) ms",
            note:
                "server process; load generator \(Measure.fixed(reference.loadCPU / Double(reference.events) * 1e6, 1)) ms (incl. building its bodies)"
        ),
        BenchmarkRow(
            metric: "HTTP ingest / ceiling", value: "\(Measure.fixed(reference.rate / ceiling * 100, 1)) %",
            note: "\(LoadShape.reference.active) connections; target ≥ 60 %"),
    ]
    if let crowded = best[.crowded] {
        rows.append(
            BenchmarkRow(
                metric: "10,000 open / 8 connections",
                value: "\(Measure.fixed(crowded.rate / reference.rate * 100, 1)) %", note: "target ≥ 90 %"))
    }
    return rows
}

/// How many connections the load generator opens and how many of them send batches of 100 (in
/// turn, each waiting for its answer); the others stay open and idle.
private struct LoadShape: Hashable {
    var open: Int
    var active: Int

    /// Eight keep the two-core machine busy without trading throughput for thread switches.
    static let reference = LoadShape(open: 8, active: 8)
    static let crowded = LoadShape(open: 10_000, active: 8)
    static let all = [LoadShape(open: 1, active: 1), reference, LoadShape(open: 100, active: 100), crowded]

    /// About 64,000 events per run, whatever the shape.
    var batchesPerConnection: Int { max(1, 640 / active) }

    var label: String {
        open == active
            ? "\(Measure.grouped(open)) connection\(open == 1 ? "" : "s")"
            : "\(Measure.grouped(open)) open, \(active) sending"
    }
}

/// One HTTP ingest measurement.
private struct IngestRun {
    var rate: Double
    var events: Int
    var stored: Int
    var failures: Int
    var p50: Double
    var p99: Double
    var serverCPU: Double
    var loadCPU: Double
    var residentKilobytes: Int
    var residentGrowthKilobytes: Int
    var threads: Int
    var connectionsOpen: Int
}

/// Rows per second written by one process straight through the store's writer, `rowsPerTransaction`
/// rows per commit.
private func directInsertRate(path: String, rowsPerTransaction: Int) throws -> Double {
    let store = try SQLiteEventStore(path: path)
    defer { store.close() }
    let project = try store.createProject(named: "bench")
    let total = 50_000
    let received = Timestamp(millisecondsSince1970: 1_795_981_800_000)
    var generator = SystemRandomNumberGenerator()
    let batches = (0..<(total / rowsPerTransaction)).map { batch in
        IngestBatch(
            projectId: project.id,
            events: (0..<rowsPerTransaction).map { index in
                let message = LoadGenerator.sampleMessage(
                    messageId: UUIDv7.make(at: received, using: &generator), visitor: "device-\(batch % 50)",
                    index: index, time: received)
                return EventRecord(message: message, time: received, receivedAt: received)
            }, receivedAt: received)
    }
    let seconds = try Measure.seconds {
        for batch in batches { _ = try store.write(batch) }
    }
    return Double(total) / seconds
}

/// Starts a server and drives it from a load generator process.
private func httpIngestRun(path: String, shape: LoadShape) throws -> IngestRun {
    var configuration = AnalyticsServer.Configuration(databasePath: path)
    configuration.http.port = 0
    configuration.http.connectionLimit = max(configuration.http.connectionLimit, shape.open + 100)
    // The idle connections must stay open for the whole run, however long the busy machine makes it.
    configuration.http.idleTimeoutSeconds = 600
    configuration.http.headerDeadlineSeconds = 600
    let residentBefore = processStatus("VmRSS")
    let server = try AnalyticsServer(configuration: configuration)
    defer { server.stop() }
    let serverCPUBefore = cpuSeconds(RUSAGE_SELF.rawValue)
    let loadCPUBefore = cpuSeconds(RUSAGE_CHILDREN.rawValue)
    // Read while the load generator still holds every connection open.
    let (summary, held) = try LoadGenerator.drive(
        port: server.port, writeKey: server.defaultProject!.writeKey, connections: shape.active,
        batchesPerConnection: shape.batchesPerConnection, idle: shape.open - shape.active
    ) {
        (
            resident: processStatus("VmRSS"), threads: processStatus("Threads"),
            open: server.http.connectionsOpen
        )
    }
    let serverCPU = cpuSeconds(RUSAGE_SELF.rawValue) - serverCPUBefore
    let loadCPU = cpuSeconds(RUSAGE_CHILDREN.rawValue) - loadCPUBefore
    return IngestRun(
        rate: summary.rate, events: summary.events,
        stored: try server.stores.events.eventCount(projectId: server.defaultProject!.id),
        failures: summary.failures, p50: summary.p50, p99: summary.p99, serverCPU: serverCPU,
        loadCPU: loadCPU,
        residentKilobytes: held.resident, residentGrowthKilobytes: held.resident - residentBefore,
        threads: held.threads, connectionsOpen: held.open)
}

/// A number from this process's `/proc/self/status` (`VmRSS` in kB, `Threads`); -1 elsewhere.
private func processStatus(_ field: String) -> Int {
    let text = String(
        decoding: FileHandle(forReadingAtPath: "/proc/self/status")?.readDataToEndOfFile() ?? Data(),
        as: UTF8.self)
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
        let words = line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
        return Int(words.first ?? "") ?? -1
    }
    return -1
}

/// User + system CPU seconds of this process (`RUSAGE_SELF`) or its finished children.
private func cpuSeconds(_ who: Int32) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(who), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
