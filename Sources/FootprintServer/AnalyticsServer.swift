import FootprintWire
import Foundation

/// The whole server in one object: the SQLite store, the API and the HTTP listener. Embed it
/// in tests and tools; `footprint serve` runs one.
///
/// ```swift
/// var configuration = AnalyticsServer.Configuration(databasePath: "/tmp/fp.sqlite")
/// configuration.http.port = 0  // any free port
/// let server = try AnalyticsServer(configuration: configuration)
/// print(server.baseURL, server.defaultProject?.writeKey ?? "")
/// server.stop()
/// ```
public final class AnalyticsServer: Sendable {
    /// Server settings.
    public struct Configuration: Sendable {
        /// The SQLite database file; created with its schema when missing.
        public var databasePath: String
        /// Where to listen and the connection limits (default `127.0.0.1`, port 0 = any free port).
        public var http = HTTPServer.Configuration()
        /// Rate limit and body limits of the API.
        public var api = IngestAPI.Configuration()
        /// Size limits, upload rate and retention of screen snapshots (`POST /v1/snapshots`).
        public var snapshots = SnapshotUploadAPI.Configuration()
        /// Lifetimes of connect sessions and how many a project has open.
        public var connectSessions = ConnectSession.Limits()
        /// Durability and reader pool of the store (with ``clickHouse``: of the metadata file).
        public var store = SQLiteEventStore.Configuration()
        /// Keep events in ClickHouse at this location (`footprint serve --store clickhouse://…`);
        /// ``databasePath`` then holds only projects, keys, config, definitions and tokens.
        /// Default `nil`: everything in the SQLite file.
        public var clickHouse: ClickHouseLocation?
        /// Time-outs and write grouping of the ClickHouse store (used with ``clickHouse``).
        public var clickHouseStore = ClickHouseEventStore.Configuration()
        /// Keep the metadata (projects, keys, config, definitions, tokens, sessions, snapshots) in
        /// PostgreSQL at this location instead of ``databasePath`` (`footprint serve --meta
        /// postgres://…`); needs ``clickHouse``, and no file is used or locked. Default `nil`.
        public var postgres: PostgresLocation?
        /// Connections and time-outs of the PostgreSQL metadata store (used with ``postgres``).
        public var postgresStore = PostgresMetadataStore.Configuration()
        /// The dashboard's admin token and the report API's read token (default: random ones,
        /// readable from ``AnalyticsServer/access``).
        public var access = AccessConfiguration()
        /// Threads that inflate, parse and validate ingest bodies (away from the HTTP event loop;
        /// the commit itself is the store writer's). Default: the CPU count, at least 2.
        public var ingestThreads = max(2, ProcessInfo.processInfo.activeProcessorCount)
        /// Threads that build reports and dashboard pages (away from the HTTP event loop).
        /// Default: the CPU count, at least 2.
        public var workerThreads = max(2, ProcessInfo.processInfo.activeProcessorCount)
        /// Report and dashboard requests waiting for a worker thread; past it they are answered
        /// 503 with `Retry-After`. Default 1,000.
        public var maximumQueuedWork = 1000
        /// A project created when the database has none, so a new server can take events at once.
        /// Default `"default"`; `nil` creates none.
        public var defaultProjectName: String? = "default"
        /// Days of events kept (whole UTC days before go, at least daily) for projects without
        /// their own retention (`footprint projects set NAME --retention-days N`). Default `nil`:
        /// everything is kept.
        public var retentionDays: Int?
        /// Refuse to start while another server that set it serves the same file (``StoreLock``:
        /// held exclusively with the events in the file, shared among the collectors of a
        /// ClickHouse store), until ``AnalyticsServer/stop()``. `footprint serve` sets it. Default
        /// `false`: servers embedded in one process (tests, tools) may share a file.
        public var locksDatabase = false

        /// Creates a configuration for the database at `databasePath`.
        public init(databasePath: String) {
            self.databasePath = databasePath
        }
    }

    /// The stores the server runs on: its metadata and its events (one SQLite file, or
    /// ClickHouse and a metadata file).
    public let stores: Stores
    /// The project created for a new database, or the first project of an existing one.
    public let defaultProject: Project?
    /// Whether this start created ``defaultProject``.
    public let createdDefaultProject: Bool
    /// The tokens of the dashboard and the report API.
    public let access: AccessConfiguration
    /// The port the server listens on.
    public var port: UInt16 { http.port }
    /// `http://HOST:PORT`, to send events to.
    public var baseURL: String {
        let host =
            http.configuration.host.contains(":") ? "[\(http.configuration.host)]" : http.configuration.host
        return "http://\(host):\(port)"
    }
    /// The counters `GET /metrics` shows.
    public let metrics: ServerMetrics
    /// How many requests are being handled right now.
    public var requestsInFlight: Int { http.requestsInFlight }
    /// The HTTP listener (its counters: ``HTTPServer/connectionsOpen``,
    /// ``HTTPServer/requestsInFlight``).
    public let http: HTTPServer
    /// Report and dashboard requests waiting for a worker thread.
    public var queuedWork: Int { workers.queued }
    /// Where reports and dashboard pages are built.
    private let workers: WorkerPool
    /// Where ingest bodies are decoded.
    private let decoders: WorkerPool
    /// Deletes events past their retention.
    private let retention: RetentionSchedule
    /// The requests' clock: today, for reports of a project without events.
    private let clock: any Clock
    /// The database's lock, with ``Configuration/locksDatabase``.
    private let lock: StoreLock?

