import FootprintLoopback
import FootprintServer
import FootprintSynthetic
import FootprintWire
import Foundation

/// The scale-out deployment against one SQLite server, in the same run: `make bench
/// BENCH=clickhouse` starts two ClickHouse shards, two collectors and HAProxy with
/// scripts/cluster.sh and names its state folder in `FOOTPRINT_CLUSTER_STATE`.
///
/// - Ingest: the load generator (`FOOTPRINT_INGEST_CONNECTIONS` connections, default 8, batches of
///   100) through HAProxy, once per collector INSERT interval (`FOOTPRINT_INSERT_INTERVALS`,
///   milliseconds, default `0,50,200`: the bench restarts both collectors with
///   `--insert-interval`), and against one `footprint serve` on SQLite; events/s, latency, and
///   the CPU each process spent per event, and the ClickHouse requests the collectors sent against
///   the connections they came on (``ClusterBench/clickHouseExchanges(since:)``); 100,000 events a
///   run (`FOOTPRINT_INGEST_EVENTS`). Then the same with each collector spooling (`--spool`, insert
///   interval 0; `FOOTPRINT_BENCH_SPOOL=0` leaves it out): its rate and latency are of the answers
///   (durable on the collector's disk), its CPU is read once the spools have shipped everything,
///   and the time from the last answer to the last row shipped is shown. Then ClickHouse alone: the stored events copied inside the shards into a new database, with
///   and without the views (``ClusterBench/insertCeiling(views:directory:)``).
///   `FOOTPRINT_BENCH_INGEST=0` leaves ingest out.
/// - Disk: bytes per stored event (`system.parts` on both shards against the SQLite file).
/// - Reports: every report of the `reports` suite over the same generated events (1M by default,
///   `FOOTPRINT_REPORT_EVENTS`), the SQLite file copied into ClickHouse by ``StoreMigration``
///   (kept, like the SQLite file, between runs); a report slower than 1 s is timed once, and one
///   whose ClickHouse query runs longer than `FOOTPRINT_REPORT_CAP` seconds (default 120) is
///   stopped and shown as over it.
let clickHouseSuite = BenchmarkSuite(name: "clickhouse") {
    let bench = try ClusterBench()
    var rows = [bench.machineLoad()]
    if bench.environment["FOOTPRINT_BENCH_INGEST"] != "0" {
        rows += bench.rows(of: "ingest", bench.ingestRows)
    }
    return rows + bench.rows(of: "reports", bench.reportRows)
}

/// 100,000,000 events, once (`make bench BENCH=clickhouse-100m`, never in `make test`): the
/// `clickhouse` suite's generated events (`FOOTPRINT_REPORT_EVENTS`, default 10,000,000, loaded
/// first through SQLite and `footprint migrate` when missing) multiplied inside ClickHouse to
/// `FOOTPRINT_BENCH_COPIES` copies (default 10); every ClickHouse report timed once. With
/// `FOOTPRINT_BENCH_SIGN_IN_LATER=1` (and `FOOTPRINT_REPORT_SQLITE=0`) the users sign in after
/// browsing: people of two members, linked after their first events.
///
/// Copy 0 is the loaded events as they are. Copy c (1…) is `INSERT INTO … SELECT` of every
/// loaded event (and identity link and evicted-event report) through the `Distributed` tables,
/// with `~c` appended to every id that names a person, a device, a session or an event:
/// `device`, `message_id`, `anonymous_id`, `user_id`, `session_id`, `session_key` (the same for
/// the identity links' `anonymous_id` and `user_id`, and the reports' `batch_key`). Times, pages,
/// elements and items stay, so the copies are as many more people doing the same things in the
/// same 30 days; each copy lands on the shard its new device hashes to. The JSON payload (read
/// only by exports and event lists) keeps the original ids.
let clickHouse100MSuite = BenchmarkSuite(name: "clickhouse-100m") {
    let bench = try ClusterBench()
    return [bench.machineLoad()] + (try bench.multipliedRows())
}

/// The cluster a `clickhouse` suite measures, and where the footprint executable is.
private struct ClusterBench {
    let environment = ProcessInfo.processInfo.environment
    let cluster: ClusterState
    let state: String
    let footprint: String
    /// Seconds one ClickHouse query of a report may run.
    let cap: Double
    /// `FOOTPRINT_BENCH_SIGN_IN_LATER=1`: the generator's users sign in after browsing
    /// (``SyntheticTraffic/Configuration/signInLater``), into databases of their own.
    var signInLater: Bool { environment["FOOTPRINT_BENCH_SIGN_IN_LATER"] == "1" }
    /// What the data's database and metadata names add for ``signInLater``.
    var dataSuffix: String { signInLater ? "_late" : "" }

    init() throws {
        guard let state = environment["FOOTPRINT_CLUSTER_STATE"] else {
            throw BenchmarkFailure(
                description: "run it with make bench BENCH=clickhouse (it starts the cluster)")
        }
        self.state = state
        cluster = try ClusterState(folder: state)
        footprint =
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("footprint").path
        cap = Double(environment["FOOTPRINT_REPORT_CAP"] ?? "").map { max(1, $0) } ?? 120
    }

    /// The rows `part` measured, or one row saying why it failed (the other parts still run).
    func rows(of name: String, _ part: () throws -> [BenchmarkRow]) -> [BenchmarkRow] {
        do {
            return try part()
        } catch {
            progress("  \(name) failed: \(error)")
            return [BenchmarkRow(metric: "\(name): failed", value: "", note: "\(error)")]
        }
    }

    /// The machine's load average when the suite started.
    func machineLoad() -> BenchmarkRow {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return BenchmarkRow(
            metric: "machine load (1, 5, 15 min) at the start",
            value: text.split(separator: " ").prefix(3).joined(separator: ", "),
            note: "\(ProcessInfo.processInfo.activeProcessorCount) cores")
    }

    // MARK: Ingest

