import FootprintServer
import FootprintSynthetic
import FootprintWire
import Foundation

/// Deleting a person and applying retention over a store of 1M synthetic events
/// (`FOOTPRINT_PRIVACY_EVENTS` for another size; the filled database is kept in the temporary
/// directory and copied for each run), while a writer thread keeps storing batches of 50 events:
/// the time each takes, how long the deletion held the writer, and the commit latency the
/// batches saw before and during each (what an ingest request waits for).
let privacySuite = BenchmarkSuite(name: "privacy") {
    let environment = ProcessInfo.processInfo.environment
    let count = Int(environment["FOOTPRINT_PRIVACY_EVENTS"] ?? "") ?? 1_000_000
    let source = NSTemporaryDirectory() + "footprint-privacy-bench-\(count).sqlite"
    var configuration = SQLiteEventStore.Configuration()
    configuration.synchronous = "NORMAL"
    var rows: [BenchmarkRow] = []
    if !FileManager.default.fileExists(atPath: source) {
        let store = try SQLiteEventStore(path: source, configuration: configuration)
        let project = try store.createProject(named: "bench")
        var traffic = SyntheticTraffic()
        let seconds = try Measure.seconds {
            try traffic.write(count: count, into: store, projectId: project.id)
        }
        store.close()
        rows.append(
            BenchmarkRow(metric: "fill \(count.grouped) events", value: "\(Measure.fixed(seconds, 1)) s"))
    }
    let path = NSTemporaryDirectory() + "footprint-privacy-bench-run.sqlite"
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    try FileManager.default.copyItem(atPath: source, toPath: path)
    defer {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    let store = try SQLiteEventStore(path: path, configuration: configuration)
    defer { store.close() }
    let project = try require(try store.projects().first)
    let end = SyntheticTraffic.Configuration().end
    rows.append(
        BenchmarkRow(metric: "events stored", value: (try store.eventCount(projectId: project.id)).grouped))

    /// Commit latencies of 50-event batches written one after another while `body` runs.
    func ingestLatencies(during body: () throws -> Void) throws -> [Double] {
        let stop = LockedFlag()
        let latencies = LockedSamples()
        let writer = Thread {
            var generator = SyntheticTraffic.Configuration()
            generator.seed = UInt64(Measure.now())
            var traffic = SyntheticTraffic(configuration: generator)
            while !stop.isSet {
                var events: [EventRecord] = []
                while events.count < 50 { events += traffic.session().events }
                let start = Measure.now()
                _ = try? store.write(IngestBatch(projectId: project.id, events: events, receivedAt: end))
                latencies.append(Double(Measure.now() - start))
            }
        }
        writer.start()
        Thread.sleep(forTimeInterval: 0.2)
        try body()
        stop.set()
        while !writer.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        return latencies.sorted
    }
    func latencyRows(_ label: String, _ samples: [Double]) -> [BenchmarkRow] {
        [
            BenchmarkRow(
                metric: "ingest commit p50 / p99 / max, \(label)",
                value:
                    "\(Measure.duration(Measure.quantile(samples, 0.5))) / \(Measure.duration(Measure.quantile(samples, 0.99))) / \(Measure.duration(samples.last ?? 0))",
                note: "\(samples.count) batches of 50")
        ]
    }

    rows += latencyRows("idle", try ingestLatencies { Thread.sleep(forTimeInterval: 2) })

    // The person with the most linked devices: a user id with several anonymous ids.
    let links = try store.identityLinks(projectId: project.id)
    var devices: [String: Int] = [:]
    for user in links.values { devices[user, default: 0] += 1 }
    let person = try require(devices.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key)
    var deletion: PersonDeletion?
    var deleteSeconds = 0.0
    let duringDelete = try ingestLatencies {
        deleteSeconds = try Measure.seconds {
            deletion = try store.deletePerson(
                id: person, projectId: project.id,
                request: PersonDeletion.Request(requestedBy: "bench", at: end))
        }
    }
    rows.append(
        BenchmarkRow(
            metric: "delete a person", value: "\(Measure.fixed(deleteSeconds * 1000, 1)) ms",
            note:
                "\(deletion?.events ?? 0) events, \(deletion?.identityLinks ?? 0) links; writer held \(deletion?.writerMilliseconds ?? 0) ms"
        ))
    rows += latencyRows("during the deletion", duringDelete)

    var deleted = 0
    var retentionSeconds = 0.0
    let duringRetention = try ingestLatencies {
        retentionSeconds = try Measure.seconds {
            deleted = try store.applyRetention(defaultDays: 15, now: end).values.reduce(0, +)
        }
    }
    rows.append(
        BenchmarkRow(
            metric: "retention: keep 15 of 30 days", value: "\(Measure.fixed(retentionSeconds, 2)) s",
            note: "\(deleted.grouped) events deleted in chunks of 1,000"))
    rows += latencyRows("during retention", duringRetention)
    return rows
}

/// A flag one thread sets and another reads.
private final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// Samples appended by one thread and read by another.
private final class LockedSamples: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Double] = []
    func append(_ value: Double) { lock.withLock { values.append(value) } }
    var sorted: [Double] { lock.withLock { values.sorted() } }
}

/// `#require` for benchmarks: the value, or an error naming what was missing.
private func require<T>(_ value: T?, _ what: String = "a value") throws -> T {
    guard let value else { throw CocoaError(.featureUnsupported) }
    return value
}