    /// Starts listening, then opens the database (so that a port in use leaves no database
    /// file behind): requests that come before it is open are answered 503.
    public init(configuration: Configuration) throws(ServerError) {
        let handler = LockedValue<(@Sendable (ServerRequest, ServerResponder) -> Void)?>(nil)
        let http = try HTTPServer(configuration: configuration.http) { request, responder in
            guard let handle = handler.withLock({ $0 }) else {
                responder.respond(
                    .error(
                        503, code: "starting", message: "the server is starting; retry",
                        headers: ["Retry-After": "1"]))
                return
            }
            handle(request, responder)
        }
        let lock: StoreLock?
        let stores: Stores
        var project: Project?
        var created = false
        do throws(ServerError) {
            lock =
                configuration.locksDatabase && configuration.postgres == nil
                ? try StoreLock(
                    databasePath: configuration.databasePath,
                    mode: configuration.clickHouse == nil ? .exclusive : .shared) : nil
            stores = try Self.openStores(configuration)
            do throws(ServerError) {
                project = try stores.metadata.projects().first
                if project == nil, let name = configuration.defaultProjectName {
                    project = try stores.metadata.createProject(named: name)
                    created = true
                }
            } catch {
                stores.close()
                throw error
            }
        } catch {
            http.stop()
            throw error
        }
        let metrics = ServerMetrics()
        let api = IngestAPI(stores: stores, configuration: configuration.api, metrics: metrics)
        // One allowance of wrong tokens for the dashboard's sign-in, the report API and /metrics.
        let signIns = LockedValue(SignInLimiter(access: configuration.access))
        let reports = ReportAPI(stores: stores, access: configuration.access, signIns: signIns)
        let screenAPI = ScreenAPI(
            stores: stores, access: configuration.access, signIns: signIns,
            limits: configuration.connectSessions)
        let uploads = SnapshotUploadAPI(
            stores: stores, configuration: configuration.snapshots, metrics: metrics)
        let dashboard = Dashboard(
            stores: stores, access: configuration.access, signIns: signIns,
            connectSessions: configuration.connectSessions)
        let metricsAPI = MetricsAPI(
            metrics: metrics,
            bearer: BearerAuthorization(
                access: configuration.access, signIns: signIns, store: stores.metadata))
        let workers = WorkerPool(
            name: "footprint.worker", threads: configuration.workerThreads,
            maximumQueued: configuration.maximumQueuedWork)
        // One decode waits per connection at most, so the connection limit bounds its queue.
        let decoders = WorkerPool(
            name: "footprint.ingest", threads: configuration.ingestThreads,
            maximumQueued: max(1, configuration.http.connectionLimit))
        // Health, metrics and remote config are answered on the event loop. Ingest bodies are
        // decoded on `decoders` and answered when the writer's commit calls back; reports and
        // dashboard pages, which may take long, are built on `workers`. Every answer is
        // counted by status on its way out.
        handler.withLock {
            $0 = { request, connection in
                let responder = ServerResponder { response in
                    metrics.countResponse(status: response.status)
                    connection.respond(response)
                }
                let isScreens = ScreenAPI.serves(request.path)
                let isReport = isScreens || ReportAPI.serves(request.path)
                if SnapshotUploadAPI.takes(request) {
                    // A snapshot (up to a few MB of JSON) is decoded and stored away from the event loop.
                    if !workers.submit({ responder.respond(uploads.handle(request)) }) {
                        responder.respond(Self.busy("too many requests are waiting"))
                    }
                } else if request.path == "/metrics" {
                    responder.respond(metricsAPI.handle(request))
                } else if !isReport, IngestAPI.takesEvents(request.path), request.method == "POST" {
                    if !decoders.submit({ api.handle(request, responder: responder) }) {
                        responder.respond(Self.busy("too many batches are waiting to be decoded"))
                    }
                } else if !isReport, request.path.hasPrefix("/v1/") || request.path == "/health" {
                    api.handle(request, responder: responder)
                } else if !workers.submit({
                    responder.respond(
                        isScreens
                            ? screenAPI.handle(request)
                            : isReport ? reports.handle(request) : dashboard.handle(request))
                }) {
                    responder.respond(Self.busy("too many report requests are waiting"))
                }
            }
        }
        self.http = http
        self.lock = lock
        self.workers = workers
        self.decoders = decoders
        self.stores = stores
        self.metrics = metrics
        metrics.setRequestsInFlight { [http] in http.requestsInFlight }
        metrics.setConnections { [http] in (http.connectionsOpen, http.connectionsEvicted) }
        if let cache = (stores.metadata as? any MetadataCaching)?.cache {
            metrics.setMetadataCache { cache.reading() }
        }
        if let clickhouse = stores.events as? ClickHouseEventStore {
            metrics.setClickHouseWrites { clickhouse.writeReading }
        }
        self.clock = configuration.http.clock
        self.retention = RetentionSchedule(
            stores: stores, clock: configuration.http.clock,
            configuration: RetentionSchedule.Configuration(defaultDays: configuration.retentionDays))
        self.access = configuration.access
        self.defaultProject = project
        self.createdDefaultProject = created
    }