    func ingestRows() throws -> [BenchmarkRow] {
        let connections = Int(environment["FOOTPRINT_INGEST_CONNECTIONS"] ?? "").map { max(1, $0) } ?? 8
        let events = Int(environment["FOOTPRINT_INGEST_EVENTS"] ?? "").map { max(100, $0) } ?? 100_000
        let batchesPerConnection = max(1, events / 100 / connections)
        let intervals = (environment["FOOTPRINT_INSERT_INTERVALS"] ?? "0,50,200").split(separator: ",")
            .compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { (0...10_000).contains($0) }
        let directory =
            NSTemporaryDirectory() + "footprint-clickhouse-bench-\(UInt32.random(in: 0..<UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // The collectors' settings: each insert interval, then the spool with each segment size
        // (`FOOTPRINT_SPOOL_SEGMENTS`: `ROWS:MS` pairs, default the collectors' own 10,000 rows or
        // 1,000 ms).
        let segments = (environment["FOOTPRINT_SPOOL_SEGMENTS"] ?? "10000:1000").split(separator: ",")
            .compactMap {
                pair -> (rows: Int, milliseconds: Int)? in
                let parts = pair.split(separator: ":").compactMap {
                    Int($0.trimmingCharacters(in: .whitespaces))
                }
                guard parts.count == 2, (1_000...1_000_000).contains(parts[0]),
                    (100...60_000).contains(parts[1])
                else { return nil }
                return (parts[0], parts[1])
            }
        // Each setting with each replication wait (`FOOTPRINT_REPLICATION_WAITS`, milliseconds;
        // default the collectors' own), side by side on replicated shards
        // (`BENCH_CLUSTER_REPLICAS=2`).
        let waits: [Int?] =
            environment["FOOTPRINT_REPLICATION_WAITS"].map {
                $0.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                    .filter { (0...60_000).contains($0) }
            } ?? [nil]
        let settings =
            (intervals.map { CollectorSetting(interval: $0, spools: false) }
            + (environment["FOOTPRINT_BENCH_SPOOL"] == "0"
                ? []
                : segments.map {
                    CollectorSetting(
                        interval: 0, spools: true, segmentRows: $0.rows, segmentMilliseconds: $0.milliseconds)
                }))
            .flatMap { setting in
                waits.map {
                    var waiting = setting
                    waiting.replicationWait = $0
                    return waiting
                }
            }

        // Alternating rounds on the shared machine; the best round of each setting counts.
        var bestCluster: [CollectorSetting: ClusterIngest] = [:]
        var bestSQLite: ClusterIngest?
        for round in 0..<2 {
            for (index, setting) in settings.enumerated() {
                let collectors = try CollectorSet(
                    bench: self, setting: setting, spools: directory + "/spools-\(round)-\(index)")
                defer { collectors.stop() }
                var processes = cluster.processes.filter { !$0.key.hasPrefix("collector") }
                for (name, pid) in collectors.pids { processes[name] = pid }
                let started = try ClusterState.query("SELECT toUInt32(now())", on: cluster.shards[0])
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                var run = try ingest(
                    port: cluster.haproxyPort, writeKey: cluster.writeKey, connections: connections,
                    batches: batchesPerConnection, processes: processes,
                    drain: setting.spools ? collectors.waitUntilShipped : nil)
                run.clickHouseExchanges = try clickHouseExchanges(since: started)
                progress(
                    "  ingest, \(setting.name): \(Measure.rate(run.rate)), p50 \(Measure.duration(run.p50)), p99 \(Measure.duration(run.p99)), \(run.failures) failed, ClickHouse requests / connections \(run.clickHouseExchanges.map { "\($0.requests) / \($0.connections)" } ?? "-")\(run.shippedAfter.map { ", shipped \(Measure.duration($0 * 1e9)) after the last answer" } ?? "")"
                )
                if run.rate > bestCluster[setting]?.rate ?? 0 { bestCluster[setting] = run }
            }
            let sqlite = try ServeProcess(
                executable: URL(fileURLWithPath: footprint), database: directory + "/ingest-\(round).sqlite")
            defer { sqlite.stop() }
            let sqliteRun = try ingest(
                port: sqlite.port, writeKey: sqlite.writeKey, connections: connections,
                batches: batchesPerConnection, processes: ["footprint serve (SQLite)": sqlite.pid])
            progress(
                "  ingest, SQLite: \(Measure.rate(sqliteRun.rate)), p50 \(Measure.duration(sqliteRun.p50)), p99 \(Measure.duration(sqliteRun.p99))"
            )
            if sqliteRun.rate > bestSQLite?.rate ?? 0 { bestSQLite = sqliteRun }
        }
        guard let sqliteIngest = bestSQLite,
            let best = bestCluster.filter({ !$0.key.spools }).max(by: { $0.value.rate < $1.value.rate })
        else { return [] }
        var rows: [BenchmarkRow] = []
        func describe(_ name: String, _ run: ClusterIngest) {
            rows += [
                BenchmarkRow(
                    metric: name, value: Measure.rate(run.rate),
                    note:
                        "\(Measure.grouped(run.events)) events in batches of 100 over \(connections) connections, \(run.failures) failed requests; best of 2"
                ),
                BenchmarkRow(
                    metric: "  latency p50 / p99",
                    value: "\(Measure.duration(run.p50)) / \(Measure.duration(run.p99))"),
            ]
            if let shipped = run.shippedAfter {
                let answering = Double(run.events) / max(1e-9, run.rate)
                rows += [
                    BenchmarkRow(
                        metric: "  last row shipped after the last answer",
                        value: Measure.duration(shipped * 1e9),
                        note: "reports see an event once its segment is shipped"),
                    BenchmarkRow(
                        metric: "  events/s shipped",
                        value: Measure.rate(Double(run.events) / (answering + shipped)),
                        note: "the events over the time from the first request to the last row shipped"),
                ]
            }
            if let exchanges = run.clickHouseExchanges {
                rows.append(
                    BenchmarkRow(
                        metric: "  ClickHouse requests / connections from the collectors",
                        value:
                            "\(Measure.grouped(exchanges.requests)) / \(Measure.grouped(exchanges.connections))",
                        note: "HTTP queries in the shards' query_log and their distinct client ports"))
            }
            for (process, seconds) in run.cpuSeconds.sorted(by: { $0.key < $1.key }) {
                rows.append(
                    BenchmarkRow(
                        metric: "  CPU per 1,000 events: \(process)",
                        value: "\(Measure.fixed(seconds / Double(max(1, run.events)) * 1e6, 1)) ms"))
            }
        }
        describe("ingest, 1 collector on SQLite", sqliteIngest)
        for setting in settings {
            guard let run = bestCluster[setting] else { continue }
            describe("ingest, HAProxy → 2 collectors (\(setting.name)) → 2 shards", run)
            rows.append(
                BenchmarkRow(
                    metric: "  cluster / SQLite: ingest rate, CPU per event (all processes)",
                    value:
                        "\(Measure.fixed(run.rate / max(1, sqliteIngest.rate), 2)) ×, \(Measure.fixed(run.cpuPerEvent / max(1e-12, sqliteIngest.cpuPerEvent), 2)) ×",
                    note:
                        "targets: CPU per event ≤ 1.5 ×; p99 ≤ 2 × SQLite's (\(Measure.fixed(run.p99 / max(1e-9, sqliteIngest.p99), 2)) ×)"
                ))
        }
        // Cores for 100,000 events/s, from the CPU each kind of process spent per event.
        func cores(_ prefix: String, _ run: ClusterIngest) -> Double {
            let seconds = run.cpuSeconds.filter { $0.key.hasPrefix(prefix) }.values.reduce(0, +)
            return seconds / Double(max(1, run.events)) * 100_000
        }
        // What the shards alone take, with nothing in front of them.
        for views in [true, false] {
            let ceiling = try insertCeiling(views: views, directory: directory)
            let shardSeconds = ceiling.cpuSeconds.values.reduce(0, +)
            rows += [
                BenchmarkRow(
                    metric:
                        "ClickHouse alone, INSERT … SELECT, \(views ? "with the five views" : "no views")",
                    value: Measure.rate(Double(ceiling.events) / ceiling.seconds),
                    note:
                        "\(Measure.grouped(ceiling.events)) stored events copied inside the shards; \(Measure.fixed(Double(ceiling.events) / ceiling.seconds / max(1, sqliteIngest.rate), 2)) × SQLite's ingest"
                ),
                BenchmarkRow(
                    metric: "  CPU per 1,000 events: shards",
                    value: "\(Measure.fixed(shardSeconds / Double(max(1, ceiling.events)) * 1e6, 1)) ms"),
            ]
        }
        let estimated = [best.key: best.value].merging(bestCluster.filter(\.key.spools)) { first, _ in first }
        for (setting, run) in estimated.sorted(by: { !$0.key.spools && $1.key.spools }) {
            rows += [
                BenchmarkRow(
                    metric: "cores for 100,000 events/s (\(setting.name)): collectors",
                    value: Measure.fixed(cores("collector", run), 2),
                    note: "measured CPU per event × 100,000"),
                BenchmarkRow(
                    metric: "  shards", value: Measure.fixed(cores("shard", run), 2)),
                BenchmarkRow(
                    metric: "  HAProxy", value: Measure.fixed(cores("haproxy", run), 2)),
            ]
        }
        return rows
    }

