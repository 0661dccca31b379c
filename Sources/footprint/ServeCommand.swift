import FootprintCommandLine
import FootprintServer
import Foundation

/// `footprint serve`: runs the server until SIGINT or SIGTERM.
enum ServeCommand: Command {
    static let name = "serve"
    static let summary = "run the server: ingest, remote config, reports, dashboard"
    static let usage = """
        footprint serve [--host HOST] [--port PORT] [--db PATH] [--store URL] [--meta URL] [--connection-limit N]
                        [--connections-per-address N] [--trusted-proxy ADDR]... [--threads N]
                        [--idle-timeout S] [--header-timeout S] [--body-timeout S] [--rate-limit N]
                        [--admin-token TOKEN] [--read-token TOKEN] [--metrics-from ADDR]...
                        [--retention-days N] [--insert-interval MS] [--spool DIR [--spool-bytes N] [--spool-segment-rows N] [--spool-segment-ms MS]]
                        [--meta-cache-interval MS] [--replication-wait MS] [--settle-interval S] [--settle-window DAYS]
                        [--collector-tag N]
          --host              address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)
          --port              TCP port (default 8080; 0 = any free port)
          --db                SQLite database file (PATH or sqlite:PATH; default footprint.sqlite; created
                              when missing); with --store, it holds only projects, keys, config,
                              definitions and tokens. One server serves a file: a second is refused,
                              and so is a SQLite server on a file that became a ClickHouse store's
          --store             keep events in ClickHouse:
                              clickhouse://[user[:password]@]HOST:PORT/DATABASE[?cluster=NAME&shards=HOST:PORT,...]
                              (HTTP interface; user and password also from $FOOTPRINT_CLICKHOUSE_USER and
                              $FOOTPRINT_CLICKHOUSE_PASSWORD; default: events in the --db file)
          --meta              with --store: keep projects, keys, config, definitions, tokens and sessions
                              in PostgreSQL instead of the --db file (no file is used):
                              postgres://USER[:password]@HOST:PORT/DATABASE (user and password also from
                              $FOOTPRINT_POSTGRES_USER and $FOOTPRINT_POSTGRES_PASSWORD)
          --meta-cache-interval  with --meta: how long this collector's cached write keys and remote
                              configs answer before it checks PostgreSQL for changes, in milliseconds
                              (0 to 5000; default 1000): a revoked key or a published plan reaches
                              every collector within it; a new key works at once
          --connection-limit  most connections at once (default 10000; the open-file limit is raised to fit)
          --connections-per-address  most connections from one client address (default: no limit;
                              for a server without a proxy in front)
          --trusted-proxy     a proxy (address or CIDR block) whose X-Forwarded-For is believed for the
                              client address (repeatable; default: none)
          --threads           event-loop threads (default: the CPU count)
          --idle-timeout      seconds of silence before a connection is closed (default 10)
          --header-timeout    seconds a connection has to send a request head (default 10)
          --body-timeout      seconds a request has to send its body (default 30)
          --rate-limit        requests per second per write key (default: no limit)
          --admin-token       dashboard sign-in and API admin token (default: $FOOTPRINT_ADMIN_TOKEN, else random)
          --read-token        report API read token of every project (default: $FOOTPRINT_READ_TOKEN, else
                              random; one project's: footprint tokens create --project NAME)
          --metrics-from      an IP address that may read GET /metrics without a token (repeatable;
                              default: none, /metrics needs the read or admin token)
          --retention-days    keep N days of events (older whole days are deleted at least daily, with
                              their rollups) for projects without their own (default: keep everything)
          --insert-interval   with --store: the shortest time between two ClickHouse INSERTs of this
                              collector, in milliseconds (0 to 10000; default 0: the batches that came
                              during an INSERT go in the next one at once); a longer interval makes
                              fewer, larger INSERTs under load and delays each answer up to that long
          --spool             with --store: a directory for this collector's write-ahead spool (created
                              when missing; one collector per directory). A batch is answered once its
                              rows are fsynced there, and they are shipped to ClickHouse in bulk (one
                              INSERT per table per 10,000 rows or second); reports see them once
                              shipped. What the spool holds is shipped when the collector starts
                              again. Default: none (answered once every shard holds the rows)
          --spool-bytes       with --spool: the most bytes it holds before batches are answered 503
                              (default 1073741824)
          --spool-segment-rows  with --spool: the rows at which a segment is sealed and shipped (1000 to
                              1000000; default 10000); larger segments make fewer, larger parts (less
                              merging on the shards) and reports see the events later
          --spool-segment-ms  with --spool: the milliseconds after which a segment is sealed however few
                              rows it holds (100 to 60000; default 1000)
          --replication-wait  with --store on replicated shards: the most milliseconds a write waits,
                              once one replica of each shard holds its rows, for every live replica to
                              fetch them before it is answered (0 to 60000; default 5000); past it the
                              batch is answered 503. 0 answers without waiting: a replica's disk lost
                              in the moment before its twin fetched the rows then loses them
          --settle-interval   with --store: the seconds between two rounds of a project's settled session
                              figures (dwell, moves, session lengths) and people, made while its
                              sessions change (0 to 86400; default 300; 0 for none: those reports then
                              read every session and person). Shards without replicas only
          --settle-window     with --store: the latest days with sessions a round keeps per session too, so
                              that a report computes again only the sessions changed since on those days,
                              not every session of a day (0 to 64; default 2; 0 for none)
          --collector-tag     with --store: this collector's tag, the low bits of the sequence it gives
                              each stored copy of an event (0 to 15; default random). Give each
                              collector of a cluster its own: two collectors of one tag that store
                              copies of one message in the same 16 microseconds give both the same
                              sequence, and that message then counts twice
        """