    /// Stops accepting connections, answers the requests in flight, commits and closes the
    /// database. Safe to call twice.
    public func stop() {
        retention.stop()
        http.stop()
        workers.stop()
        decoders.stop()
        stores.close()
        lock?.release()
    }

    /// Opens the ClickHouse store and its metadata (a file, or PostgreSQL), or the SQLite file,
    /// which must keep its own events (a ClickHouse store's metadata file is refused, naming the
    /// store).
    private static func openStores(_ configuration: Configuration) throws(ServerError) -> Stores {
        var options = Stores.Options()
        options.sqlite = configuration.store
        options.clickHouse = configuration.clickHouseStore
        options.clickHouse.maximumReportEvents = configuration.store.maximumReportEvents
        options.postgres = configuration.postgresStore
        return try Stores.open(
            metadata: configuration.postgres.map { .postgres($0) }
                ?? .sqlite(path: configuration.databasePath),
            events: configuration.clickHouse.map { .clickHouse($0) }, options: options)
    }

    /// 503 with `Retry-After`: a queue of work is full.
    private static func busy(_ reason: String) -> ServerResponse {
        .error(503, code: "busy", message: "\(reason); retry later", headers: ["Retry-After": "2"])
    }

    /// The overview report of a project of this server's store
    /// (``ReportService/overview(project:parameters:)``).
    /// - Parameters:
    ///   - project: the project's name.
    ///   - query: report parameters as in a query string (`from`, `to`, `app_version`, `os`,
    ///     `page`); the range defaults to the days of the project's oldest to newest event.
    public func report(project: String, query: [String: String] = [:]) throws(ServerError) -> Report {
        let service = ReportService(stores: stores)
        let found = try service.project(named: project)
        return try service.overview(
            project: found,
            parameters: try service.parametersCoveringEveryEvent(
                project: found, query: query, now: clock.now()))
    }
}

extension Report {
    /// Builds the overview report of a project from any Footprint database file, opened
    /// read-only (a running server may be writing it), through ``ReportService``.
    /// - Parameters:
    ///   - databasePath: the SQLite database.
    ///   - project: the project's name; `nil` for the first project.
    ///   - query: report parameters as in a query string (`from`, `to`, `app_version`, `os`,
    ///     `page`); the range defaults to the days of the project's oldest to newest event.
    ///   - now: today, for a project without events. Default: the system clock.
    ///   - clickHouse: where the events are, when in ClickHouse (`databasePath` then holds the
    ///     projects); default `nil`: in the database file, which must keep its own events (the
    ///     metadata file of a ClickHouse store is refused, naming the store).
    public static func load(
        databasePath: String, project: String? = nil, query: [String: String] = [:],
        now: Timestamp = SystemClock().now(), clickHouse: ClickHouseLocation? = nil
    ) throws(ServerError) -> Report {
        guard FileManager.default.fileExists(atPath: databasePath) else {
            throw ServerError(code: .storage, message: "no database at \(databasePath)")
        }
        var options = Stores.Options()
        options.sqlite.readOnly = true
        let stores = try Stores.open(
            metadata: .sqlite(path: databasePath), events: clickHouse.map { .clickHouse($0) },
            options: options)
        defer { stores.close() }
        let found: Project
        do {
            found = try ReportService(stores: stores).project(named: project)
        } catch  where error.code == .project && project == nil {
            throw ServerError(code: .project, message: "the database \(databasePath) has no project")
        }
        return try load(from: stores, project: found, query: query, now: now)
    }

    /// Builds the overview report of a project from stores already open (the metadata in a file
    /// or PostgreSQL, the events in the file or ClickHouse), through ``ReportService``.
    /// - Parameters:
    ///   - stores: where the project and its events are.
    ///   - project: the project.
    ///   - query: report parameters as in a query string (`from`, `to`, `app_version`, `os`,
    ///     `page`); the range defaults to the days of the project's oldest to newest event.
    ///   - now: today, for a project without events. Default: the system clock.
    public static func load(
        from stores: Stores, project: Project, query: [String: String] = [:],
        now: Timestamp = SystemClock().now()
    ) throws(ServerError) -> Report {
        let service = ReportService(stores: stores)
        return try service.overview(
            project: project,
            parameters: try service.parametersCoveringEveryEvent(project: project, query: query, now: now))
    }
}