    /// The HTTP requests the shards received as first query (the collectors', during an ingest
    /// round; this suite's own two kinds left out) since `started` (`toUInt32(now())` on a shard), and their distinct client ports:
    /// the TCP connections they came on, at least (a port may serve two connections one after
    /// the other). From `system.query_log`, flushed first.
    func clickHouseExchanges(since started: String) throws -> (requests: Int, connections: Int) {
        var requests = 0
        var connections = 0
        for node in cluster.shards {
            _ = try ClusterState.query("SYSTEM FLUSH LOGS", on: node)
            let fields = try ClusterState.query(
                """
                SELECT count(), uniqExact(address, port) FROM system.query_log
                WHERE type = 1 AND interface = 2 AND is_initial_query AND event_time >= toDateTime(\(started))
                    AND query NOT LIKE 'SYSTEM FLUSH%' AND query NOT LIKE 'SELECT toUInt32(now())%'
                FORMAT TabSeparated
                """, on: node
            ).split(whereSeparator: \.isWhitespace)
            requests += fields.first.flatMap { Int($0) } ?? 0
            connections += fields.dropFirst().first.flatMap { Int($0) } ?? 0
        }
        return (requests, connections)
    }

    /// The most events per second the shards take on this machine, with no collector, HTTP request
    /// or copy check in front of them: the events the ingest rounds stored (at most 200,000 per
    /// shard) copied by `INSERT … SELECT` into a new database with the store's schema, through its
    /// `Distributed` table as the collectors insert (`insert_distributed_sync=1`), with the five
    /// materialized views filling the aggregate tables or (`views` false) without them. The
    /// database is dropped afterwards.
    func insertCeiling(views: Bool, directory: String) throws -> (
        events: Int, seconds: Double, cpuSeconds: [String: Double]
    ) {
        var location = try ClickHouseLocation(url: cluster.clickHouseURL, environment: environment)
        let from = location.database
        location.database = "footprint_bench_ceiling"
        let to = location.database
        for node in cluster.shards {
            _ = try ClusterState.query("DROP DATABASE IF EXISTS \(to)", on: node)
        }
        defer {
            for node in cluster.shards {
                _ = try? ClusterState.query("DROP DATABASE IF EXISTS \(to)", on: node)
            }
        }
        try ClickHouseEventStore(location: location, metadataPath: directory + "/ceiling.sqlite").close()
        if !views {
            for node in cluster.shards {
                for view in try ClusterState.query(
                    "SELECT name FROM system.tables WHERE database = '\(to)' AND name LIKE '%\\_mv'",
                    on: node
                ).split(separator: "\n") {
                    _ = try ClusterState.query("DROP TABLE \(to).\(view)", on: node)
                }
            }
        }
        let columns = try ClusterState.query(
            "SELECT name FROM system.columns WHERE database = '\(to)' AND table = 'events_local'",
            on: cluster.shards[0]
        ).split(separator: "\n").joined(separator: ", ")
        let shards = cluster.processes.filter { $0.key.hasPrefix("shard") }
        let before = shards.mapValues(processCPUSeconds)
        let seconds = try Measure.seconds {
            for node in cluster.shards {
                _ = try ClusterState.query(
                    "INSERT INTO \(to).events (\(columns)) SELECT \(columns) FROM \(from).events_local LIMIT 200000",
                    on: node, parameters: ["insert_distributed_sync": "1", "max_execution_time": "0"],
                    timeout: 3600)
            }
        }
        let after = shards.mapValues(processCPUSeconds)
        let events = try rowCount(database: to, table: "events_local")
        progress(
            "  ClickHouse alone, \(views ? "views" : "no views"): \(Measure.grouped(events)) events in \(Measure.fixed(seconds, 2)) s"
        )
        return (events, seconds, cpuSpent(from: before, to: after))
    }

