import FootprintSQLite
import FootprintWire

extension SQLiteEventStore {
    public func lostEventCount(projectId: Int64) throws(ServerError) -> Int {
        try read { database in
            try database.prepare("SELECT \(Self.countSum("count")) FROM lost_events WHERE project_id = ?1")
                .rows(
                    [.integer(projectId)]
                ) { Int($0.int64(at: 0)) }.first ?? 0
        }
    }

    public func eventTimeSpan(projectId: Int64) throws(ServerError) -> ClosedRange<Timestamp>? {
        // Two subqueries: SQLite answers a lone min() or max() from the (project_id, time) index
        // in one step each, but both in one SELECT would scan it.
        try read { database in
            try database.prepare(
                """
                SELECT (SELECT min(time) FROM events WHERE project_id = ?1),
                    (SELECT max(time) FROM events WHERE project_id = ?1)
                """
            ).rows([.integer(projectId)]) { row -> ClosedRange<Timestamp>? in
                guard !row.isNull(at: 0), !row.isNull(at: 1) else { return nil }
                return Timestamp(
                    millisecondsSince1970: row.int64(at: 0))...Timestamp(
                        millisecondsSince1970: row.int64(at: 1))
            }.first ?? nil
        }
    }
}
