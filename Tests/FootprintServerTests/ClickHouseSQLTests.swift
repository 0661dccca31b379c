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
                        _ = try store.client.execute(statement.sql)
                    }
                }
            }
        }
    }

    @Test(.enabled(if: ChDBCheck.python != nil || ClickHouseTesting.required, ChDBCheck.missing))
    func everyStatementRunsOnACurrentRelease() throws {
        var sql = ClickHouseSQL(database: "footprint_check", cluster: "footprint")
        sql.tables = .local
        var rows = ""
        var sequence: UInt64 = 1
        for batch in Self.data.batches {
            for event in batch.events {
                ClickHouseRows.append(event, project: 1, sequence: sequence, to: &rows)
                sequence += 1
            }
        }
        let links = Self.data.batches.flatMap(\.links).map { "1\t\($0.anonymousId)\t\($0.userId)\t0\n" }
            .joined()
        var statements = sql.everyStatement(projectId: 1, filter: Self.filter)
        let schema = statements.prefix { $0.label.hasPrefix("schema") }.count
        statements.insert(
            contentsOf: [
                ("insert events", sql.insertEvents + "\n" + rows),
                ("insert identities", sql.insertIdentities + "\n" + links),
                ("insert lost events", sql.insertLostEvents + "\n1\tbatch-1\t3\t0\t1\n"),
                ("insert duplicate copies", sql.insertDuplicateCopies + "\n1\ta1\tm1\t2\t\\N\t0\n"),
            ], at: schema)
        try ChDBCheck.expectEveryStatementRuns(statements)
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