    // MARK: Reports

    /// The generated events of `count`, in SQLite and in the cluster's database
    /// `footprint_report_bench_COUNT` (copied by ``StoreMigration``, resumed where a run stopped).
    struct Loaded {
        /// The SQLite file (the ClickHouse store's metadata file too).
        var path: String
        /// The SQLite store of the same events, unless they went straight into ClickHouse.
        var sqlite: SQLiteEventStore?
        var clickHouse: ClickHouseEventStore
        var project: Project
        var location: ClickHouseLocation
        var rows: [BenchmarkRow]

        func close() {
            clickHouse.close()
            sqlite?.close()
        }
    }

    func load(count: Int) throws -> Loaded {
        var location = try ClickHouseLocation(url: cluster.clickHouseURL, environment: environment)
        location.database = "footprint_report_bench_\(count)\(dataSuffix)"
        var storeConfiguration = ClickHouseEventStore.Configuration()
        storeConfiguration.requestTimeout = cap
        storeConfiguration.writeTimeout = 600
        storeConfiguration.maximumReportEvents = 5_000_000
        if environment["FOOTPRINT_REPORT_SQLITE"] == "0" {
            return try generate(count: count, location: location, configuration: storeConfiguration)
        }
        guard !signInLater else {
            throw BenchmarkFailure(
                description: "FOOTPRINT_BENCH_SIGN_IN_LATER=1 needs FOOTPRINT_REPORT_SQLITE=0")
        }
        var rows: [BenchmarkRow] = []
        let (path, fillSeconds) = try ReportWorkload.filledDatabase(count: count, people: nil)
        var configuration = SQLiteEventStore.Configuration()
        configuration.synchronous = "NORMAL"
        let sqlite = try SQLiteEventStore(path: path, configuration: configuration)
        let project = try ReportService(stores: Stores(sqlite)).project(named: nil)
        let stored = try sqlite.eventCount(projectId: project.id)
        if let fillSeconds {
            rows.append(
                BenchmarkRow(
                    metric: "fill SQLite (generator, group commit)",
                    value: Measure.rate(Double(stored) / fillSeconds),
                    note: "\(Measure.grouped(stored)) events in \(Measure.fixed(fillSeconds, 0)) s"))
        }
        let clickHouse = try ClickHouseEventStore(
            location: location, metadataPath: path, configuration: storeConfiguration)
        var settings = StoreMigration.Configuration()
        settings.chunkSize =
            Int(environment["FOOTPRINT_MIGRATE_CHUNK"] ?? "").map { max(1, $0) } ?? settings.chunkSize
        let migration = StoreMigration(
            from: sqlite, to: clickHouse, targetName: location.description, configuration: settings)
        var migrated = StoreMigration.Progress()
        var lastPrint = Date()
        let seconds = try Measure.seconds {
            migrated = try migration.run { state in
                guard Date().timeIntervalSince(lastPrint) > 30 else { return }
                lastPrint = Date()
                progress(
                    "  migrate: \(Measure.grouped(state.copiedEvents)) of \(Measure.grouped(state.totalEvents))"
                )
            }
        }
        if migrated.copiedEvents > 0 {
            rows.append(
                BenchmarkRow(
                    metric: "footprint migrate into the cluster",
                    value: Measure.rate(Double(migrated.copiedEvents) / seconds),
                    note:
                        "\(Measure.grouped(migrated.copiedEvents)) events in \(Measure.fixed(seconds, 0)) s, chunks of \(Measure.grouped(settings.chunkSize))"
                ))
        }
        return Loaded(
            path: path, sqlite: sqlite, clickHouse: clickHouse, project: project, location: location,
            rows: rows)
    }

    /// `FOOTPRINT_REPORT_SQLITE=0`: about `count` events of `footprint generate`'s generator
    /// written straight into the ClickHouse store (in batches of 100,000: each batch is one INSERT
    /// per table, and larger INSERTs make fewer parts for the shards to write and merge: at 1M,
    /// batches of 20,000 cost the shards 22–36 s of CPU and 100,000 17–21 s; no SQLite copy), with
    /// the project and definitions in a small metadata file kept next to the SQLite files. A
    /// database holding fewer events (a stopped run) is dropped and filled again.
    func generate(count: Int, location: ClickHouseLocation, configuration: ClickHouseEventStore.Configuration)
        throws -> Loaded
    {
        let path = NSTemporaryDirectory() + "footprint-report-bench-\(count)\(dataSuffix)-metadata.sqlite"
        var rows: [BenchmarkRow] = []
        var clickHouse = try ClickHouseEventStore(
            location: location, metadataPath: path, configuration: configuration)
        let project =
            try clickHouse.metadata.projects().first ?? clickHouse.metadata.createProject(named: "bench")
        if try rowCount(database: location.database, table: "events_local") < count {
            try clickHouse.dropDatabase()
            clickHouse.close()
            clickHouse = try ClickHouseEventStore(
                location: location, metadataPath: path, configuration: configuration)
            var generator = SyntheticTraffic.Configuration()
            generator.signInLater = signInLater
            var traffic = SyntheticTraffic(configuration: generator)
            var lastPrint = Date()
            var written = 0
            let seconds = try Measure.seconds {
                written = try traffic.write(
                    count: count, into: clickHouse, projectId: project.id, batchSize: 100_000
                ) {
                    written in
                    guard Date().timeIntervalSince(lastPrint) > 30 else { return }
                    lastPrint = Date()
                    progress("  generate: \(Measure.grouped(written)) of \(Measure.grouped(count))")
                }
            }
            rows.append(
                BenchmarkRow(
                    metric: "fill ClickHouse (footprint generate's generator, batches of 100,000)",
                    value: Measure.rate(Double(written) / seconds),
                    note: "\(Measure.grouped(written)) events in \(Measure.fixed(seconds, 0)) s"))
        }
        return Loaded(
            path: path, sqlite: nil, clickHouse: clickHouse, project: project, location: location, rows: rows)
    }

