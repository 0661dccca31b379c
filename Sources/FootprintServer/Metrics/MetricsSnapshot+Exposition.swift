extension MetricsSnapshot {
    /// The `Content-Type` of ``exposition()``: Prometheus' text format, version 0.0.4.
    public static let expositionContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The snapshot in Prometheus' text exposition format: every family with its `# HELP` and
    /// `# TYPE` lines, samples in a stable order, the histogram's buckets cumulative and ending
    /// with `le="+Inf"` equal to `_count`.
    public func exposition() -> String {
        var lines: [String] = []
        func family(_ name: String, _ type: String, _ help: String) {
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) \(type)")
        }
        family("footprint_http_requests_total", "counter", "HTTP responses sent, by status code.")
        for (status, count) in requestsByStatus.sorted(by: { $0.key < $1.key }) {
            lines.append("footprint_http_requests_total{code=\"\(status)\"} \(count)")
        }
        family(
            "footprint_events_total", "counter", "Events received, by outcome (stored, duplicate, rejected).")
        lines.append("footprint_events_total{outcome=\"stored\"} \(eventsStored)")
        lines.append("footprint_events_total{outcome=\"duplicate\"} \(eventsDuplicate)")
        lines.append("footprint_events_total{outcome=\"rejected\"} \(eventsRejected)")
        family(
            "footprint_snapshots_total", "counter",
            "Screen snapshots uploaded and kept, by outcome (stored, duplicate).")
        lines.append("footprint_snapshots_total{outcome=\"stored\"} \(snapshotsStored)")
        lines.append("footprint_snapshots_total{outcome=\"duplicate\"} \(snapshotsDuplicate)")
        family(
            "footprint_snapshots_refused_total", "counter",
            "Screen snapshot uploads refused, by reason (the answer's code); nothing of them is stored.")
        for (reason, count) in snapshotsRefused.sorted(by: { $0.key < $1.key }) {
            lines.append("footprint_snapshots_refused_total{reason=\"\(reason)\"} \(count)")
        }
        family(
            "footprint_commit_duration_seconds", "histogram",
            "Time from a batch's arrival at the writer to its durable commit, queueing included.")
        var cumulative: UInt64 = 0
        for (index, bound) in Self.commitLatencyBounds.enumerated() {
            cumulative &+= commitLatencyBuckets[index]
            lines.append(
                "footprint_commit_duration_seconds_bucket{le=\"\(Self.number(bound))\"} \(cumulative)")
        }
        cumulative &+= commitLatencyBuckets[Self.commitLatencyBounds.count]
        lines.append("footprint_commit_duration_seconds_bucket{le=\"+Inf\"} \(cumulative)")
        lines.append("footprint_commit_duration_seconds_sum \(Self.number(commitLatencySum))")
        lines.append("footprint_commit_duration_seconds_count \(cumulative)")
        if let connectionsOpen {
            family("footprint_http_connections_open", "gauge", "Client connections open.")
            lines.append("footprint_http_connections_open \(connectionsOpen)")
        }
        if let connectionsEvicted {
            family(
                "footprint_http_connections_evicted_total", "counter",
                "Connections closed to make room for new ones when every slot was taken.")
            lines.append("footprint_http_connections_evicted_total \(connectionsEvicted)")
        }
        family("footprint_http_requests_in_flight", "gauge", "Requests being handled.")
        lines.append("footprint_http_requests_in_flight \(requestsInFlight)")
        family(
            "footprint_ingest_queue_depth", "gauge", "Batches waiting for their commit or being committed.")
        lines.append("footprint_ingest_queue_depth \(queueDepth)")
        if let metadataCache {
            family(
                "footprint_metadata_store_reachable", "gauge",
                "1 when the metadata cache's last refresh reached the metadata store, else 0 (ingest goes on for cached write keys)."
            )
            lines.append("footprint_metadata_store_reachable \(metadataCache.reachable ? 1 : 0)")
            if let seconds = metadataCache.secondsSinceRefresh {
                family(
                    "footprint_metadata_cache_age_seconds", "gauge",
                    "Seconds since the metadata cache last confirmed its write keys and plans with the metadata store."
                )
                lines.append("footprint_metadata_cache_age_seconds \(Self.number(seconds))")
            }
            if let revision = metadataCache.revision {
                family(
                    "footprint_metadata_cache_revision", "gauge",
                    "The metadata revision the cache holds (equal on every collector once a change reached them)."
                )
                lines.append("footprint_metadata_cache_revision \(revision)")
            }
        }
        if let unsettledMessages {
            family(
                "footprint_unsettled_messages", "gauge",
                "Copies sent by INSERTs that failed after they were sent, kept to check again once settled (redundant copies, INSERTs cut before their daily counts)."
            )
            lines.append("footprint_unsettled_messages \(unsettledMessages)")
        }
        if let unsettledMessagesGivenUp {
            family(
                "footprint_unsettled_messages_given_up_total", "counter",
                "Copies of unsettled INSERTs given up past the store's capacity: a copy of one may count twice."
            )
            lines.append("footprint_unsettled_messages_given_up_total \(unsettledMessagesGivenUp)")
        }
        if let cutInsertsRepaired {
            family(
                "footprint_cut_inserts_repaired_total", "counter",
                "Shards' parts of failed INSERTs found holding events without their daily counts (a server killed between the two), repaired."
            )
            lines.append("footprint_cut_inserts_repaired_total \(cutInsertsRepaired)")
        }
        if let replicasPassedOver {
            family(
                "footprint_replicas_passed_over_total", "counter",
                "Replicas a write was answered without (down, read-only or behind): until they fetch it, its rows are on one replica of their shard."
            )
            lines.append("footprint_replicas_passed_over_total \(replicasPassedOver)")
        }
        if let replicationTimeouts {
            family(
                "footprint_replication_timeouts_total", "counter",
                "Writes answered 503 because a replica did not fetch their rows in time."
            )
            lines.append("footprint_replication_timeouts_total \(replicationTimeouts)")
        }
        if let tiedMessages {
            family(
                "footprint_tied_messages_total", "counter",
                "Messages two collectors of one tag stored in the same 16 microseconds, so that their copies share a sequence and each counts twice: give each collector its own --collector-tag."
            )
            lines.append("footprint_tied_messages_total \(tiedMessages)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A sample value as Prometheus reads it: `0.25`, `1`, `+Inf`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
