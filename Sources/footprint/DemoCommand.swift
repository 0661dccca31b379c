import FootprintCommandLine
import FootprintDemo
import FootprintServer
import Foundation

/// `footprint demo`: plays the sample shop through the real SDK and an embedded server, prints
/// the report and checks it against what was generated; exits 1 when they differ.
enum DemoCommand: Command {
    static let name = "demo"
    static let summary = "play a sample shop through the SDK and a server, check the report"
    static let usage = """
        footprint demo [--users N] [--days N] [--seed N] [--store URL] [--serve]
          --users  virtual users (default 300)
          --days   simulated days (default 7)
          --seed   random seed; the same seed plays the same demo (default 2026)
          --store  keep the demo's events in ClickHouse: clickhouse://HOST:PORT/DATABASE[?cluster=NAME&shards=…]
                   (make cluster prints one; use a database of its own, e.g. …:PORT/demo?…)
          --serve  keep the server running on the demo data until Ctrl-C
        """

    /// Runs on the main thread, synchronously: an asynchronous main would park the main thread
    /// with every signal unblocked, and Ctrl-C would kill the server instead of stopping it.
    static func run(_ arguments: ArraySlice<String>) throws {
        let parsed = try CommandLineArguments(
            arguments, options: ["users", "days", "seed", "store"], flags: ["serve"])
        var configuration = DemoConfiguration()
        configuration.users = try parsed.integer("users", default: configuration.users, in: 1...100_000)
        configuration.days = try parsed.integer("days", default: configuration.days, in: 1...366)
        configuration.seed = UInt64(
            try parsed.integer("seed", default: Int(configuration.seed), in: 0...Int.max))
        if let text = parsed.options["store"] {
            let store = try StoreAccess.location(text, option: "store")
            guard let location = store.clickHouse else {
                throw UsageError(
                    description: "--store: the demo keeps SQLite events in a folder of its own; "
                        + "give a ClickHouse store (clickhouse://…) or leave --store out")
            }
            configuration.clickHouse = location
        }
        let serves = parsed.flags.contains("serve")
        // With --serve, SIGINT and SIGTERM are blocked before any thread starts (threads inherit
        // the mask) and taken by sigwait at the end, as `footprint serve` does.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        if serves { pthread_sigmask(SIG_BLOCK, &stopSignals, nil) }

        print(
            "Footprint demo: \(configuration.users) virtual users of a sample shop over "
                + "\(configuration.days) simulated days (seed \(configuration.seed)); events in "
                + DemoText.store(configuration))
        // Days are told on standard output; the users within a day, and the steps after the
        // last day, on standard error once the run takes over 2 s, at most once a second.
        var throttle = ProgressThrottle(start: ProcessInfo.processInfo.systemUptime)
        let outcome = try ShopDemo(configuration: configuration).runOnThisThread { progress in
            switch progress {
            case .serverStarted, .dayFinished:
                print(DemoText.progress(progress))
            case .userPlayed, .connectSessionStarted, .readingReport:
                if throttle.shouldShow(at: ProcessInfo.processInfo.systemUptime) {
                    Output.error(DemoText.progress(progress))
                }
            }
            fflush(nil)
        }
        let store = DemoText.store(configuration, directory: outcome.directory)
        print("")
        print(DemoText.report(outcome.report))
        print("")
        print(DemoText.comparison(outcome.comparison))
        print("")
        print(String(format: "Elapsed: %.1f s; events in ", outcome.elapsedSeconds) + store)
        fflush(nil)

        if serves {
            print("")
            print("Serving the demo data at \(outcome.server.baseURL)  (events in \(store))")
            print(
                "Dashboard: \(outcome.server.baseURL)/  (sign in with the admin token \(outcome.server.access.adminToken)); Screens shows the connect session's pages with their click maps"
            )
            print("Press Ctrl-C to stop.")
            fflush(nil)
            var received: Int32 = 0
            sigwait(&stopSignals, &received)
            print("Stopping...")
        }
        outcome.shutDown()
        if !outcome.comparison.allMatch { exit(1) }
    }
}
