import Foundation
import Testing

@testable import FootprintServer

/// The schema's engines: plain MergeTree-family tables on shards without replicas, their
/// `Replicated` twins on shards with replicas, decided in one place
/// (``ClickHouseSQL/engine(_:_:table:)``).
@Suite struct ClickHouseSchemaTests {
    static let plain = ClickHouseSQL(database: "fp", cluster: "footprint")
    static let replicated = ClickHouseSQL(database: "fp", cluster: "footprint", replicated: true)

    @Test func withoutReplicasTheEngineIsTheFamilyItself() {
        #expect(Self.plain.engine("MergeTree", table: "events_local") == "MergeTree")
        #expect(Self.plain.engine("ReplacingMergeTree", "keep", table: "t") == "ReplacingMergeTree(keep)")
    }

    @Test func withReplicasTheEngineIsItsReplicatedTwinAtTheTablesOwnPath() {
        #expect(
            Self.replicated.engine("MergeTree", table: "events_local")
                == "ReplicatedMergeTree('/clickhouse/tables/{shard}/fp/events_local', '{replica}')")
        #expect(
            Self.replicated.engine("ReplacingMergeTree", "keep", table: "lost_events_local")
                == "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/fp/lost_events_local', '{replica}', keep)"
        )
        #expect(
            Self.replicated.engine("AggregatingMergeTree", table: "sessions_local")
                == "ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/fp/sessions_local', '{replica}')"
        )
    }

    /// Every local table of the replicated schema (the aggregate tables the views fill too) is a
    /// `Replicated` one at its own path; the `Distributed` tables and views are as without
    /// replicas; the plain schema names no `Replicated` engine.
    @Test func everyLocalTableOfTheReplicatedSchemaIsReplicated() throws {
        let creates = Self.replicated.schema.filter { $0.hasPrefix("CREATE TABLE") }
        let local = creates.filter { $0.contains("_local (") }
        #expect(
            local.count
                == ClickHouseCompatibilityTests.localTables.count
                + ClickHouseCompatibilityTests.settledTables.count
                + Self.replicated.aggregates.count)
        for statement in local {
            let table = try #require(statement.split(separator: " ")[5].split(separator: ".").last)
            #expect(
                statement.contains(
                    "ENGINE = Replicated") && statement.contains("'/clickhouse/tables/{shard}/fp/\(table)'"),
                "\(statement)")
        }
        #expect(
            creates.filter { !$0.contains("_local (") }.allSatisfy { $0.contains("ENGINE = Distributed") })
        #expect(!Self.plain.schema.joined().contains("Replicated"))
        #expect(
            Self.plain.schema.count == Self.replicated.schema.count
                && zip(Self.plain.schema, Self.replicated.schema).allSatisfy {
                    $0.0 == $0.1 || $0.1.contains("Replicated")
                })
    }
}

extension ClickHouseSchemaTests {
    /// Each `Distributed` table's sharding key, by table.
    static func shardingKeys(_ sql: ClickHouseSQL) throws -> [String: String] {
        var keys: [String: String] = [:]
        for statement in sql.schema where statement.contains("ENGINE = Distributed(") {
            let engine = try #require(statement.components(separatedBy: "ENGINE = Distributed(").last)
            let arguments = engine.split(separator: ",", maxSplits: 3).map {
                $0.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            try #require(arguments.count == 4, "\(statement)")
            let table = String(arguments[2].dropLast("_local".count))
            keys[table] = String(arguments[3].dropLast())
        }
        return keys
    }

    /// The person reads join each shard's own links to its rows
    /// (``ClickHouseSQL/links(projectId:among:ofShard:)``): that holds only while a device's
    /// links land on the shard of its events and of the rows derived from them, the same hash of
    /// the same id.
    @Test func aDevicesLinksAreOnTheShardOfItsEventsAndPersonRows() throws {
        for sql in [Self.plain, Self.replicated] {
            let keys = try Self.shardingKeys(sql)
            let events = try #require(keys["events"])
            #expect(events == "cityHash64(project_id, device)")
            #expect(
                keys["identities"]?.replacingOccurrences(of: "anonymous_id", with: "device") == events)
            for table in ["person_days", "person_blocks", "step_times", "duplicate_copies", "touched_rows"] {
                #expect(keys[table] == events, "\(table)")
            }
        }
    }
}
