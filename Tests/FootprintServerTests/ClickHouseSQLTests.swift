import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// Every statement of ``ClickHouseSQL`` runs on the cluster's ClickHouse (18.16 here) and on a
/// current release (chDB, the engine in-process), over stored events, so no construct only one
/// of them accepts slips in.
@Suite(.serialized, .enabled(if: ClickHouseTesting.isAvailable, ClickHouseTesting.reason))
struct ClickHouseSQLTests {
    /// A small data set and the filters the statements are listed for.
    static let data = PeopleTests.DataSet(seed: 6)
    static var filter: ReportFilter {
        ReportFilter(
            from: data.end.adding(milliseconds: -11 * 86_400_000),
            to: data.end.adding(milliseconds: 86_400_000))
    }

    @Test func everyStatementRunsOnTheCluster() throws {
        try ClickHouseTesting.withStore { store, project throws in
            try Self.data.write(into: store, project: project)
            for filter in [
                Self.filter, ReportFilter(), ReportFilter(appVersion: "2.4.0", os: "iOS 18.1", page: "Home"),
            ] {
                for statement in store.sql.everyStatement(projectId: project.id, filter: filter) {
                    #expect(throws: Never.self, "\(statement.label)") {
                        _ = try store.client.execute(statement.sql, external: statement.external)
                    }
                }
            }
        }
    }

    @Test(.enabled(if: ChDBCheck.python != nil || ClickHouseTesting.required, ChDBCheck.missing))
    func everyStatementRunsOnACurrentRelease() throws {
        var sql = ClickHouseSQL(database: "footprint_check", cluster: "footprint")
        sql.tables = .local
        var rows = ClickHouseRowBinary()
        var links = ClickHouseRowBinary()
        var sequence: UInt64 = 1
        for batch in Self.data.batches {
            for event in batch.events {
                ClickHouseRows.append(event, project: 1, sequence: sequence, to: &rows)
                sequence += 1
            }
            for link in batch.links {
                ClickHouseRows.appendLink(
                    link, project: 1, firstSeen: Timestamp(millisecondsSince1970: 0), to: &links)
            }
        }
        var lost = ClickHouseRowBinary()
        ClickHouseRows.appendLostEvents(
            of: IngestBatch(
                projectId: 1, events: [], evictedCount: 3, batchKey: "batch-1",
                receivedAt: Timestamp(millisecondsSince1970: 0)),
            keep: 1, to: &lost)
        var copies = ClickHouseRowBinary()
        ClickHouseRows.appendCopy(["a1", "m1", "2", "\\N", "0"], sequence: 2, project: 1, to: &copies)
        var statements = sql.everyStatement(projectId: 1, filter: Self.filter).map {
            ChDBCheck.Statement(label: $0.label, sql: $0.sql, external: $0.external)
        }
        let schema = statements.prefix { $0.label.hasPrefix("schema") }.count
        statements.insert(
            contentsOf: [
                ChDBCheck.Statement(label: "insert events", sql: sql.insertEvents, data: rows.bytes),
                ChDBCheck.Statement(label: "insert identities", sql: sql.insertIdentities, data: links.bytes),
                ChDBCheck.Statement(label: "insert lost events", sql: sql.insertLostEvents, data: lost.bytes),
                ChDBCheck.Statement(
                    label: "insert duplicate copies", sql: sql.insertDuplicateCopies, data: copies.bytes),
                ChDBCheck.Statement(
                    label: "events read back", sql: "SELECT count() FROM footprint_check.events_local",
                    expect: "\(sequence - 1)"),
                ChDBCheck.Statement(
                    label: "copies read back",
                    sql: "SELECT * FROM footprint_check.duplicate_copies_local FORMAT TabSeparated",
                    expect: "1\ta1\tm1\t2\t\\N\t0"),
            ], at: schema)
        try ChDBCheck.expectEveryStatementRuns(statements)
    }

    /// The replicated schema's statements parse on a current release. chDB has no ZooKeeper to
    /// create `Replicated*` tables with, so `formatQuery` parses each without running it (and
    /// fails on one that does not parse).
    @Test(.enabled(if: ChDBCheck.python != nil || ClickHouseTesting.required, ChDBCheck.missing))
    func theReplicatedSchemaParsesOnACurrentRelease() throws {
        let sql = ClickHouseSQL(database: "footprint_check", cluster: "footprint", replicated: true)
        let statements = sql.schema.enumerated().map { index, statement in
            ChDBCheck.Statement(
                label: "replicated schema \(index): \(statement.prefix(60))",
                sql: "SELECT formatQuery(\(ClickHouseFormat.literal(statement))) != ''", expect: "1")
        }
        try ChDBCheck.expectEveryStatementRuns(statements)
        #expect(sql.schema.contains { $0.contains("ENGINE = ReplicatedAggregatingMergeTree(") })
    }

    /// Values at the edges of every column type the INSERTs use, encoded once, read back alike
    /// from the cluster's ClickHouse (18.16) and from a current release (chDB).
    static let edgeColumns = """
        s String, n Nullable(String), i Int64, u UInt64, b UInt8, a Array(String), c Array(UInt8),
        ni Nullable(Int64)
        """

    static var edgeRows: (bytes: [UInt8], text: String) {
        var rows = ClickHouseRowBinary()
        rows.append("tab\there\nnew line \\ 'quote' é \u{0}")
        rows.append(String?.none)
        rows.append(Int64.min)
        rows.append(UInt64.max)
        rows.append(UInt8(255))
        rows.append(["", "x", String(repeating: "y", count: 130)])
        rows.append([UInt8]())
        rows.append(Int64?.none)
        rows.append(String(repeating: "z", count: 20_000))
        rows.append(String?.some(""))
        rows.append(Int64.max)
        rows.append(UInt64(0))
        rows.append(UInt8(0))
        rows.append([String]())
        rows.append([UInt8]([0, 1, 128]))
        rows.append(Int64?.some(-1))
        let text = [
            "tab\\there\\nnew line \\\\ \\'quote\\' é \\0\t\\N\t-9223372036854775808\t18446744073709551615\t255\t"
                + "['','x','\(String(repeating: "y", count: 130))']\t[]\t\\N",
            "\(String(repeating: "z", count: 20_000))\t\t9223372036854775807\t0\t0\t[]\t[0,1,128]\t-1",
        ].joined(separator: "\n")
        return (rows.bytes, text)
    }

    @Test func edgeValuesReadBackTheSameFromTheCluster() throws {
        try ClickHouseTesting.withStore { store, _ throws in
            let table = "\(store.location.database).edges"
            _ = try store.client.execute("CREATE TABLE \(table) (\(Self.edgeColumns)) ENGINE = Log")
            _ = try store.client.execute("INSERT INTO \(table) FORMAT RowBinary", data: Self.edgeRows.bytes)
            let text = String(
                decoding: try store.client.execute("SELECT * FROM \(table) FORMAT TabSeparated"),
                as: UTF8.self)
            #expect(text == Self.edgeRows.text + "\n")
        }
    }

    @Test(.enabled(if: ChDBCheck.python != nil || ClickHouseTesting.required, ChDBCheck.missing))
    func edgeValuesReadBackTheSameFromACurrentRelease() throws {
        try ChDBCheck.expectEveryStatementRuns([
            ChDBCheck.Statement(
                label: "create", sql: "CREATE TABLE edges (\(Self.edgeColumns)) ENGINE = Log"),
            ChDBCheck.Statement(
                label: "insert", sql: "INSERT INTO edges FORMAT RowBinary", data: Self.edgeRows.bytes),
            ChDBCheck.Statement(label: "read", sql: "SELECT * FROM edges", expect: Self.edgeRows.text),
        ])
    }

    /// The SQL dwell bucket is ``DwellHistogram/bucket(of:)`` at every power of two and beside it.
    @Test func theDwellBucketInSQLIsTheHistogramsBucket() throws {
        var values: [Int64] = [0, 1, 15, 16, 17, 31, 32, 33, 1000, 1_800_000, .max]
        for power in 4..<63 {
            values += [(Int64(1) << power) - 1, Int64(1) << power, (Int64(1) << power) + 1]
        }
        let list = values.map { "toInt64(\($0))" }.joined(separator: ",")
        try ClickHouseTesting.withStore { store, _ throws in
            let rows = try store.client.rows(
                "SELECT value, \(ClickHouseSQL.bucket("value")) FROM (SELECT arrayJoin([\(list)]) AS value)")
            #expect(rows.count == values.count)
            for row in rows {
                let value = ClickHouseFormat.int64(row[0])
                #expect(ClickHouseFormat.int64(row[1]) == DwellHistogram.bucket(of: value), "\(value)")
            }
        }
    }
}