    /// Bytes on disk of a database's active parts, on every shard.
    func clickHouseBytes(database: String) throws -> Int {
        var bytes = 0
        for node in cluster.shards {
            let answer = try ClusterState.query(
                "SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND database = '\(database)'",
                on: node)
            bytes += Int(answer.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        return bytes
    }

    func reportRows() throws -> [BenchmarkRow] {
        let count = Int(environment["FOOTPRINT_REPORT_EVENTS"] ?? "") ?? 1_000_000
        let loaded = try load(count: count)
        defer { loaded.close() }
        var rows = loaded.rows
        let inClickHouse = try loaded.clickHouse.eventCount(projectId: loaded.project.id)
        let stored = try loaded.sqlite?.eventCount(projectId: loaded.project.id) ?? inClickHouse

        // Disk per stored event.
        if loaded.sqlite != nil {
            var sqliteBytes = 0
            for suffix in ["", "-wal"] {
                let attributes = try? FileManager.default.attributesOfItem(atPath: loaded.path + suffix)
                sqliteBytes += (attributes?[.size] as? Int) ?? 0
            }
            rows.append(
                BenchmarkRow(
                    metric: "disk per event, SQLite (file with rollups and indexes)",
                    value: "\(sqliteBytes / max(1, stored)) bytes",
                    note:
                        "\(Measure.grouped(stored)) events, \(Measure.fixed(Double(sqliteBytes) / 1e9, 2)) GB"
                ))
        }
        let clickHouseBytes = try clickHouseBytes(database: loaded.location.database)
        rows += [
            BenchmarkRow(
                metric: "disk per event, ClickHouse (both shards' parts)",
                value: "\(clickHouseBytes / max(1, inClickHouse)) bytes",
                note:
                    "\(Measure.grouped(inClickHouse)) events, \(Measure.fixed(Double(clickHouseBytes) / 1e9, 2)) GB, parts as inserted and merged so far"
            )
        ]

        // Every report on both stores.
        let only = environment["FOOTPRINT_REPORT_ONLY"]
        let clickHouseReports = try ReportWorkload.reports(
            stores: loaded.clickHouse.stores, project: loaded.project)
        let sqliteReports = try loaded.sqlite.map {
            try ReportWorkload.reports(stores: Stores($0), project: loaded.project)
        }
        for (index, (name, onClickHouse)) in clickHouseReports.enumerated()
        where only.map(name.contains) ?? true {
            let sqliteTime = try sqliteReports.map { try ReportWorkload.time($0[index].1) } ?? "not loaded"
            let clickHouseTime = try time(onClickHouse)
            progress("  \(name): \(sqliteTime) | \(clickHouseTime)")
            rows.append(
                BenchmarkRow(
                    metric: name.hasSuffix(" days") ? name : name + ", 30 days",
                    value: "\(sqliteTime) | \(clickHouseTime)",
                    note:
                        "SQLite | ClickHouse, \(Measure.grouped(stored)) events, best of 3 (once when over 1 s)"
                ))
        }
        return rows
    }

    /// A ClickHouse report's time (``ReportWorkload/time(_:)``), or "> cap" when a query of it
    /// ran out of time (ClickHouse stops it at `max_execution_time`).
    func time(_ body: () throws -> Void) throws -> String {
        do {
            return try ReportWorkload.time(body)
        } catch let error as ServerError where error.code == .unavailable {
            return "> \(Measure.fixed(cap, 0)) s"
        }
    }

    // MARK: 100M

    func multipliedRows() throws -> [BenchmarkRow] {
        let count = Int(environment["FOOTPRINT_REPORT_EVENTS"] ?? "") ?? 10_000_000
        let copies = Int(environment["FOOTPRINT_BENCH_COPIES"] ?? "").map { min(100, max(2, $0)) } ?? 10
        let base = try load(count: count)
        defer { base.close() }
        var rows = base.rows
        var location = base.location
        location.database = "footprint_report_bench_\(count)\(dataSuffix)x\(copies)"
        let from = base.location.database
        let to = location.database
        let shard = cluster.shards[0]
        let baseRows = try rowCount(database: from, table: "events_local")
        let expected = baseRows * copies
        // The events an earlier run sent after its round stay (their aggregates too): not a
        // partial copy.
        let present = try rowCount(database: to, table: "events_local") - (try lateEvents(database: to))
        var seconds: Double?
        if present != expected {
            // A partial copy from a stopped run: start again.
            for node in cluster.shards {
                _ = try ClusterState.query("DROP DATABASE IF EXISTS \(to)", on: node)
            }
            var storeConfiguration = ClickHouseEventStore.Configuration()
            storeConfiguration.requestTimeout = cap
            try ClickHouseEventStore(
                location: location, metadataPath: base.path, configuration: storeConfiguration
            )
            .close()
            let columns = try ClusterState.query(
                "SELECT name FROM system.columns WHERE database = '\(to)' AND table = 'events_local'",
                on: shard
            ).split(separator: "\n").map(String.init)
            seconds = try Measure.seconds {
                for copy in 0..<copies {
                    let started = Date()
                    for node in cluster.shards {
                        for (table, names) in [
                            ("events", columns),
                            ("identities", ["project_id", "anonymous_id", "user_id", "first_seen"]),
                            ("lost_events", ["project_id", "batch_key", "count", "received_at", "keep"]),
                        ] {
                            let rewritten = names.map { copiedColumn($0, copy: copy) }.joined(separator: ", ")
                            _ = try ClusterState.query(
                                "INSERT INTO \(to).\(table) (\(names.joined(separator: ", "))) SELECT \(rewritten) FROM \(from).\(table)_local",
                                on: node,
                                parameters: ["insert_distributed_sync": "1", "max_execution_time": "0"],
                                timeout: 7200)
                        }
                    }
                    progress(
                        "  copy \(copy + 1) of \(copies): \(Measure.fixed(Date().timeIntervalSince(started), 0)) s"
                    )
                }
            }
        }
        let stored = try rowCount(database: to, table: "events_local")
        let bytes = try clickHouseBytes(database: to)
        if let seconds {
            rows.append(
                BenchmarkRow(
                    metric: "load: \(copies) copies by INSERT … SELECT",
                    value: "\(Measure.fixed(seconds, 0)) s",
                    note:
                        "\(Measure.rate(Double(stored - baseRows) / seconds)) for the \(copies - 1) rewritten copies and copy 0"
                ))
        }
        rows.append(
            BenchmarkRow(
                metric: "disk, ClickHouse (both shards' parts)",
                value: "\(Measure.fixed(Double(bytes) / 1e9, 2)) GB",
                note: "\(Measure.grouped(stored)) events, \(bytes / max(1, stored)) bytes per event"))
        var storeConfiguration = ClickHouseEventStore.Configuration()
        storeConfiguration.requestTimeout = cap
        storeConfiguration.maximumReportEvents = 5_000_000
        // Rounds only where the benchmark makes them; `FOOTPRINT_SETTLED_WINDOW` days per session
        // (the store's default without it).
        storeConfiguration.settledInterval = 0
        if let days = environment["FOOTPRINT_SETTLED_WINDOW"].flatMap({ Int($0) }) {
            storeConfiguration.settledWindowDays = min(max(days, 0), 64)
        }
        let store = try ClickHouseEventStore(
            location: location, metadataPath: base.path, configuration: storeConfiguration)
        defer { store.close() }
        // Every report from the marks first: no round.
        for node in cluster.shards {
            for table in [
                "settled_rounds_local", "settled_figures_local", "settled_people_local",
                "settled_sessions_local",
            ] {
                _ = try ClusterState.query("TRUNCATE TABLE \(to).\(table)", on: node)
            }
        }
        rows += try timedReports(store: store, project: base.project, stored: stored, round: "")
        // A round, then the reads from it: with nothing written since, then with events written
        // since on the last day (as a day with events still coming in has).
        func timedRound(_ metric: String) throws -> BenchmarkRow {
            let seconds = try Measure.seconds { try store.settleSessionFigures(projectId: base.project.id) }
            return BenchmarkRow(
                metric: metric, value: Measure.duration(seconds * 1e9),
                note: "ClickHouse, \(Measure.grouped(stored)) events, once")
        }
        rows.append(try timedRound("a round of settled session figures and people, every day"))
        rows += try timedReports(store: store, project: base.project, stored: stored, round: " (settled)")
        // Events since the round: the last day's events of one device in ten sent again as new
        // messages in new sessions (each run's its own: the sessions touched since are that run's,
        // a tenth of the day's), through the views as any INSERT.
        let before = try lateEvents(database: to)
        let names = try ClusterState.query(
            """
            SELECT name FROM system.columns
            WHERE database = '\(to)' AND table = 'events_local' AND name != 'message_hash'
            """, on: shard
        ).split(separator: "\n").map(String.init)
        let tag = "'~late\(Int(Date().timeIntervalSince1970))'"
        let late = names.map {
            switch $0 {
            case "message_id", "session_key": "concat(\($0), \(tag))"
            case "session_id": "if(isNull(session_id), NULL, concat(assumeNotNull(session_id), \(tag)))"
            default: $0
            }
        }
        _ = try ClusterState.query(
            """
            INSERT INTO \(to).events (\(names.joined(separator: ", ")))
            SELECT \(late.joined(separator: ", ")) FROM \(to).events
            WHERE project_id = \(base.project.id) AND cityHash64(device) % 10 = 0
                AND position(message_id, '~late') = 0 AND day = (SELECT max(day) FROM \(to).events WHERE project_id = \(base.project.id))
            """, on: shard, parameters: ["insert_distributed_sync": "1", "max_execution_time": "0"],
            timeout: 3600)
        progress("  events sent since the round: \(try lateEvents(database: to) - before)")
        rows += try timedReports(
            store: store, project: base.project, stored: stored, round: " (settled, events since)")
        // The next round computes the last day's session figures and the people who sent events
        // since, and copies the rest.
        rows.append(
            try timedRound("the next round, events since on the last day (its people: those who sent them)"))
        return rows
    }

    /// Every report (those whose names hold `FOOTPRINT_REPORT_ONLY` when it is set), timed once,
    /// or `FOOTPRINT_REPORT_RUNS` times one after another (at most 21) with the median and the
    /// fastest and slowest, named with `round` after.
    func timedReports(
        store: ClickHouseEventStore, project: Project, stored: Int, round: String
    ) throws -> [BenchmarkRow] {
        var rows: [BenchmarkRow] = []
        let narrowed = environment["FOOTPRINT_REPORT_ONLY"]
        let runs = Int(environment["FOOTPRINT_REPORT_RUNS"] ?? "").map { min(21, max(1, $0)) } ?? 1
        for (name, body) in try ReportWorkload.reports(stores: store.stores, project: project)
        where narrowed.map(name.contains) ?? true {
            let value: String
            do {
                var times: [Double] = []
                for _ in 0..<runs { times.append(try Measure.seconds(body)) }
                times.sort()
                value =
                    Measure.duration(times[times.count / 2] * 1e9)
                    + (runs > 1
                        ? " (\(Measure.duration(times[0] * 1e9))–\(Measure.duration(times[runs - 1] * 1e9)))"
                        : "")
            } catch let error as ServerError
                where error.code == .unavailable
                && (error.message.contains("in time") || error.message.contains("imeout"))
            {
                // Over the cap: ClickHouse's time limit, or no answer in time. Other transient
                // faults (the memory limit) are failures, shown as such.
                value = "> \(Measure.fixed(cap, 0)) s"
            } catch let error as ServerError where error.code == .invalidQuery {
                value = "refused"
            } catch let error as ServerError {
                // One report failing (an answer over the store's limit) leaves the others.
                value = "failed: \(error.message.prefix(80))"
            }
            progress("  \(name)\(round): \(value)")
            rows.append(
                BenchmarkRow(
                    metric: (name.hasSuffix(" days") ? name : name + ", 30 days") + round, value: value,
                    note: "ClickHouse, \(Measure.grouped(stored)) events, "
                        + (runs > 1 ? "median of \(runs) runs (fastest–slowest)" : "once")))
        }
        return rows
    }

    /// The events runs of ``multipliedRows()`` sent after their round, this one's too.
    func lateEvents(database: String) throws -> Int {
        // None in a database not made yet (a fresh cluster's first run).
        guard try rowCount(database: database, table: "events_local") > 0 else { return 0 }
        let answer = try ClusterState.query(
            "SELECT count() FROM \(database).events WHERE position(message_id, '~late') != 0",
            on: cluster.shards[0])
        return Int(answer.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Rows of a local table on every shard (every copy, merged or not).
    func rowCount(database: String, table: String) throws -> Int {
        var rows = 0
        for node in cluster.shards {
            let answer = try ClusterState.query(
                "SELECT sum(rows) FROM system.parts WHERE active AND database = '\(database)' AND table = '\(table)'",
                on: node)
            rows += Int(answer.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        return rows
    }
}

/// Column `name` of copy `copy` of the generated events, in ClickHouse's SQL or (`sqlite`)
/// SQLite's: an id of a person, device, session or event gets `~copy` appended (an empty id stays
/// empty, NULL stays NULL); copy 0 and every other column stay as they are. Both stores' copies
/// (this suite's and the `reports` suite's) are made by it.
func copiedColumn(_ name: String, copy: Int, sqlite: Bool = false) -> String {
    let ids: Set = [
        "device", "message_id", "session_key", "batch_key", "anonymous_id", "user_id", "session_id",
    ]
    guard copy > 0, ids.contains(name) else { return name }
    return sqlite
        ? "CASE WHEN \(name) IS NULL OR \(name) = '' THEN \(name) ELSE \(name) || '~\(copy)' END"
        // concat of NULL is NULL.
        : "if(\(name) = '', \(name), concat(\(name), '~\(copy)'))"
}

/// Two collectors on the cluster's collector ports, started by the benchmark with an insert
/// interval in place of the ones scripts/cluster.sh started (stopped first); HAProxy's health
/// checks send to them once they answer.
private final class CollectorSet {
    private var processes: [ServeProcess] = []
    /// Process name → pid, named like the cluster's (`collector1` …).
    var pids: [String: Int32] {
        Dictionary(
            uniqueKeysWithValues: processes.enumerated().map { ("collector\($0.offset + 1)", $0.element.pid) }
        )
    }

    /// The collectors' spool directories (none without a spool).
    private(set) var spools: [String] = []

    /// Starts a collector on each of the cluster's collector ports with `setting`, each with a
    /// spool of its own under `spools` when the setting spools.
    init(bench: ClusterBench, setting: CollectorSetting, spools: String) throws {
        for (index, port) in bench.cluster.collectorPorts.enumerated() {
            // The collector scripts/cluster.sh started, when it still runs.
            let pidFile = bench.state + "/collector\(index + 1)/pid"
            if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), kill(pid, 0) == 0
            {
                kill(pid, SIGTERM)
                let deadline = Date().addingTimeInterval(60)
                while kill(pid, 0) == 0, Date() < deadline { usleep(50_000) }
                try? FileManager.default.removeItem(atPath: pidFile)
            }
            processes.append(
                try ServeProcess(
                    executable: URL(fileURLWithPath: bench.footprint),
                    database: bench.state + "/metadata.sqlite",
                    port: port,
                    arguments: [
                        "--store", bench.cluster.clickHouseURL, "--trusted-proxy", "127.0.0.1",
                        "--admin-token", bench.cluster.adminToken,
                    ] + setting.arguments
                        + (setting.spools ? ["--spool", spools + "/collector\(index + 1)"] : [])))
            if setting.spools { self.spools.append(spools + "/collector\(index + 1)") }
        }
        // HAProxy checks every second and takes a collector back after one good check.
        Thread.sleep(forTimeInterval: 2.5)
    }

    func stop() {
        for process in processes { process.stop() }
        processes = []
    }

    /// Waits (at most 5 minutes) until no spool holds a segment: every answered row is shipped.
    func waitUntilShipped() {
        let deadline = Date().addingTimeInterval(300)
        while Date() < deadline,
            spools.contains(where: { spool in
                ((try? FileManager.default.contentsOfDirectory(atPath: spool)) ?? []).contains {
                    $0.hasSuffix(".segment")
                }
            })
        {
            usleep(20_000)
        }
    }
}

/// How the bench runs the collectors: an insert interval, with or without a spool each.
private struct CollectorSetting: Hashable {
    /// `--insert-interval`, in milliseconds.
    var interval: Int
    /// Whether each collector runs with `--spool`.
    var spools: Bool
    /// With a spool, `--spool-segment-rows` and `--spool-segment-ms`.
    var segmentRows = 10_000
    var segmentMilliseconds = 1_000
    /// `--replication-wait`, in milliseconds; `nil` for the collectors' default.
    var replicationWait: Int?

    var name: String {
        (spools
            ? "spool, shipped in bulk, segments of \(Measure.grouped(segmentRows)) rows or \(Measure.grouped(segmentMilliseconds)) ms"
            : "insert interval \(interval) ms")
            + (replicationWait.map { ", replication wait \($0) ms" } ?? "")
    }

    /// The collectors' options for it, besides the store and its spool folder.
    var arguments: [String] {
        ["--insert-interval", String(interval)]
            + (spools
                ? [
                    "--spool-segment-rows", String(segmentRows), "--spool-segment-ms",
                    String(segmentMilliseconds),
                ]
                : []) + (replicationWait.map { ["--replication-wait", String($0)] } ?? [])
    }
}

/// Writes a progress line of a long suite to standard error (unbuffered, so it shows in a log
/// as it comes; the tables go to standard output at the end).
func progress(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// A benchmark that cannot run.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
}

/// A ClickHouse server of the cluster.
private struct ClickHouseNode {
    var host: String
    var port: UInt16
}

/// What scripts/cluster.sh started: its cluster.env and pid files.
private struct ClusterState {
    var haproxyPort: UInt16
    var writeKey: String
    var clickHouseURL: String
    /// Every ClickHouse server of the store URL (each replica of each shard).
    var shards: [ClickHouseNode]
    /// The collectors' ports (`FOOTPRINT_COLLECTOR_URLS`).
    var collectorPorts: [UInt16]
    var adminToken: String
    /// Process name → pid: collectors, shards, HAProxy.
    var processes: [String: Int32]

    init(folder: String) throws {
        let text = try String(contentsOfFile: folder + "/cluster.env", encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = line[line.index(after: equals)...].trimmingCharacters(
                in: CharacterSet(charactersIn: "'"))
        }
        guard let haproxy = values["FOOTPRINT_HAPROXY_URL"], let port = haproxy.split(separator: ":").last,
            let haproxyPort = UInt16(port), let writeKey = values["FOOTPRINT_WRITE_KEY"],
            let url = values["FOOTPRINT_CLICKHOUSE_URL"]
        else {
            throw BenchmarkFailure(
                description: "\(folder)/cluster.env lacks HAProxy, write key or ClickHouse URL")
        }
        self.haproxyPort = haproxyPort
        collectorPorts = (values["FOOTPRINT_COLLECTOR_URLS"] ?? "").split(separator: ",").compactMap {
            $0.split(separator: ":").last.flatMap { UInt16($0) }
        }
        adminToken = values["FOOTPRINT_ADMIN_TOKEN"] ?? ""
        self.writeKey = writeKey
        clickHouseURL = url
        let shards = url.split(separator: "shards=").last.map { $0.prefix { $0 != "&" } } ?? ""
        self.shards = shards.split(separator: ",").compactMap {
            let parts = $0.split(separator: ":")
            guard parts.count == 2, let port = UInt16(parts[1]) else { return nil }
            return ClickHouseNode(host: String(parts[0]), port: port)
        }
        processes = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let text = try? String(contentsOfFile: folder + "/\(name)/pid", encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { continue }
            processes[name] = pid
        }
    }

    /// Runs `sql` on the ClickHouse HTTP interface of `node` with `parameters` (settings) in the
    /// URL, waiting at most `timeout` seconds.
    static func query(
        _ sql: String, on node: ClickHouseNode, parameters: [String: String] = [:], timeout: Double = 600
    ) throws -> String {
        var components = URLComponents(string: "http://\(node.host):\(node.port)/")!
        if !parameters.isEmpty {
            components.queryItems = parameters.map { URLQueryItem(name: $0.key, value: $0.value) }
        }
        var request = URLRequest(url: components.url!, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = Data(sql.utf8)
        let done = DispatchSemaphore(value: 0)
        let answer = LockedAnswer()
        URLSession.shared.dataTask(with: request) { data, response, error in
            answer.set(data, (response as? HTTPURLResponse)?.statusCode, error)
            done.signal()
        }.resume()
        done.wait()
        let (data, status, error) = answer.get()
        guard status == 200, let data else {
            throw BenchmarkFailure(
                description:
                    "ClickHouse on \(node.host):\(node.port): \(error.map { "\($0)" } ?? String(decoding: data ?? Data(), as: UTF8.self))"
            )
        }
        return String(decoding: data, as: UTF8.self)
    }
}

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private final class LockedAnswer: @unchecked Sendable {
    private let lock = NSLock()
    private var value: (Data?, Int?, (any Error)?) = (nil, nil, nil)
    func set(_ data: Data?, _ status: Int?, _ error: (any Error)?) {
        lock.withLock { value = (data, status, error) }
    }
    func get() -> (Data?, Int?, (any Error)?) { lock.withLock { value } }
}

/// One ingest measurement and the CPU seconds each watched process spent in it.
private struct ClusterIngest {
    var rate: Double
    var events: Int
    var failures: Int
    var p50: Double
    var p99: Double
    var cpuSeconds: [String: Double]
    /// The ClickHouse requests the collectors sent and the connections they came on.
    var clickHouseExchanges: (requests: Int, connections: Int)?
    /// With spools: seconds from the last answer to the last row shipped.
    var shippedAfter: Double?

    /// Seconds of CPU per event, every process together.
    var cpuPerEvent: Double { cpuSeconds.values.reduce(0, +) / Double(max(1, events)) }
}

/// Runs the load generator against `port` and reads the CPU `processes` spent meanwhile.
/// With `drain` (collectors that spool), the CPU is read once it returns (every row shipped).
private func ingest(
    port: UInt16, writeKey: String, connections: Int, batches: Int, processes: [String: Int32],
    drain: (() -> Void)? = nil
)
    throws -> ClusterIngest
{
    let before = processes.mapValues(processCPUSeconds)
    let (summary, (after, shipped)) = try LoadGenerator.drive(
        port: port, writeKey: writeKey, connections: connections, batchesPerConnection: batches
    ) { () -> ([String: Double], Double?) in
        guard let drain else { return (processes.mapValues(processCPUSeconds), nil) }
        let answered = Date()
        drain()
        return (processes.mapValues(processCPUSeconds), Date().timeIntervalSince(answered))
    }
    return ClusterIngest(
        rate: summary.rate, events: summary.events, failures: summary.failures, p50: summary.p50,
        p99: summary.p99,
        cpuSeconds: cpuSpent(from: before, to: after), shippedAfter: shipped)
}

/// The CPU seconds each process spent between two readings of ``processCPUSeconds(_:)``.
private func cpuSpent(from before: [String: Double], to after: [String: Double]) -> [String: Double] {
    Dictionary(uniqueKeysWithValues: before.map { ($0.key, (after[$0.key] ?? 0) - $0.value) })
}

/// User + system CPU seconds of a running process, from `/proc/PID/stat` (0 when unreadable).
private func processCPUSeconds(_ pid: Int32) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = text.lastIndex(of: ")")
    else { return 0 }
    // After the command name: state is field 3; utime and stime are fields 14 and 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}
