import Footprint
import FootprintServer
import FootprintWire
import Foundation
import Testing

/// Faults of the scale-out deployment, with real processes: a ClickHouse shard stopped while
/// the real SDK delivers through HAProxy, and a collector SIGKILLed under load. Nothing is lost,
/// nothing counts twice.
@Suite(.enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHouseFaultTests {
    /// The message ids stored in the cluster's database (each once, however often stored).
    static func storedMessageIds(_ cluster: CollectorCluster) throws -> Set<String> {
        Set(
            try cluster.query("SELECT DISTINCT message_id FROM \(cluster.database).events")
                .split(separator: "\n").map(String.init))
    }

    /// The events the traffic report counts from yesterday to today (a batch's `sentAt` moves
    /// its events to the server's time of receipt).
    static func reportedEvents(_ cluster: CollectorCluster) throws -> JSONValue? {
        let now = Timestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
        let from = now.adding(milliseconds: -86_400_000).dayString
        let response = try cluster.client.send(
            "GET", "/v1/reports/traffic?from=\(from)&to=\(now.dayString)",
            headers: ["Authorization": "Bearer \(cluster.readToken)"])
        return try JSONParser().parse(response.body)["events"]
    }

    /// Events the trackers delivered (answered 200).
    static func delivered(_ activities: [TrackerActivity]) -> Int {
        activities.reduce(0) { total, activity in
            if case .sent(let count, 200) = activity { total + count } else { total }
        }
    }

    /// Four phones' trackers (the real SDK) delivering through the cluster's HAProxy in batches
    /// of ten, resending soon after a failure (within `maximumRetryDelay` seconds), each
    /// reporting what it does to `activity`.
    static func phones(
        _ cluster: CollectorCluster, transport: RecordingTransport, activity: AwaitableLog<TrackerActivity>,
        maximumRetryDelay: Double = 0.01
    ) -> [Tracker] {
        (0..<4).map { phone in
            var configuration = Tracker.Configuration(
                writeKey: cluster.writeKey, serverURL: "http://127.0.0.1:\(cluster.haproxy.port)")
            configuration.storageDirectory = cluster.directory + "/phones/\(phone)"
            configuration.remoteConfigRefreshSeconds = nil
            configuration.transport = transport
            configuration.minimumRetryDelaySeconds = 0.001
            configuration.maximumRetryDelaySeconds = maximumRetryDelay
            configuration.flushAt = 10
            configuration.maximumBatchCount = 10
            configuration.observer = { activity.append($0) }
            configuration.log = { _ in }
            return Tracker(configuration: configuration)
        }
    }

    static func captured(_ activities: [TrackerActivity]) -> [String] {
        activities.compactMap { if case .captured(let message) = $0 { message.messageId } else { nil } }
    }

    /// Four phones deliver through HAProxy; the shard holding more of their events stops.
    /// Collectors answer 503 with Retry-After, the phones keep their queues, and after the shard
    /// returns every event is stored once.
    @Test(.timeLimit(.minutes(10)))
    func aStoppedShardIsAnswered503AndThePhonesDeliverEverythingOnceItReturns() async throws {
        let shards = try PrivateShards()
        defer { shards.stop() }
        let cluster = try CollectorCluster(baseURL: shards.url)
        defer { cluster.shutDown() }
        let activity = AwaitableLog<TrackerActivity>()
        let transport = RecordingTransport()
        let trackers = Self.phones(cluster, transport: transport, activity: activity)
        for tracker in trackers {
            for index in 0..<20 { tracker.track("Before", properties: ["index": .int(Int64(index))]) }
        }
        for tracker in trackers { await tracker.flushed() }
        #expect(await activity.wait { Self.delivered($0) >= 80 })

        let ports = ClickHouseTestEnvironment.shardPorts(cluster.url)
        let counts = try ports.map { port in
            try ClickHouseTestEnvironment.query(
                "SELECT count() FROM \(cluster.database).events_local", port: port
            ).trimmingCharacters(in: .whitespacesAndNewlines)
        }.map { Int($0) ?? 0 }
        let stopped = counts[0] >= counts[1] ? 1 : 2
        try shards.stopShard(stopped)

        // A batch from twenty devices has rows for the stopped shard: refused, to be resent.
        let probe = Payloads.batch((0..<20).map { Payloads.track("probe-\($0)", anonymousId: "probe-\($0)") })
        let refused = try cluster.client.post("/v1/batch", json: probe, writeKey: cluster.writeKey)
        #expect(refused.status == 503, "\(refused.text)")
        #expect(refused.headers["retry-after"] != nil)
        for tracker in trackers {
            for index in 0..<20 { tracker.track("During", properties: ["index": .int(Int64(index))]) }
            tracker.flush()
        }
        // A phone whose events live on the stopped shard is answered 503 and keeps them.
        #expect(await transport.exchanges.wait { $0.contains { $0.status == 503 } })

        try shards.startShard(stopped)
        var probeStatus = 0
        let deadline = Date().addingTimeInterval(120)
        while probeStatus != 200, Date() < deadline {
            probeStatus =
                (try? cluster.client.post("/v1/batch", json: probe, writeKey: cluster.writeKey))?.status ?? 0
            if probeStatus != 200 { usleep(100_000) }
        }
        #expect(probeStatus == 200)
        for tracker in trackers { tracker.flush() }
        let everything = await activity.wait { Self.delivered($0) >= Self.captured($0).count }
        #expect(everything)

        let captured = Self.captured(activity.all)
        #expect(captured.count >= 160)
        let expected = Set(captured).union((0..<20).map { "probe-\($0)" })
        #expect(try Self.storedMessageIds(cluster) == expected)
        #expect(try Self.reportedEvents(cluster) == .int(Int64(expected.count)))
    }

    /// Clients resend each batch until answered 200, through HAProxy; one of the two collectors
    /// is SIGKILLed mid-stream. HAProxy sends the rest to the other collector; every event is
    /// stored, and reports count each once.
    @Test(.timeLimit(.minutes(10)))
    func aKilledCollectorLosesNothingAndStoresNothingTwice() throws {
        let cluster = try CollectorCluster()
        defer { cluster.shutDown() }
        let expected = Self.killFirstCollectorUnderLoad(cluster)
        #expect(try Self.storedMessageIds(cluster) == expected)
        #expect(try Self.reportedEvents(cluster) == .int(Int64(expected.count)))
    }

    /// Four clients send 25 batches of 20 events each through HAProxy, each resent until
    /// answered 200; the cluster's first collector is SIGKILLed once a third are answered.
    /// Returns once every batch is answered, with the message ids sent.
    static func killFirstCollectorUnderLoad(
        _ cluster: CollectorCluster, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Set<String> {
        let clients = 4
        let batchesPerClient = 25
        let eventsPerBatch = 20
        let progress = SharedValue((answered: 0, failedAttempts: 0, finished: 0, abandoned: false))
        defer { progress.withLock { $0.abandoned = true } }
        let balancer = cluster.client
        let writeKey = cluster.writeKey
        for client in 0..<clients {
            Thread.detachNewThread {
                for index in 0..<batchesPerClient {
                    let body = Payloads.batch(
                        (0..<eventsPerBatch).map {
                            Payloads.track(
                                "c\(client)-b\(index)-e\($0)", anonymousId: "device-\(client)-\(index % 5)")
                        })
                    while !progress.withLock({ $0.abandoned }) {
                        if let response = try? balancer.post("/v1/batch", json: body, writeKey: writeKey),
                            response.status == 200
                        {
                            break
                        }
                        progress.withLock { $0.failedAttempts += 1 }
                        usleep(2000)
                    }
                    progress.withLock { $0.answered += 1 }
                }
                progress.withLock { $0.finished += 1 }
            }
        }
        let total = clients * batchesPerClient
        #expect(
            ServerKillTests.wait(seconds: 300) { progress.withLock { $0.answered } >= total / 3 },
            sourceLocation: sourceLocation)
        let killed = cluster.collectors[0]
        killed.stop(signal: SIGKILL)
        #expect(killed.process.terminationReason == .uncaughtSignal, sourceLocation: sourceLocation)
        #expect(
            progress.withLock { $0.answered } < total, "killed mid-stream", sourceLocation: sourceLocation)
        #expect(
            ServerKillTests.wait(seconds: 300) { progress.withLock { $0.finished } == clients },
            sourceLocation: sourceLocation)

        return Set(
            (0..<clients).flatMap { client in
                (0..<batchesPerClient).flatMap { index in
                    (0..<eventsPerBatch).map { "c\(client)-b\(index)-e\($0)" }
                }
            })
    }
}
