import FootprintServer
import Foundation
import Testing

/// `footprint serve`'s connection options, as an operator passes them.
extension CommandLineTests {
    @Test func serveTakesTheConnectionOptionsAndSaysWhatItRunsWith() throws {
        let served = try run(
            [
                "serve", "--db", directory + "/serve.sqlite", "--port", "0", "--connection-limit", "500",
                "--connections-per-address", "50", "--trusted-proxy", "10.0.0.0/8", "--trusted-proxy",
                "127.0.0.2",
                "--threads", "1", "--header-timeout", "5", "--body-timeout", "20", "--idle-timeout", "7",
            ], signalAfterStart: SIGTERM)
        #expect(served.status == 0, "\(served.error)")
        #expect(served.output.contains("limits:    500 connections (50 per address)"), "\(served.output)")
        #expect(served.output.contains("1 event-loop threads"))
        #expect(served.output.contains("X-Forwarded-For believed from 10.0.0.0/8, 127.0.0.2"))
        #expect(!served.output.contains("warning:"))
    }

    @Test func aConnectionLimitPastTheOpenFileLimitIsReported() throws {
        let hard = OpenFileLimit.current.hard
        try #require(hard < 900_000, "the hard open-file limit is too high to go past")
        let served = try run(
            ["serve", "--db", directory + "/serve.sqlite", "--port", "0", "--connection-limit", "1000000"],
            signalAfterStart: SIGTERM)
        #expect(served.status == 0, "\(served.error)")
        #expect(served.output.contains("warning:   the open-file limit is \(hard)"), "\(served.output)")
    }

    @Test(arguments: [
        ["--trusted-proxy", "proxy.example.com"], ["--trusted-proxy", "10.0.0.0/40"],
        ["--connections-per-address", "-1"], ["--threads", "0"], ["--header-timeout", "0"],
        ["--store", "http://127.0.0.1:8123/footprint"], ["--store", "clickhouse://127.0.0.1:8123/db;DROP"],
        ["--store", "clickhouse://127.0.0.1:8123/footprint?cluster=x')"],
        // An insert interval is for the ClickHouse store only, and at most 10 s.
        ["--insert-interval", "50"],
        ["--insert-interval", "10001", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        ["--insert-interval", "-1", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        // A spool is for the ClickHouse store only; its bound needs a spool and at least 64 KiB.
        ["--spool", "spool"],
        ["--spool-bytes", "1000000", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        ["--spool-bytes", "1000", "--spool", "spool", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        // Its segments: a spool's, 1,000 to 1,000,000 rows, 100 ms to 60 s.
        ["--spool-segment-rows", "50000", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        [
            "--spool-segment-rows", "999", "--spool", "spool", "--store",
            "clickhouse://127.0.0.1:8123/footprint",
        ],
        [
            "--spool-segment-rows", "1000001", "--spool", "spool", "--store",
            "clickhouse://127.0.0.1:8123/footprint",
        ],
        ["--spool-segment-ms", "2000"],
        ["--spool-segment-ms", "99", "--spool", "spool", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        [
            "--spool-segment-ms", "60001", "--spool", "spool", "--store",
            "clickhouse://127.0.0.1:8123/footprint",
        ],
        // The replication wait is the ClickHouse store's, at most 60 s.
        ["--replication-wait", "100"],
        ["--replication-wait", "60001", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        ["--replication-wait", "-1", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        // The settled session figures are the ClickHouse store's, a round at most once a day.
        ["--settle-interval", "60"],
        ["--settle-interval", "86401", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        ["--settle-interval", "-1", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        ["--settle-window", "2"],
        ["--settle-window", "65", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        ["--settle-window", "-1", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        // A collector's tag is the ClickHouse store's, 0 to 15.
        ["--collector-tag", "1"],
        ["--collector-tag", "16", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        ["--collector-tag", "-1", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        // PostgreSQL keeps the metadata only with ClickHouse events, instead of the --db file.
        ["--meta", "postgres://fp@127.0.0.1:5432/meta"],
        ["--meta", "postgres://fp@127.0.0.1:5432/meta", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        ["--meta", "sqlite:other.sqlite", "--store", "clickhouse://127.0.0.1:8123/footprint"],
        ["--meta", "postgres://fp@127.0.0.1:5432/me;ta", "--store", "clickhouse://127.0.0.1:8123/footprint"],
    ])
    func badConnectionOptionsAreUsageErrors(_ arguments: [String]) throws {
        let result = try run(["serve", "--db", directory + "/serve.sqlite", "--port", "0"] + arguments)
        #expect(result.status == 64, "\(result.output) \(result.error)")
        #expect(result.error.contains(arguments[0]))
    }
}
