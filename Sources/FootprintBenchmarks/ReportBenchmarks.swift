import FootprintSQLite
import FootprintServer
import FootprintSynthetic
import FootprintWire
import Foundation

/// Each report's latency over a store of synthetic traffic (`footprint generate`'s generator),
/// at 1M events by default; `FOOTPRINT_REPORT_EVENTS=10000000` for 10M, and
/// `FOOTPRINT_REPORT_PEOPLE` for other than the generator's 20,000 people. The database is kept
/// in the temporary directory between runs (`footprint-report-bench-N[-pP].sqlite`), since
/// filling it takes longer than the measurements. `FOOTPRINT_REPORT_ONLY` keeps the reports whose
/// name contains it.
///
/// With `FOOTPRINT_BENCH_COPIES=C` (2…100) the reports read C copies of those events instead,
/// made as `make bench BENCH=clickhouse-100m` makes them in ClickHouse, so both stores answer
/// over the same events (``ReportWorkload/copiedDatabase(of:copies:)``).
let reportSuite = BenchmarkSuite(name: "reports") {
    let environment = ProcessInfo.processInfo.environment
    let count = Int(environment["FOOTPRINT_REPORT_EVENTS"] ?? "") ?? 1_000_000
    let people = Int(environment["FOOTPRINT_REPORT_PEOPLE"] ?? "")
    let only = environment["FOOTPRINT_REPORT_ONLY"]
    let copies = Int(environment["FOOTPRINT_BENCH_COPIES"] ?? "").map { min(100, max(1, $0)) } ?? 1
    var (path, fillSeconds) = try ReportWorkload.filledDatabase(count: count, people: people)
    var copySeconds: Double?
    if copies > 1 {
        (path, copySeconds) = try ReportWorkload.copiedDatabase(of: path, copies: copies)
        fillSeconds = nil
    }
    var configuration = SQLiteEventStore.Configuration()
    configuration.synchronous = "NORMAL"
    // Opening a copied file rebuilds its rollups.
    let opened = Date()
    let store = try SQLiteEventStore(path: path, configuration: configuration)
    let rebuildSeconds = Date().timeIntervalSince(opened)
    defer { store.close() }
    let project = try ReportService(stores: Stores(store)).project(named: nil)
    let stored = try store.eventCount(projectId: project.id)
    var rows: [BenchmarkRow] = []
    if let fillSeconds {
        rows.append(
            BenchmarkRow(
                metric: "fill (generator, group commit)", value: Measure.rate(Double(stored) / fillSeconds),
                note: "\(Measure.grouped(stored)) events"))
    }
    if let copySeconds {
        rows += [
            BenchmarkRow(
                metric: "copies: \(copies) × the events, by INSERT … SELECT",
                value: Measure.duration(copySeconds * 1e9),
                note: "\(Measure.grouped(stored)) events"),
            BenchmarkRow(
                metric: "rollups rebuilt from the copies on open",
                value: Measure.duration(rebuildSeconds * 1e9),
                note: Measure.rate(Double(stored) / rebuildSeconds)),
        ]
    }
    rows += try ReportWorkload.disk(path: path, store: store, events: stored)
    let note =
        "\(Measure.grouped(stored)) events stored, \(Measure.grouped((people ?? 20_000) * copies)) people, best of 3 (once when over 1 s)"
    // The same reports counting people from the person rows (as before the day sets), on a
    // read-only store of the same file: before and after side by side.
    var rowsConfiguration = SQLiteEventStore.Configuration()
    rowsConfiguration.readOnly = true
    rowsConfiguration.countsPeopleFromSets = false
    let personRows = try SQLiteEventStore(path: path, configuration: rowsConfiguration)
    defer { personRows.close() }
    let before = try ReportWorkload.reports(
        stores: Stores(personRows), project: project, savingDefinitions: false)
    for ((name, body), (_, old)) in zip(
        try ReportWorkload.reports(stores: Stores(store), project: project), before)
    where only.map(name.contains) ?? true {
        let metric = name.hasSuffix(" days") ? name : name + ", 30 days"
        rows.append(
            BenchmarkRow(
                metric: metric, value: try ReportWorkload.time(body),
                note: "person rows: \(try ReportWorkload.time(old)); " + note))
    }
    return rows
}