    static func run(_ arguments: ArraySlice<String>) throws {
        // SIGINT and SIGTERM are blocked in every thread (threads inherit the mask, so this comes
        // first) and taken by sigwait below: no handler races with the server's threads.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

        let parsed = try CommandLineArguments(
            arguments,
            options: [
                "host", "port", "db", "store", "meta", "connection-limit", "connections-per-address",
                "trusted-proxy",
                "threads",
                "idle-timeout", "header-timeout", "body-timeout", "rate-limit", "admin-token", "read-token",
                "metrics-from", "retention-days", "insert-interval", "spool", "spool-bytes",
                "spool-segment-rows", "spool-segment-ms",
                "meta-cache-interval", "replication-wait", "settle-interval", "settle-window",
                "collector-tag",
            ],
            flags: [])
        let stores = try StoreAccess.stores(parsed)
        var configuration = AnalyticsServer.Configuration(databasePath: stores.databasePath)
        configuration.clickHouse = stores.clickHouse
        configuration.postgres = try StoreAccess.metadataLocation(parsed, clickHouse: stores.clickHouse)
        configuration.locksDatabase = true
        let environment = ProcessInfo.processInfo.environment
        configuration.clickHouseStore = try clickHouseStore(
            parsed, clickHouse: configuration.clickHouse != nil)
        if parsed.options["meta-cache-interval"] != nil {
            guard configuration.postgres != nil else {
                throw UsageError(description: "--meta-cache-interval needs --meta")
            }
            configuration.postgresStore.cacheSeconds =
                Double(try parsed.integer("meta-cache-interval", default: 1000, in: 0...5000)) / 1000
        }
        configuration.http.host = parsed.options["host"] ?? "127.0.0.1"
        configuration.http.port = UInt16(try parsed.integer("port", default: 8080, in: 0...65535))
        configuration.http.connectionLimit = try parsed.integer(
            "connection-limit", default: configuration.http.connectionLimit, in: 1...1_000_000)
        configuration.http.connectionLimitPerAddress = try parsed.integer(
            "connections-per-address", default: 0, in: 0...1_000_000)
        configuration.http.threads = try parsed.integer(
            "threads", default: configuration.http.threads, in: 1...256)
        configuration.http.idleTimeoutSeconds = try parsed.integer(
            "idle-timeout", default: configuration.http.idleTimeoutSeconds, in: 1...3600)
        configuration.http.headerDeadlineSeconds = Double(
            try parsed.integer(
                "header-timeout", default: Int(configuration.http.headerDeadlineSeconds), in: 1...3600))
        configuration.http.bodyDeadlineSeconds = Double(
            try parsed.integer(
                "body-timeout", default: Int(configuration.http.bodyDeadlineSeconds), in: 1...3600))
        for text in parsed.repeatedOptions["trusted-proxy"] ?? [] {
            do {
                configuration.http.trustedProxies.append(try AddressRange(text))
            } catch {
                throw UsageError(description: "--trusted-proxy: \(error.message)")
            }
        }
        if parsed.options["retention-days"] != nil {
            configuration.retentionDays = try parsed.integer("retention-days", default: 0, in: 1...36_500)
        }
        if let rate = try parsed.positiveNumber("rate-limit") {
            configuration.api.rateLimit = RateLimiter.Rate(requestsPerSecond: rate, burst: max(1, rate * 2))
        }
        if let token = parsed.options["admin-token"] ?? environment["FOOTPRINT_ADMIN_TOKEN"] {
            guard token.count >= 16 else {
                throw UsageError(description: "--admin-token: at least 16 characters")
            }
            configuration.access.adminToken = token
        }
        if let token = parsed.options["read-token"] ?? environment["FOOTPRINT_READ_TOKEN"] {
            guard token.count >= 16 else {
                throw UsageError(description: "--read-token: at least 16 characters")
            }
            configuration.access.readToken = token
        }
        for address in parsed.repeatedOptions["metrics-from"] ?? [] {
            guard AccessConfiguration.canonicalAddress(address) != nil else {
                throw UsageError(
                    description: "--metrics-from: \(address) is not an IPv4 or IPv6 address")
            }
            configuration.access.metricsAddresses.append(address)
        }
        let server: AnalyticsServer
        do {
            server = try AnalyticsServer(configuration: configuration)
        } catch {
            throw withFlagToChange(error)
        }
        let base = server.baseURL
        print("Footprint is listening on \(base)")
        let needed = configuration.http.connectionLimit + 256
        if server.http.openFileLimit < needed {
            print(
                "  warning:   the open-file limit is \(server.http.openFileLimit) (its hard limit); \(configuration.http.connectionLimit) connections need about \(needed): raise it (ulimit -Hn, LimitNOFILE=) or lower --connection-limit"
            )
        }
        print(
            "  limits:    \(configuration.http.connectionLimit) connections\(configuration.http.connectionLimitPerAddress > 0 ? " (\(configuration.http.connectionLimitPerAddress) per address)" : ""), open-file limit \(server.http.openFileLimit), \(configuration.http.threads) event-loop threads"
        )
        if !configuration.http.trustedProxies.isEmpty {
            print(
                "  proxies:   X-Forwarded-For believed from \(configuration.http.trustedProxies.map(\.description).joined(separator: ", "))"
            )
        }
        print(
            "  metadata:  \(configuration.postgres.map { "\($0) (PostgreSQL)" } ?? configuration.databasePath)"
        )
        if let location = configuration.clickHouse {
            print("  events:    \(location) (ClickHouse)")
        }
        if let spool = configuration.clickHouseStore.spoolDirectory {
            print(
                "  spool:     \(spool) (answered once fsynced there, shipped in bulk; at most \(configuration.clickHouseStore.spoolBytes) bytes)"
            )
        }
        if let project = server.defaultProject {
            print("  project:   \(project.name)\(server.createdDefaultProject ? " (created)" : "")")
            print("  write key: \(project.writeKey)")
        }
        print(
            "  ingest:    POST \(base)/v1/batch  (and /v1/track, /v1/screen, /v1/page, /v1/identify, /v1/alias, /v1/group)"
        )
        print("  config:    GET  \(base)/v1/config")
        print("  health:    GET  \(base)/health")
        print("  metrics:   GET  \(base)/metrics  (read token, or from --metrics-from addresses)")
        print("  dashboard: \(base)/  (sign in with the admin token: \(server.access.adminToken))")
        print(
            "  reports:   GET  \(base)/v1/reports/traffic  (every project: Authorization: Bearer \(server.access.readToken))"
        )
        print("Press Ctrl-C to stop.")
        fflush(nil)

        var received: Int32 = 0
        sigwait(&stopSignals, &received)
        print("Stopping: finishing requests in flight and closing the database...")
        fflush(nil)
        server.stop()
        print("Stopped.")
    }

