import Dispatch
import Footprint
import FootprintLoopback
import Foundation

/// The SDK core: caller-thread cost of `track`, persistence throughput, commit latency (the loss
/// window), upload throughput to a loopback receiver, and memory with a large backlog.
let sdkSuite = BenchmarkSuite(name: "sdk") {
    let properties: JSONObject = [
        "sku": "SKU-1234", "price": 19.99, "quantity": 2, "category": "shoes", "onSale": true,
    ]
    var rows: [BenchmarkRow] = []

    // Memory as the backlog grows.
    do {
        let folder = try BenchmarkFolder()
        let tracker = Tracker(configuration: benchmarkConfiguration(folder.path))
        var readings: [String] = []
        let checkpoints: Set<Int> = [100_000, 250_000, 500_000, 1_000_000]
        var queued = 0
        while queued < 1_000_000 {
            for _ in 0..<10_000 { tracker.track("Product Viewed", properties: properties) }
            queued += 10_000
            tracker.waitUntilStored(timeoutSeconds: 120)
            if checkpoints.contains(queued) {
                readings.append("\(queued / 1000)k: \(Int(residentMegabytes().current)) MB")
            }
        }
        rows.append(
            BenchmarkRow(
                metric: "RSS with 1,000,000 events queued (peak)",
                value: "\(Int(residentMegabytes().peak)) MB",
                note: "current at " + readings.joined(separator: ", ")))
    }
    // Caller-thread cost, and sustained persistence.
    do {
        let folder = try BenchmarkFolder()
        let tracker = Tracker(configuration: benchmarkConfiguration(folder.path))
        tracker.waitUntilStored(timeoutSeconds: 30)
        let calls = Measure.samples(iterations: 200_000, warmup: 1000) {
            tracker.track("Product Viewed", properties: properties)
        }
        tracker.waitUntilStored(timeoutSeconds: 120)
        rows.append(
            BenchmarkRow(
                metric: "track, 5 properties: caller thread (median)",
                value: Measure.duration(Measure.quantile(calls, 0.5)), note: "200,000 calls"))
        rows.append(
            BenchmarkRow(
                metric: "track, 5 properties: caller thread (p99)",
                value: Measure.duration(Measure.quantile(calls, 0.99))))

        let count = 300_000
        let seconds = Measure.seconds {
            for _ in 0..<count { tracker.track("Product Viewed", properties: properties) }
            tracker.waitUntilStored(timeoutSeconds: 120)
        }
        rows.append(
            BenchmarkRow(
                metric: "track → durable queue, sustained", value: Measure.rate(Double(count) / seconds),
                note: "\(Measure.grouped(count)) events, committed in SQLite (WAL)"))

        let latencies = Measure.samples(iterations: 2000, warmup: 50) {
            tracker.track("Product Viewed", properties: properties)
            tracker.waitUntilStored(timeoutSeconds: 10)
        }
        rows.append(
            BenchmarkRow(
                metric: "track → committed, idle (median / p99)",
                value:
                    "\(Measure.duration(Measure.quantile(latencies, 0.5))) / \(Measure.duration(Measure.quantile(latencies, 0.99)))",
                note: "the SIGKILL loss window"))
    }

    // Upload throughput.
    do {
        let folder = try BenchmarkFolder()
        let receiver = try LoopbackReceiver(lifetimeSeconds: 300) { _ in HTTPResponse(status: 200) }
        var configuration = benchmarkConfiguration(folder.path)
        configuration.serverURL = receiver.url
        let tracker = Tracker(configuration: configuration)
        let count = 50_000
        for _ in 0..<count { tracker.track("Product Viewed", properties: properties) }
        tracker.waitUntilStored(timeoutSeconds: 120)
        let done = DispatchSemaphore(value: 0)
        let seconds = Measure.seconds {
            tracker.flush { done.signal() }
            done.wait()
        }
        let delivered = receiver.requests.reduce(0) { $0 + $1.batch.count }
        receiver.stop()
        rows.append(
            BenchmarkRow(
                metric: "uploader → loopback receiver", value: Measure.rate(Double(delivered) / seconds),
                note: "\(Measure.grouped(delivered)) events, gzip, 100 per request, one in flight"))
    }

    return rows
}

/// A tracker configuration for benchmarks: no automatic uploads, room for millions of events.
func benchmarkConfiguration(_ folder: String) -> Tracker.Configuration {
    var configuration = Tracker.Configuration(writeKey: "bench", serverURL: "http://127.0.0.1:1")
    configuration.remoteConfigRefreshSeconds = nil
    configuration.storageDirectory = folder
    configuration.flushAt = Int.max
    configuration.flushIntervalSeconds = 86_400
    configuration.maximumQueuedEvents = 10_000_000
    configuration.maximumQueuedBytes = 1 << 40
    configuration.maximumPendingEvents = 1_000_000
    configuration.log = { _ in }
    return configuration
}

/// A temporary folder removed when released.
final class BenchmarkFolder {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "footprint-bench-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Resident memory of this process (`VmRSS`) and its peak (`VmHWM`), in MB.
func residentMegabytes() -> (current: Double, peak: Double) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
        return (0, 0)
    }
    func field(_ name: String) -> Double {
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let digits = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return digits / 1024
        }
        return 0
    }
    return (field("VmRSS:"), field("VmHWM:"))
}