/// Every report the benchmarks time, over the synthetic traffic's last 30 days, on any store.
enum ReportWorkload {
    /// The SQLite file of about `count` generated events (and `people` people, default the
    /// generator's), made when missing and kept in the temporary directory between runs.
    /// - Returns: its path, and the seconds filling it took when it was made now.
    static func filledDatabase(count: Int, people: Int?) throws -> (path: String, fillSeconds: Double?) {
        let path =
            NSTemporaryDirectory() + "footprint-report-bench-\(count)\(people.map { "-p\($0)" } ?? "").sqlite"
        guard !FileManager.default.fileExists(atPath: path) else { return (path, nil) }
        var configuration = SQLiteEventStore.Configuration()
        configuration.synchronous = "NORMAL"
        let store = try SQLiteEventStore(path: path, configuration: configuration)
        defer { store.close() }
        let project = try store.createProject(named: "bench")
        var generator = SyntheticTraffic.Configuration()
        if let people { generator.people = people }
        var traffic = SyntheticTraffic(configuration: generator)
        let seconds = try Measure.seconds {
            try traffic.write(count: count, into: store, projectId: project.id)
        }
        return (path, seconds)
    }

    /// A SQLite file of `copies` copies of the events in `path` (made when missing, kept between
    /// runs beside it as `…-xC.sqlite`): copy 0 is the events as they are; copy c ≥ 1 is every
    /// event again with `~c` appended to each id that names an event, a device, a person or a
    /// session (`message_id`, `anonymous_id`, `user_id`, `session_id`; an empty id stays empty and
    /// NULL stays NULL), the same for the identity links and the evicted-event reports'
    /// `batch_key`, as `make bench BENCH=clickhouse-100m` copies them in ClickHouse. The rollups
    /// are emptied and left to the store's rebuild, which counts every copy when it opens the file
    /// (the JSON payloads keep the original ids, as in ClickHouse; no report reads them).
    /// - Returns: its path, and the seconds the copies took when they were made now.
    static func copiedDatabase(of path: String, copies: Int) throws -> (path: String, seconds: Double?) {
        let copied = path.replacingOccurrences(of: ".sqlite", with: "-x\(copies).sqlite")
        guard !FileManager.default.fileExists(atPath: copied) else { return (copied, nil) }
        let partial = copied + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        try FileManager.default.copyItem(atPath: path, toPath: partial)
        let seconds = try Measure.seconds {
            let database = try SQLiteDatabase(path: partial)
            let columns = try database.prepare(
                "SELECT name FROM pragma_table_info('events') WHERE name != 'id'"
            )
            .rows([]) { $0.text(at: 0) ?? "" }
            let newest =
                try database.prepare("SELECT max(id) FROM events").rows([]) { $0.int64(at: 0) }.first ?? 0
            func rewrite(_ all: [String], copy: Int) -> String {
                all.map { copiedColumn($0, copy: copy, sqlite: true) }.joined(separator: ", ")
            }
            for copy in 1..<copies {
                try database.transaction {
                    try database.execute(
                        """
                        INSERT INTO events(\(columns.joined(separator: ", ")))
                        SELECT \(rewrite(columns, copy: copy))
                        FROM events WHERE id <= \(newest) ORDER BY id
                        """)
                    let links = ["project_id", "anonymous_id", "user_id", "first_seen"]
                    try database.execute(
                        """
                        INSERT INTO identities(\(links.joined(separator: ", ")))
                        SELECT \(rewrite(links, copy: copy)) FROM identities
                        WHERE anonymous_id NOT LIKE '%~%'
                        """)
                    let lost = ["project_id", "batch_key", "count", "received_at"]
                    try database.execute(
                        """
                        INSERT INTO lost_events(\(lost.joined(separator: ", ")))
                        SELECT \(rewrite(lost, copy: copy)) FROM lost_events
                        WHERE batch_key NOT LIKE '%~%'
                        """)
                }
                progress("  SQLite copy \(copy + 1) of \(copies)")
            }
            try database.transaction {
                for table in [
                    "rollup_counts", "rollup_totals", "person_label_sets", "rollup_times", "sessions",
                    "session_pages", "rollup_dwell", "rollup_moves", "project_events", "person_sets",
                    "person_merges",
                ] {
                    try database.execute("DELETE FROM \(table)")
                }
                try database.execute(
                    "INSERT OR REPLACE INTO store_state(key, value) VALUES ('rollups_rebuilt_through', 0)")
            }
        }
        try FileManager.default.moveItem(atPath: partial, toPath: copied)
        return (copied, seconds)
    }