    /// The ClickHouse store's settings from the options that tune it (`--insert-interval`,
    /// `--replication-wait`, `--settle-interval`, `--settle-window`, `--collector-tag`, `--spool`
    /// and its `--spool-…` options), each of which needs `--store` (`clickHouse`).
    static func clickHouseStore(_ parsed: CommandLineArguments, clickHouse: Bool) throws(UsageError)
        -> ClickHouseEventStore.Configuration
    {
        var store = ClickHouseEventStore.Configuration()
        let spoolOptions = ["spool-bytes", "spool-segment-rows", "spool-segment-ms"]
        for name in [
            "insert-interval", "spool", "replication-wait", "settle-interval", "settle-window",
            "collector-tag",
        ]
            + spoolOptions
        where parsed.options[name] != nil {
            guard clickHouse else { throw UsageError(description: "--\(name) needs --store") }
        }
        store.commitInterval =
            Double(try parsed.integer("insert-interval", default: 0, in: 0...10_000)) / 1000
        store.replicationWait =
            Double(
                try parsed.integer(
                    "replication-wait", default: Int(store.replicationWait * 1000), in: 0...60_000)) / 1000
        store.settledInterval = Double(
            try parsed.integer("settle-interval", default: Int(store.settledInterval), in: 0...86_400))
        store.settledWindowDays = try parsed.integer(
            "settle-window", default: store.settledWindowDays, in: 0...64)
        if parsed.options["collector-tag"] != nil {
            store.sequenceTag = UInt64(
                try parsed.integer(
                    "collector-tag", default: 0, in: 0...Int(ClickHouseEventStore.sequenceTags) - 1))
        }
        store.spoolDirectory = parsed.options["spool"]
        for name in spoolOptions where parsed.options[name] != nil && store.spoolDirectory == nil {
            throw UsageError(description: "--\(name) needs --spool")
        }
        store.spoolBytes = try parsed.integer(
            "spool-bytes", default: store.spoolBytes, in: 65_536...(1 << 50))
        store.spoolSealRows = try parsed.integer(
            "spool-segment-rows", default: store.spoolSealRows, in: 1_000...1_000_000)
        store.spoolSealInterval =
            Double(
                try parsed.integer(
                    "spool-segment-ms", default: Int(store.spoolSealInterval * 1000), in: 100...60_000))
            / 1000
        return store
    }

    /// A listener's failure with the flag that changes where it listens.
    static func withFlagToChange(_ error: ServerError) -> ServerError {
        guard error.code == .cannotListen else { return error }
        let flag =
            error.message.hasPrefix("cannot resolve")
            ? "check --host" : "use --port to pick another port (--port 0: any free one)"
        return ServerError(code: error.code, message: error.message + "; " + flag)
    }
}
