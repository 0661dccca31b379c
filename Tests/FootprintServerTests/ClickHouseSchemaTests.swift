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
