import FootprintServer
import FootprintWire
import Foundation

/// Each report's latency over a store of synthetic traffic (`footprint generate`'s generator),
/// at 1M events by default; `FOOTPRINT_REPORT_EVENTS=10000000` for 10M. The database is kept
/// in the temporary directory between runs (`footprint-report-bench-N.sqlite`), since filling it
/// takes longer than the measurements.
let reportSuite = BenchmarkSuite(name: "reports") {
    let count = Int(ProcessInfo.processInfo.environment["FOOTPRINT_REPORT_EVENTS"] ?? "") ?? 1_000_000
    let path = NSTemporaryDirectory() + "footprint-report-bench-\(count).sqlite"
    var configuration = SQLiteEventStore.Configuration()
    configuration.synchronous = "NORMAL"
    var fillSeconds: Double?
    if !FileManager.default.fileExists(atPath: path) {
        let store = try SQLiteEventStore(path: path, configuration: configuration)
        let project = try store.createProject(named: "bench")
        var traffic = SyntheticTraffic()
        fillSeconds = try Measure.seconds {
            try traffic.write(count: count, into: store, projectId: project.id)
        }
        store.close()
    }
    let store = try SQLiteEventStore(path: path, configuration: configuration)
    defer { store.close() }
    let service = ReportService(store: store)
    let project = try service.project(named: nil)
    let stored = try store.eventCount(projectId: project.id)
    let end = SyntheticTraffic.Configuration().end
    let month = try ReportParameters(
        query: [:], now: end.adding(milliseconds: -1))
    let week = try ReportParameters(
        query: ["from": end.adding(milliseconds: -7 * 86_400_000).dayString],
        now: end.adding(milliseconds: -1))
    let funnel = try ReportParameters(
        query: ["step1": "page:Home", "step2": "page:ProductList", "step3": "event:$element_click"],
        now: end.adding(milliseconds: -1))

    /// The best of 3 runs, or why the store refused (a range over its event limit).
    func time(_ body: () throws -> Void) throws -> String {
        var best = Double.infinity
        do {
            for _ in 0..<3 { best = min(best, try Measure.seconds(body)) }
        } catch let error as ServerError where error.code == .invalidQuery {
            return "refused"
        }
        return Measure.duration(best * 1e9)
    }
    var rows: [BenchmarkRow] = []
    if let fillSeconds {
        rows.append(
            BenchmarkRow(
                metric: "fill (generator, group commit)", value: Measure.rate(Double(stored) / fillSeconds),
                note: "\(Measure.grouped(stored)) events"))
    }
    let note = "\(Measure.grouped(stored)) events stored, best of 3"
    rows.append(
        BenchmarkRow(
            metric: "overview: daily traffic from rollups, 30 days",
            value: try time {
                _ = try service.traffic(
                    project: project, parameters: month, dwell: false, pageVisitors: false)
            }, note: note))
    rows.append(
        BenchmarkRow(
            metric: "traffic with page visitors from rollups, 30 days",
            value: try time { _ = try service.traffic(project: project, parameters: month, dwell: false) },
            note: note))
    rows.append(
        BenchmarkRow(
            metric: "overview: top events from rollups, 30 days",
            value: try time { _ = try service.eventCounts(project: project, parameters: month, limit: 20) },
            note: note))
    rows.append(
        BenchmarkRow(
            metric: "traffic API: rollups + dwell from visits, 30 days",
            value: try time { _ = try service.traffic(project: project, parameters: month) }, note: note))
    rows.append(
        BenchmarkRow(
            metric: "read events, 30 days",
            value: try time { _ = try service.engine(project: project, parameters: month) },
            note: note))
    rows.append(
        BenchmarkRow(
            metric: "traffic from events (PV/UV/DAU/WAU/MAU, dwell), 30 days",
            value: try time {
                _ = try service.engine(project: project, parameters: month).traffic(days: month.filter)
            },
            note: note))
    rows.append(
        BenchmarkRow(
            metric: "traffic from events, 7 days",
            value: try time {
                _ = try service.engine(project: project, parameters: week).traffic(days: week.filter)
            },
            note: note))
    // Engine-only rows over the last 7 days when 30 days hold more events than a report reads.
    let engine: ReportEngine
    if let wholeMonth = try? service.engine(project: project, parameters: month) {
        engine = wholeMonth
    } else {
        engine = try service.engine(project: project, parameters: week)
    }
    let engineNote = "\(note), \(Measure.grouped(engine.events.count)) events in range"
    let computed: [(String, () -> Void)] = [
        ("top events (engine only)", { _ = engine.topEvents() }),
        ("elements by similar path (engine only)", { _ = engine.elements(grouping: .similar) }),
        ("items (engine only)", { _ = engine.items() }),
        ("sessions (engine only)", { _ = engine.sessions() }),
        ("paths after Home (engine only)", { _ = engine.paths(after: "Home") }),
        ("retention, 7 days (engine only)", { _ = engine.retention(days: 7) }),
    ]
    for (name, body) in computed {
        rows.append(BenchmarkRow(metric: name, value: try time(body), note: engineNote))
    }
    rows.append(
        BenchmarkRow(
            metric: "funnel, 3 steps, 30 days",
            value: try time { _ = try service.funnel(project: project, parameters: funnel) }, note: note))
    // `footprint report`: rollups, dwell from page visits, one engine read (each event's people,
    // elements, items) and the range's clicks for the plan-named events.
    rows.append(
        BenchmarkRow(
            metric: "overview Report (footprint report), 30 days",
            value: try time { _ = try service.overview(project: project, parameters: month) }, note: note))
    return rows
}