    /// The file's bytes per stored event (the WAL checkpointed first), and the day sets' share.
    static func disk(path: String, store: SQLiteEventStore, events: Int) throws -> [BenchmarkRow] {
        let database = try SQLiteDatabase(path: path)
        try database.checkpoint()
        let bytes =
            (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        func sets(_ table: String) throws -> (rows: Int, bytes: Int) {
            try database.prepare("SELECT count(*), coalesce(sum(length(members)), 0) FROM \(table)").rows([])
            {
                (rows: Int($0.int64(at: 0)), bytes: Int($0.int64(at: 1)))
            }.first ?? (0, 0)
        }
        let plain = try sets("person_sets")
        let labelled = try sets("person_label_sets")
        let numbers =
            try database.prepare("SELECT count(*) FROM person_numbers").rows([]) { Int($0.int64(at: 0)) }
            .first ?? 0
        let perEvent = { (total: Int) in
            events == 0 ? "0" : String(format: "%.1f", Double(total) / Double(events))
        }
        return [
            BenchmarkRow(
                metric: "disk: SQLite file per stored event", value: "\(perEvent(bytes)) B",
                note: "\(Measure.grouped(bytes)) bytes, \(Measure.grouped(events)) events"),
            BenchmarkRow(
                metric: "disk: day sets of people (members only) per event",
                value: "\(perEvent(plain.bytes)) B",
                note: "\(Measure.grouped(plain.rows)) sets, \(Measure.grouped(numbers)) person numbers"),
            BenchmarkRow(
                metric: "disk: day sets per page, app version and OS (members only) per event",
                value: "\(perEvent(labelled.bytes)) B", note: "\(Measure.grouped(labelled.rows)) sets"),
        ]
    }

    /// Each report's name and a closure that computes it (saving the definitions it uses first,
    /// unless `savingDefinitions` is false: a read-only store over a file they were saved in).
    static func reports(stores: Stores, project: Project, savingDefinitions: Bool = true) throws -> [(
        String, () throws -> Void
    )] {
        let base = ReportService(stores: stores)
        // Each report as one request of the API answers it: its reads share their lookups.
        var service: ReportService { base.sharingLookups() }
        let end = SyntheticTraffic.Configuration().end
        let month = try ReportParameters(
            query: [:], now: end.adding(milliseconds: -1))
        let week = try ReportParameters(
            query: ["from": end.adding(milliseconds: -7 * 86_400_000).dayString],
            now: end.adding(milliseconds: -1))
        let funnel = try ReportParameters(
            query: ["step1": "page:Home", "step2": "page:ProductList", "step3": "event:$element_click"],
            now: end.adding(milliseconds: -1))
        // Definitions as a product team would write them: a similar path, patterns with a page.
        for definition in [
            EventDefinition(
                id: "product-cell", name: "Product cell",
                matchers: [
                    EventMatcher(
                        path: ElementRule(
                            match: .similar,
                            path:
                                "#tableView:didSelectRowAtIndexPath:#UITableView#ProductCell[0:*]#ProductListViewController"
                        ))
                ]),
            EventDefinition(
                id: "buy", name: "Buy",
                matchers: [
                    EventMatcher(path: ElementRule(match: .pattern, path: "#buy:#**")),
                    EventMatcher(path: ElementRule(match: .pattern, path: "#checkout:#**"), page: "Cart"),
                ]),
        ] where savingDefinitions {
            try stores.metadata.saveEventDefinition(definition, projectId: project.id, at: end)
        }
        let definedFunnel = try ReportParameters(
            query: ["step1": "page:Home", "step2": "defined:product-cell", "step3": "defined:buy"],
            now: end.adding(milliseconds: -1))
        let funnelOnPage = try ReportParameters(
            query: [
                "step1": "page:ProductDetail", "step2": "defined:buy", "step3": "event:$screen_leave",
                "page": "ProductDetail",
            ],
            now: end.adding(milliseconds: -1))
        let onProductList = try ReportParameters(
            query: ["page": "ProductList"], now: end.adding(milliseconds: -1))
        let onVersion = try ReportParameters(
            query: ["app_version": "2.4.1"], now: end.adding(milliseconds: -1))
        let retention = try ReportParameters(query: ["days": "7"], now: end.adding(milliseconds: -1))
        let returning = try ReportParameters(
            query: ["days": "7", "return_event": "$element_click"], now: end.adding(milliseconds: -1))
        var reports: [(String, () throws -> Void)] = [
            (
                "traffic: PV, UV, DAU/WAU/MAU, page visitors, dwell",
                {
                    _ = try service.traffic(project: project, parameters: month)
                }
            ),
            (
                "overview: traffic without dwell",
                {
                    _ = try service.traffic(project: project, parameters: month, dwell: false)
                }
            ),
            (
                "traffic on page ProductList",
                { _ = try service.traffic(project: project, parameters: onProductList) }
            ),
            (
                "traffic on app version 2.4.1",
                { _ = try service.traffic(project: project, parameters: onVersion) }
            ),
            (
                "top events with people",
                { _ = try service.topEvents(project: project, parameters: month, limit: 50) }
            ),
            (
                "elements by exact path with people",
                {
                    _ = try service.elements(project: project, parameters: month, grouping: .exact, limit: 50)
                }
            ),
            (
                "elements by similar path with people",
                {
                    _ = try service.elements(
                        project: project, parameters: month, grouping: .similar, limit: 50)
                }
            ),
            (
                "items: exposures, skips, clicks",
                { _ = try service.items(project: project, parameters: month, limit: 100) }
            ),
            (
                "sessions: count, length, screens",
                { _ = try service.sessions(project: project, parameters: month) }
            ),
            (
                "sessions on page ProductList",
                { _ = try service.sessions(project: project, parameters: onProductList) }
            ),
            (
                "page moves on page ProductList",
                { _ = try service.transitions(project: project, parameters: onProductList, limit: 20) }
            ),
            (
                "paths after Home",
                {
                    _ = try service.paths(project: project, parameters: month, after: "Home", limit: 10)
                }
            ),
            (
                "most common page moves",
                { _ = try service.transitions(project: project, parameters: month, limit: 20) }
            ),
            (
                "funnel: page Home → page ProductList → $element_click",
                {
                    _ = try service.funnel(project: project, parameters: funnel)
                }
            ),
            (
                "funnel: page Home → defined product cell → defined buy (similar and pattern paths)",
                {
                    _ = try service.funnel(project: project, parameters: definedFunnel)
                }
            ),
            (
                "funnel on page ProductDetail: view → defined buy → $screen_leave",
                {
                    _ = try service.funnel(project: project, parameters: funnelOnPage)
                }
            ),
            (
                "defined events: product cell, buy",
                {
                    _ = try service.definedEvents(
                        project: project, parameters: month,
                        definitions: try stores.metadata.eventDefinitions(projectId: project.id))
                }
            ),
            (
                "retention, 7 days, any event",
                { _ = try service.retention(project: project, parameters: retention) }
            ),
            (
                "retention, 7 days, return event $element_click",
                {
                    _ = try service.retention(project: project, parameters: returning)
                }
            ),
        ]
        // For comparison: the same traffic computed from the events of one week (the engine, which
        // serves ranges that are not whole days).
        reports.append(
            (
                "for comparison: traffic from events, 7 days",
                { _ = try service.engine(project: project, parameters: week).traffic(days: week.filter) }
            ))
        reports.append(
            (
                "overview Report (footprint report)",
                { _ = try service.overview(project: project, parameters: month) }
            ))
        return reports
    }

    /// The best of 3 runs (the first alone when it took over a second), or why the store
    /// refused (a range over its event limit).
    static func time(_ body: () throws -> Void) throws -> String {
        var best = Double.infinity
        do {
            for run in 0..<3 where run == 0 || best <= 1 { best = min(best, try Measure.seconds(body)) }
        } catch let error as ServerError where error.code == .invalidQuery {
            return "refused"
        }
        return Measure.duration(best * 1e9)
    }
}
