import FootprintServer
import FootprintSynthetic
import FootprintWire
import Foundation
import Testing

/// The scale-out deployment over real HTTP: two collectors (`footprint serve --store
/// clickhouse://…`) behind HAProxy in front of two ClickHouse shards give every report exactly
/// as a SQLite server fed the same requests does, whichever collector each request reaches and
/// however often it is resent; bad input is answered alike.
@Suite(.enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHouseClusterTests {
    /// Every definition the SQLite report tests use.
    static let definitions = EveryReport.definitions + RollupTests.definitions

    static func generated(seed: UInt64) -> SyntheticTraffic.Configuration {
        var configuration = RollupTests.synthetic(seed: seed)
        configuration.days = 6
        return configuration
    }

    /// The generated traffic's reports: its days, with each app version, system and some pages.
    static func generatedReportPaths(_ configuration: SyntheticTraffic.Configuration) -> [String] {
        let end = configuration.end
        let from = end.adding(milliseconds: -Int64(configuration.days + 1) * 86_400_000).dayString
        return ServerPair.reportPaths(
            from: from, to: end.dayString,
            filters: ["app_version=2.4.0", "os=iOS 18.1", "page=ProductList", "page=Home"],
            pages: ["Home", "ProductList", "Cart"], events: ["$element_click", "$item_exposure"],
            definitions: [
                "viewed-home", "bought", "any-product-cell", "share-anywhere", "mixed", "typed-buy",
            ])
    }

    @Test(.timeLimit(.minutes(10)))
    func theHandMadeDataSetGivesEveryReportAsSQLiteDoes() throws {
        let pair = try ServerPair()
        defer { pair.shutDown() }
        try pair.define(Self.definitions)
        // Without sentAt: each server takes the event times as sent.
        try pair.send(
            Payloads.batch(ReportFixture.messages).replacingOccurrences(
                of: #","sentAt":"2026-11-29T10:00:05.000Z""#, with: ""))
        let paths = ServerPair.reportPaths(
            from: "2026-11-01", to: "2026-11-03", filters: ["app_version=2.0", "os=iOS 17.2", "page=Detail"],
            pages: ["Home", "Detail"], events: ["$element_click", "$item_exposure"],
            definitions: ["viewed-home", "bought"])
        #expect(try pair.expectSameReports(paths) == paths.count)
        // The data set's known answers, so the agreement is not over empty reports.
        let traffic = try JSONParser().parse(
            pair.cluster.client.send(
                "GET", "/v1/reports/traffic?from=2026-11-01&to=2026-11-03",
                headers: ["Authorization": "Bearer \(pair.cluster.readToken)"]
            ).body)
        #expect(traffic["events"] == .int(10))
        #expect(traffic["pageViews"] == .int(5))
        #expect(traffic["people"] == .int(2), "a1 and a2 are u1")
    }

    @Test(.timeLimit(.minutes(10)), arguments: [UInt64(1), 2])
    func generatedTrafficGivesEveryReportAsSQLiteDoes(seed: UInt64) throws {
        let pair = try ServerPair()
        defer { pair.shutDown() }
        try pair.define(Self.definitions)
        let configuration = Self.generated(seed: seed)
        let batches = HTTPTraffic.batches(configuration, events: 2_500)
        for body in batches { try pair.send(body) }
        try pair.expectSameReports(Self.generatedReportPaths(configuration))
        // The events sit in ClickHouse, spread over both shards.
        let counts = try ClickHouseTestEnvironment.shardPorts(pair.cluster.url).map { port in
            Int(
                try ClickHouseTestEnvironment.query(
                    "SELECT count() FROM \(pair.cluster.database).events_local", port: port
                ).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        #expect(counts.count == 2 && counts.allSatisfy { $0 > 0 }, "\(counts)")
        #expect(counts.reduce(0, +) > (batches.count - 1) * 100)
    }

    /// Every batch reaches the cluster twice, through each collector once (every third batch
    /// to both at the same moment); every report equals the SQLite server's, fed each batch once.
    /// The collectors have tags of their own (``CollectorCluster/startCollector(spool:)``).
    @Test(.timeLimit(.minutes(10)))
    func everyBatchSentTwiceThroughTwoCollectorsChangesNoReport() throws {
        let pair = try ServerPair()
        defer { pair.shutDown() }
        try pair.define(Self.definitions)
        let configuration = Self.generated(seed: 3)
        let first = pair.clusterSide(collector: 0)
        let second = pair.clusterSide(collector: 1)
        for (index, body) in HTTPTraffic.batches(configuration, events: 2_000).enumerated() {
            let sqlite = try pair.sqliteSide.client.post(
                "/v1/batch", json: body, writeKey: pair.sqliteSide.writeKey)
            #expect(sqlite.status == 200)
            let answers = SharedList<LoopbackClient.Response?>()
            if index % 3 == 0 {
                let group = DispatchGroup()
                for side in [first, second] {
                    group.enter()
                    Thread.detachNewThread {
                        answers.append(
                            try? side.client.post("/v1/batch", json: body, writeKey: side.writeKey))
                        group.leave()
                    }
                }
                group.wait()
            } else {
                for side in index % 2 == 0 ? [first, second] : [second, first] {
                    answers.append(try? side.client.post("/v1/batch", json: body, writeKey: side.writeKey))
                }
            }
            let responses = answers.values
            #expect(responses.count == 2 && responses.allSatisfy { $0?.status == 200 }, "\(responses)")
        }
        try pair.expectSameReports(Self.generatedReportPaths(configuration))
        // Each collector has its own tag: no message's copies got one sequence (with one tag for
        // both, 2 of 3 runs had some, and those counted twice).
        #expect(pair.cluster.collectorMetric("footprint_tied_messages_total") == 0)
    }

    /// Hostile and broken requests get the same status, error and per-event rejections from the
    /// cluster (through HAProxy) as from the SQLite server, and the valid events of a partly
    /// refused batch count alike.
    @Test(.timeLimit(.minutes(5)))
    func badInputGetsTheSameAnswersAsSQLite() throws {
        let pair = try ServerPair()
        defer { pair.shutDown() }
        let good = Payloads.track("good-1", anonymousId: "hostile-1")
        let long = String(repeating: "x", count: MessageLimits.maximumEventBytes + 10)
        let mixed = Payloads.batch([
            good,
            #"{"type":"track","anonymousId":"hostile-1","event":"No Id","timestamp":"2026-11-29T10:00:00.000Z"}"#,
            #"{"type":"launch","messageId":"bad-type","anonymousId":"hostile-1"}"#,
            #"{"type":"track","messageId":"no-person","event":"Anonymous"}"#,
            Payloads.track("huge", anonymousId: "hostile-1").replacingOccurrences(of: "A-1", with: long),
            #"{"type":"track","messageId":"bad-time","anonymousId":"hostile-1","event":"E","timestamp":"yesterday"}"#,
            #"{"type":"screen","messageId":"screen-1","anonymousId":"hostile-2","name":"Home","timestamp":"2026-11-29T10:00:00.000Z"}"#,
            #"{"type":"identify","messageId":"identify-1","anonymousId":"hostile-2","userId":"u-hostile"}"#,
            "42",
        ])
        struct Probe {
            var method: String
            var path: String
            var body: String
            var writeKey: Bool = true
            var headers: [String: String] = ["Content-Type": "application/json"]
        }
        let probes = [
            Probe(method: "POST", path: "/v1/batch", body: mixed),
            Probe(method: "POST", path: "/v1/batch", body: mixed),
            Probe(method: "POST", path: "/v1/batch", body: "{\"batch\": [", writeKey: true),
            Probe(method: "POST", path: "/v1/batch", body: Payloads.batch([good]), writeKey: false),
            Probe(
                method: "POST", path: "/v1/batch", body: Payloads.batch([good]), writeKey: false,
                headers: ["Authorization": LoopbackClient.basic("fp_not_a_key")]),
            Probe(method: "POST", path: "/v1/batch", body: "{\"batch\":[]}"),
            Probe(method: "POST", path: "/v1/batch", body: "[1,2,3]"),
            Probe(
                method: "POST", path: "/v1/batch", body: "not gzip",
                headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"]),
            Probe(method: "GET", path: "/v1/batch", body: ""),
            Probe(
                method: "POST", path: "/v1/track", body: Payloads.track("single-1", anonymousId: "hostile-3")),
            Probe(method: "POST", path: "/v1/nowhere", body: "{}"),
        ]
        for probe in probes {
            var answers: [(status: Int, body: String, retryAfter: String?)] = []
            for side in [pair.sqliteSide, pair.clusterSide()] {
                var headers = probe.headers
                if probe.writeKey { headers["Authorization"] = LoopbackClient.basic(side.writeKey) }
                let response = try side.client.send(
                    probe.method, probe.path, headers: headers, body: Array(probe.body.utf8))
                let body =
                    (try? JSONParser().parse(response.body)).map { JSONWriter.string($0) } ?? response.text
                answers.append((response.status, body, response.headers["retry-after"]))
            }
            #expect(
                answers[0].status == answers[1].status,
                "\(probe.method) \(probe.path) \(probe.body.prefix(80))")
            #expect(
                answers[0].body == answers[1].body, "\(probe.method) \(probe.path) \(probe.body.prefix(80))")
            #expect(answers[0].retryAfter == answers[1].retryAfter)
        }
        try pair.expectSameReports(
            ServerPair.reportPaths(
                from: "2026-11-28", to: "2026-11-30", filters: [], pages: ["Home"],
                events: ["Product Viewed"],
                definitions: []))
    }
}
