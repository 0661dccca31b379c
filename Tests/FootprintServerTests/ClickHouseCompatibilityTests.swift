import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The store's SQL runs on a current ClickHouse release too: every statement the ClickHouse
/// store sent to the 18.16 shards while answering every report (read back from the shards'
/// `system.query_log`) runs without error on chDB (the current engine in-process,
/// Tests/ClickHouse/chdb_check.py), over the same rows. chDB is one node, so the schema is the
/// local tables and every statement reads them instead of the `Distributed` tables.
@Suite(.enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHouseCompatibilityTests {
    /// The tables whose rows the test copies onto chDB.
    static let localTables = ["events", "identities", "lost_events", "duplicate_copies"]
    /// The aggregate tables, which chDB's materialized views fill from the copied events.
    static let aggregateTables = [
        "daily_counts", "element_texts", "person_days", "person_blocks", "step_times", "sessions",
        "session_pages",
        "touched_rows", "touched_sessions",
    ]
    /// The tables of the settled session figures and people, which only a round fills.
    static let settledTables = [
        "settled_figures", "settled_rounds", "settled_people", "settled_totals", "touched_links",
        "settled_sessions",
    ]

    /// `sql` reading the local tables of `database` instead of its `Distributed` ones.
    static func local(_ sql: String, database: String) -> String {
        var text = sql
        for table in localTables + aggregateTables + settledTables {
            text = text.replacingOccurrences(
                of: "\(database)\\.\(table)\\b(?!_local)", with: "\(database).\(table)_local",
                options: .regularExpression)
        }
        return text
    }

    @Test(
        .timeLimit(.minutes(10)),
        .enabled(if: ChDBCheck.python != nil || ClickHouseTesting.required, ChDBCheck.missing))
    func everyStatementTheStoreSentRunsOnACurrentRelease() throws {
        let shardPorts = try ClickHouseTestEnvironment.shardPorts(ClickHouseTestEnvironment.requireURL())
        var statements: [(label: String, sql: String)] = []
        try ClickHouseTesting.withStore(configure: { $0.liveClickSettle = 0 }) { store, project in
            let database = store.location.database
            let data = PeopleTests.DataSet(seed: 21)
            // A connect session of one of the data's devices, for the live view's reads.
            let session = try store.stores.startConnectSession(
                projectId: project.id, tokenHash: SecretHash(of: "compatibility"), hint: "comp",
                now: data.end,
                lifetimeSeconds: 600, limits: ConnectSession.Limits())
            var record = SnapshotSamples.record(projectId: project.id, sessionId: session.id, at: data.end)
            record.anonymousId = try #require(data.batches.first?.events.first?.anonymousId)
            _ = try store.metadata.storeSnapshot(record, retention: SnapshotRetention())
            // Each batch twice: the second copies are recorded in `duplicate_copies`, which
            // every read then leaves out.
            for batch in data.batches + data.batches {
                _ = try store.write(
                    IngestBatch(
                        projectId: project.id, events: batch.events, identityLinks: batch.links,
                        evictedCount: 3,
                        batchKey: "batch-\(batch.events.count)", receivedAt: data.end))
            }
            for definition in ClickHouseClusterTests.definitions {
                try store.metadata.saveEventDefinition(definition, projectId: project.id, at: data.end)
            }
            let reports = try PeopleTests.everyReport(store, project, end: data.end)
            #expect(reports.count > 50)
            _ = try store.eventTimeSpan(projectId: project.id)
            _ = try store.lostEventCount(projectId: project.id)
            _ = try store.recentEvents(projectId: project.id, limit: 20, after: nil)
            // Logged when the store has it (its statements then run on chDB too).
            _ = try? store.exportPerson(id: try #require(data.linkedUser()), projectId: project.id)
            _ = try store.analyticsEvents(
                projectId: project.id, filter: ReportFilter(from: nil, to: nil), properties: .included)
            _ = try store.stores.deviceClicks(projectId: project.id, session: session, after: 0, limit: 50)
            _ = try store.planHealthReports(projectId: project.id, limit: 20)

            // The statements as the shards logged them, and the rows they hold.
            var logged: Set<String> = []
            var rows: [String: String] = [:]
            for port in shardPorts {
                try ClickHouseTestEnvironment.query("SYSTEM FLUSH LOGS", port: port)
                let answer = try ClickHouseTestEnvironment.query(
                    """
                    SELECT DISTINCT replaceAll(replaceAll(query, '\\\\', '\\\\\\\\'), '\\n', '\\\\n')
                    FROM system.query_log
                    WHERE type = 1 AND is_initial_query = 1 AND position(query, '\(database).') > 0
                    FORMAT TSVRaw
                    """, port: port)
                for line in answer.split(separator: "\n") {
                    logged.insert(
                        line.replacingOccurrences(of: "\\n", with: "\n").replacingOccurrences(
                            of: "\\\\", with: "\\"))
                }
                for table in Self.localTables {
                    rows[table, default: ""] += try ClickHouseTestEnvironment.query(
                        "SELECT * FROM \(database).\(table)_local FORMAT TabSeparated", port: port)
                }
            }
            let creates = logged.filter {
                $0.hasPrefix("CREATE TABLE") && !$0.contains("ENGINE = Distributed")
            }
            let views = logged.filter { $0.hasPrefix("CREATE MATERIALIZED VIEW") }
            let queries = logged.filter {
                !$0.hasPrefix("CREATE") && !$0.hasPrefix("INSERT") && !$0.hasPrefix("DROP")
            }
            #expect(
                creates.count == Self.localTables.count + Self.aggregateTables.count
                    + Self.settledTables.count,
                "\(creates)")
            // And the view of the links written since a round (`touched_links`).
            #expect(views.count == Self.aggregateTables.count + 1, "\(views)")
            #expect(queries.count > 20, "every kind of report query: \(queries.count)")
            #expect(queries.contains { $0.contains("'$element_click'") }, "the live view's clicks")
            #expect(queries.contains { $0.contains("'$plan_health'") }, "plan health")
            statements.append(("create database", "CREATE DATABASE \(database)"))
            statements += creates.sorted().map { ("schema: \($0.prefix(60))", $0) }
            statements += views.sorted().map { ("view: \($0.prefix(60))", $0) }
            for table in Self.localTables where !(rows[table] ?? "").isEmpty {
                statements.append(
                    (
                        "rows of \(table)",
                        "INSERT INTO \(database).\(table)_local FORMAT TabSeparated\n" + rows[table]!
                    ))
            }
            // The copy check reads the messages it sends along as a table of their own.
            let checked = ClickHouseSQL.checkedMessages
            #expect(queries.contains { $0.contains(" IN \(checked.name)") }, "the copy check")
            statements.append(
                ("checked messages", "CREATE TABLE \(checked.name) (\(checked.structure)) ENGINE = Memory"))
            statements += queries.sorted().map { sql in
                let local = Self.local(sql, database: database)
                return (String(local.split(separator: "\n").joined(separator: " ").prefix(100)), local)
            }
        }

        try ChDBCheck.expectEveryStatementRuns(statements)
    }

}
