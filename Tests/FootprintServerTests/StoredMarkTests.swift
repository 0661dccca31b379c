import Foundation
import Testing

@testable import FootprintServer

/// The marks of a session timeline as the ClickHouse store keeps them: one layout, named once
/// (``SessionTimeline/StoredMark``), for the rows it writes and the SQL that walks them.
struct StoredMarkTests {
    @Test func eachMarkIsStoredWithItsCode() {
        #expect(SessionTimeline.StoredMark.fields(of: .view(page: "Home")) == (.view, "Home", 0))
        #expect(
            SessionTimeline.StoredMark.fields(of: .leave(page: "Home", durationMilliseconds: 40))
                == (.leave, "Home", 40))
        #expect(SessionTimeline.StoredMark.fields(of: nil) == (.none, "", 0))
        #expect(
            [SessionTimeline.MarkCode.none, .view, .leave].map(\.rawValue) == [0, 1, 2])
    }

    /// Each field of the tuple is a column of the events table of the same type.
    @Test(arguments: SessionTimeline.StoredMark.Field.allCases)
    func eachFieldIsAColumnOfTheEvents(field: SessionTimeline.StoredMark.Field) {
        let columns = ClickHouseSQL.eventColumns.split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(columns.contains("\(field.column) \(field.type)"))
        #expect(field.of("m") == "m.\(field.rawValue)")
    }

    @Test func theStoredMarksAreTheTuplesOfTheFields() {
        let sql = ClickHouseSQL(database: "footprint", cluster: "footprint")
        let sessions = sql.aggregates.first { $0.name == "sessions" }
        #expect(
            sessions?.select.contains(
                "groupArrayIfState((time, sequence, mark, mark_page, mark_duration, day), mark > 0) AS marks_state"
            )
                == true)
        #expect(
            sessions?.columns.contains(
                "marks_state AggregateFunction(groupArrayIf, Tuple(Int64, UInt64, UInt8, String, Int64, Int64), UInt8)"
            )
                == true)
        let dwell = sql.rollupDwell(projectId: 1, filter: ReportFilter()).sql
        #expect(dwell.contains("(toInt64(0), toUInt64(0), toUInt8(0), '', toInt64(0), toInt64(0))"))
        #expect(
            dwell.contains("arrayFilter((m, s, u, w) -> m.3 = 1 OR (m.3 = 2 AND s > 0 AND u = 2 AND w = 1)"))
    }
}
