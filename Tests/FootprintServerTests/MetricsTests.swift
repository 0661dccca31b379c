import FootprintServer
import FootprintWire
import Foundation
import Testing

/// `GET /metrics`: the exposition format (pure), who may read it, and what it counts over a real
/// loopback socket.
struct MetricsTests {
    /// The sample lines of an exposition, by `name{labels}`.
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            let value = line[line.index(after: space)...]
            samples[String(line[..<space])] = value == "+Inf" ? .infinity : Double(value)
        }
        return samples
    }

    @Test func expositionIsPrometheusTextFormat() {
        var snapshot = MetricsSnapshot()
        snapshot.requestsByStatus = [200: 5, 400: 1, 429: 2]
        snapshot.eventsStored = 40
        snapshot.eventsDuplicate = 3
        snapshot.eventsRejected = 1
        snapshot.snapshotsStored = 4
        snapshot.snapshotsRefused = ["unknown_connect_token": 2, "rate_limited": 1]
        snapshot.observeCommit(seconds: 0.004)
        snapshot.observeCommit(seconds: 0.2)
        snapshot.observeCommit(seconds: 30)
        snapshot.connectionsOpen = 7
        snapshot.connectionsEvicted = 3
        snapshot.queueDepth = 2
        snapshot.requestsInFlight = 1
        snapshot.metadataCache = MetadataCacheReading(
            reachable: false, secondsSinceRefresh: 2.5, revision: 41)
        snapshot.unsettledMessages = 12
        snapshot.unsettledMessagesGivenUp = 0
        snapshot.cutInsertsRepaired = 2
        snapshot.replicasPassedOver = 3
        snapshot.replicationTimeouts = 1
        snapshot.tiedMessages = 4
        let text = snapshot.exposition()
        #expect(text.hasSuffix("\n"))
        #expect(
            text.contains(
                "footprint_http_requests_total{code=\"200\"} 5\nfootprint_http_requests_total{code=\"400\"} 1\n"
            ))
        #expect(text.contains("footprint_events_total{outcome=\"stored\"} 40\n"))
        #expect(text.contains("# TYPE footprint_http_connections_evicted_total counter\n"))
        #expect(text.contains("footprint_http_connections_evicted_total 3\n"))
        #expect(text.contains("footprint_events_total{outcome=\"duplicate\"} 3\n"))
        #expect(text.contains("footprint_events_total{outcome=\"rejected\"} 1\n"))
        #expect(text.contains("footprint_snapshots_total{outcome=\"stored\"} 4\n"))
        #expect(text.contains("footprint_snapshots_total{outcome=\"duplicate\"} 0\n"))
        #expect(
            text.contains(
                "footprint_snapshots_refused_total{reason=\"rate_limited\"} 1\nfootprint_snapshots_refused_total{reason=\"unknown_connect_token\"} 2\n"
            ))
        #expect(text.contains("footprint_commit_duration_seconds_bucket{le=\"0.0025\"} 0\n"))
        #expect(text.contains("footprint_commit_duration_seconds_bucket{le=\"0.005\"} 1\n"))
        #expect(text.contains("footprint_commit_duration_seconds_bucket{le=\"0.25\"} 2\n"))
        #expect(text.contains("footprint_commit_duration_seconds_bucket{le=\"10\"} 2\n"))
        #expect(text.contains("footprint_commit_duration_seconds_bucket{le=\"+Inf\"} 3\n"))
        #expect(text.contains("footprint_commit_duration_seconds_sum 30.204\n"))
        #expect(text.contains("footprint_commit_duration_seconds_count 3\n"))
        #expect(text.contains("footprint_http_connections_open 7\n"))
        #expect(text.contains("footprint_ingest_queue_depth 2\n"))
        #expect(text.contains("footprint_http_requests_in_flight 1\n"))
        #expect(
            text.contains(
                "# TYPE footprint_metadata_store_reachable gauge\nfootprint_metadata_store_reachable 0\n"))
        #expect(text.contains("footprint_metadata_cache_age_seconds 2.5\n"))
        #expect(text.contains("footprint_metadata_cache_revision 41\n"))
        #expect(text.contains("# TYPE footprint_unsettled_messages gauge\nfootprint_unsettled_messages 12\n"))
        #expect(text.contains("footprint_unsettled_messages_given_up_total 0\n"))
        #expect(
            text.contains(
                "# TYPE footprint_cut_inserts_repaired_total counter\nfootprint_cut_inserts_repaired_total 2\n"
            ))
        #expect(
            text.contains(
                "# TYPE footprint_replicas_passed_over_total counter\nfootprint_replicas_passed_over_total 3\n"
            ))
        #expect(text.contains("footprint_replication_timeouts_total 1\n"))
        #expect(
            text.contains("# TYPE footprint_tied_messages_total counter\nfootprint_tied_messages_total 4\n"))
        #expect(!MetricsSnapshot().exposition().contains("footprint_tied"))
        #expect(!MetricsSnapshot().exposition().contains("footprint_unsettled"))
        #expect(!MetricsSnapshot().exposition().contains("footprint_replica"))

        // Every family is announced (HELP, then TYPE) before its samples; every sample line is
        // `name{labels} value` with a number; a histogram's buckets only grow.
        var announced: [String: String] = [:]
        var lastBucket = -1.0
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("# HELP ") {
                #expect(line.split(separator: " ").count > 3, "HELP without text: \(line)")
                continue
            }
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                #expect(parts.count == 4 && ["counter", "gauge", "histogram"].contains(String(parts[3])))
                announced[String(parts[2])] = String(parts[3])
                continue
            }
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            let family = announced[name] != nil ? name : String(name.prefix(upTo: name.lastIndex(of: "_")!))
            #expect(announced[family] != nil, "a sample before its TYPE: \(line)")
            #expect(
                line.range(of: #"^[a-z_]+(\{[a-z]+="[^"]*"\})? [0-9.+Inf]+$"#, options: .regularExpression)
                    != nil, "\(line)")
            if name.hasSuffix("_bucket") {
                let value = Self.samples(line)[String(line[..<line.lastIndex(of: " ")!])]!
                #expect(value >= lastBucket)
                lastBucket = value
            }
        }
        #expect(announced["footprint_commit_duration_seconds"] == "histogram")
        #expect(announced["footprint_events_total"] == "counter")
    }

    @Test func commitLatenciesFallInTheFirstBucketThatHoldsThem() {
        var snapshot = MetricsSnapshot()
        for seconds in [0.0005, 0.001, 0.0011, 10, 10.5, -1, .nan, .infinity] {
            snapshot.observeCommit(seconds: seconds)
        }
        let bounds = MetricsSnapshot.commitLatencyBounds
        #expect(snapshot.commitLatencyBuckets.count == bounds.count + 1)
        // 0.0005, 0.001 (bounds are inclusive), and -1, NaN, infinity counted as 0 s.
        #expect(snapshot.commitLatencyBuckets[0] == 5)
        #expect(snapshot.commitLatencyBuckets[1] == 1)
        #expect(snapshot.commitLatencyBuckets[bounds.firstIndex(of: 10)!] == 1)
        #expect(snapshot.commitLatencyBuckets[bounds.count] == 1)
        #expect(snapshot.commitLatencySum.isFinite)
    }

    @Test func addressesAreWrittenAsConnectionsShowThem() {
        #expect(AccessConfiguration.canonicalAddress("127.0.0.2") == "127.0.0.2")
        #expect(AccessConfiguration.canonicalAddress("::ffff:10.0.0.9") == "10.0.0.9")
        #expect(AccessConfiguration.canonicalAddress("0:0:0:0:0:0:0:1") == "::1")
        #expect(AccessConfiguration.canonicalAddress("2001:DB8:0::1") == "2001:db8::1")
        #expect(AccessConfiguration.canonicalAddress("localhost") == nil)
        #expect(AccessConfiguration.canonicalAddress("10.0.0.256") == nil)
    }

    @Test func metricsNeedTheReadTokenOrAListedAddress() throws {
        let fixture = try TestServer { $0.access.metricsAddresses = ["127.0.0.2", "::ffff:127.0.0.3"] }
        defer { fixture.shutDown() }
        let access = fixture.server.access
        let anonymous = try fixture.client.send("GET", "/metrics")
        #expect(anonymous.status == 401)
        let writeKey = try fixture.client.send(
            "GET", "/metrics", headers: ["Authorization": LoopbackClient.basic(fixture.writeKey)])
        #expect(writeKey.status == 401)
        let wrong = try fixture.client.send("GET", "/metrics", headers: ["Authorization": "Bearer fpr_wrong"])
        #expect(wrong.status == 401)
        for token in [access.readToken, access.adminToken] {
            let read = try fixture.client.send(
                "GET", "/metrics", headers: ["Authorization": "Bearer \(token)"])
            #expect(read.status == 200)
            #expect(read.headers["content-type"] == MetricsSnapshot.expositionContentType)
            #expect(read.text.contains("# TYPE footprint_events_total counter"))
        }
        for address in ["127.0.0.2", "127.0.0.3"] {
            #expect(try fixture.client.from(address).send("GET", "/metrics").status == 200)
        }
        #expect(try fixture.client.from("127.0.0.4").send("GET", "/metrics").status == 401)
        #expect(try fixture.client.from("127.0.0.2").send("POST", "/metrics").status == 405)
    }

    @Test func metricsCountResponsesEventsAndCommits() throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let batch = Payloads.batch([
            Payloads.track("m-1"), Payloads.track("m-2"),
            #"{"type":"track","messageId":"m-3","anonymousId":"a"}"#,
        ])
        for _ in 0..<2 {
            #expect(
                try fixture.client.post("/v1/batch", json: batch, writeKey: fixture.writeKey).status == 200)
        }
        #expect(try fixture.client.post("/v1/batch", json: "{", writeKey: fixture.writeKey).status == 400)
        #expect(try fixture.client.send("GET", "/nowhere").status == 404)

        let response = try fixture.client.send(
            "GET", "/metrics", headers: ["Authorization": "Bearer \(fixture.server.access.readToken)"])
        let samples = Self.samples(response.text)
        #expect(samples["footprint_http_requests_total{code=\"200\"}"] == 2)
        #expect(samples["footprint_http_requests_total{code=\"400\"}"] == 1)
        #expect(samples["footprint_http_requests_total{code=\"404\"}"] == 1)
        #expect(samples["footprint_events_total{outcome=\"stored\"}"] == 2)
        #expect(samples["footprint_events_total{outcome=\"duplicate\"}"] == 2)
        #expect(samples["footprint_events_total{outcome=\"rejected\"}"] == 2)
        #expect(samples["footprint_commit_duration_seconds_count"] == 2)
        #expect(samples["footprint_commit_duration_seconds_bucket{le=\"+Inf\"}"] == 2)
        #expect(samples["footprint_ingest_queue_depth"] == 0)
        // The write-key cache of the file: confirmed by the ingest just now, the file reachable.
        #expect(samples["footprint_metadata_store_reachable"] == 1)
        #expect((samples["footprint_metadata_cache_age_seconds"] ?? 99) < 5)
        #expect((samples["footprint_metadata_cache_revision"] ?? 0) >= 1)
        // The request that reads the metrics is in flight (an earlier one may still be finishing:
        // the server ends a request after its answer has reached the client).
        #expect((samples["footprint_http_requests_in_flight"] ?? 0) >= 1)
        // Counted after it is answered, so the next reading includes it.
        let again = try fixture.client.send(
            "GET", "/metrics", headers: ["Authorization": "Bearer \(fixture.server.access.readToken)"])
        #expect(Self.samples(again.text)["footprint_http_requests_total{code=\"200\"}"] == 3)
    }

    /// Snapshot uploads over loopback: stored, resent and refused ones each counted once, the
    /// refusals by the code of their answer.
    @Test func metricsCountSnapshotsStoredAndRefusedByReason() throws {
        let fixture = try SnapshotUploadTests.Fixture()
        defer { fixture.server.shutDown() }
        let session = try fixture.startSession()
        let snapshot = SnapshotSamples.snapshot(token: session.token)
        #expect(try fixture.upload(snapshot).status == 201)
        #expect(try fixture.upload(snapshot).status == 200, "a resend")
        #expect(try fixture.upload(SnapshotSamples.snapshot(token: session.token)).status == 201)
        #expect(try fixture.upload(snapshot.jsonBytes, writeKey: nil).status == 401)
        #expect(try fixture.upload(Array("{".utf8), writeKey: fixture.server.writeKey).status == 400)
        for _ in 0..<2 {
            let foreign = SnapshotSamples.snapshot(token: "fpc_00000000000000000000000000000000")
            #expect(try fixture.upload(foreign).status == 403)
        }

        let text = try fixture.client.send("GET", "/metrics", headers: fixture.read).text
        let samples = Self.samples(text)
        #expect(samples["footprint_snapshots_total{outcome=\"stored\"}"] == 2)
        #expect(samples["footprint_snapshots_total{outcome=\"duplicate\"}"] == 1)
        #expect(samples["footprint_snapshots_refused_total{reason=\"missing_write_key\"}"] == 1)
        #expect(samples["footprint_snapshots_refused_total{reason=\"invalid_json\"}"] == 1)
        #expect(samples["footprint_snapshots_refused_total{reason=\"unknown_connect_token\"}"] == 2)
        #expect(samples.keys.filter { $0.hasPrefix("footprint_snapshots_refused_total") }.count == 3)
        #expect(text.contains("# TYPE footprint_snapshots_refused_total counter"))
        // Uploads are not events.
        #expect(samples["footprint_events_total{outcome=\"stored\"}"] == 0)
    }

    /// Past the most reasons the counters keep apart, further ones count as `other`.
    @Test func snapshotRefusalReasonsAreBounded() {
        let metrics = ServerMetrics()
        for index in 0..<(MetricsSnapshot.maximumRefusalReasons + 5) {
            metrics.countSnapshotRefused(reason: "reason_\(index)")
        }
        metrics.countSnapshotRefused(reason: "reason_0")
        let refused = metrics.snapshot().snapshotsRefused
        #expect(refused.count == MetricsSnapshot.maximumRefusalReasons + 1)
        #expect(refused["other"] == 5)
        #expect(refused["reason_0"] == 2)
    }
}
