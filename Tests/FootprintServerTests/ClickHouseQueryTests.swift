import FootprintWire
import Testing

@testable import FootprintServer

/// Each ClickHouse read decodes its rows by their type: a row of another shape, or a field that
/// is not of its type, is a storage error, never a row left out. No cluster needed.
struct ClickHouseQueryTests {
    let sql = ClickHouseSQL(database: "footprint", cluster: "footprint")

    /// `line`, a `TabSeparated` row, as its fields.
    static func fields(_ line: String) -> [Substring] {
        line.split(separator: "\t", omittingEmptySubsequences: false)
    }

    /// The error decoding `line` with `query` throws.
    static func error<Row>(
        _ query: ClickHouseQuery<Row>, _ line: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> ServerError? {
        do {
            _ = try query.decode(fields(line))
            Issue.record("\(line.debugDescription) decoded", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    @Test func aWellFormedRowDecodes() throws {
        let counts = sql.rollupCounts(projectId: 1, filter: ReportFilter())
        #expect(
            try counts.decode(Self.fields("20000\t1\tHome\\tPage\t7"))
                == RollupCount(day: 20_000, kind: .trackEvents, key: "Home\tPage", count: 7))
        let sessions = sql.sessionFigures(projectId: 1, filter: ReportFilter())
        #expect(
            try sessions.decode(Self.fields("7\t1\t500\t12\t3\t400\t900"))
                == SessionFigures(
                    sessions: 7, totalLengthMilliseconds: (1 << 32) + 500, lowerMiddleLengthMilliseconds: 400,
                    upperMiddleLengthMilliseconds: 900, pageViews: 12, bounces: 3))
        // A total past `Int64` (the high halves' sum alone, or with the low ones) is held at its
        // largest value.
        for line in ["2\t2147483648\t0\t2\t0\t1\t1", "2\t2147483647\t4294967296\t2\t0\t1\t1"] {
            #expect(try sessions.decode(Self.fields(line)).totalLengthMilliseconds == .max)
        }
        let event = try sql.analyticsEvents(
            projectId: 1, filter: ReportFilter(), properties: .omitted, limit: 1
        )
        .decode(Self.fields("track\tBuy\t1000\ta1\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N"))
        #expect(event.name == "Buy" && event.userId == nil && event.durationMilliseconds == nil)
    }

    @Test(arguments: ["20000\t1\tHome", "20000\t1\tHome\t7\t8", "", "20000"])
    func aRowOfAnotherNumberOfFieldsThrows(line: String) throws {
        let query = sql.rollupCounts(projectId: 1, filter: ReportFilter())
        let error = try #require(Self.error(query, line))
        #expect(error.code == .storage)
        #expect(
            error.message.hasPrefix(
                "ClickHouse answered a row of \(Self.fields(line).count) fields where 4 were expected"))
        #expect(error.message.contains("rollupCounts"))
    }

    @Test(arguments: ["x\t1\tHome\t7", "20000\t1\tHome\t\\N", "20000\t1\tHome\t", "20000\t99\tHome\t7"])
    func aFieldNotOfItsTypeThrows(line: String) throws {
        let error = try #require(Self.error(sql.rollupCounts(projectId: 1, filter: ReportFilter()), line))
        #expect(error.code == .storage)
        #expect(error.message.hasPrefix("ClickHouse answered field "))
        #expect(error.message.contains("where"))
    }

    @Test func everyKindOfReadRefusesAMalformedRow() throws {
        let filter = ReportFilter()
        let errors: [ServerError?] = [
            Self.error(sql.eventCount(projectId: 1), "many"),
            Self.error(sql.lostEventCount(projectId: 1), "3\tthree"),
            Self.error(
                sql.storedCopies(projectId: 1, of: [ClickHouseSQL.Message(device: "a", messageId: "m")]),
                "a\tm\t-1\t\\N\t0"),
            Self.error(
                sql.rollupPersonDays(projectId: 1, filter: filter, kind: .pageViews, keys: nil, pages: .each),
                "Home\t300\ta1\t\tHome\t-1"),
            Self.error(sql.visitors(projectId: 1, filter: filter), "7\tHome\t20000\t3"),
            Self.error(sql.activePeople(projectId: 1, filter: filter), "0\t1\t1\t1"),
            Self.error(sql.rollupDwell(projectId: 1, filter: filter), "Home\t3\t1\t10\tten"),
            Self.error(
                sql.deviceClicks(projectId: 1, devices: ["a"], after: 0, through: 1, limit: 1), "1\t2\ta"),
            Self.error(sql.pendingMutations, ""),
            Self.error(
                sql.analyticsEvents(projectId: 1, filter: filter, properties: .included, limit: 1),
                "track\tBuy\t1000\ta1\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\tlong\t\\N\t\\N\t{}"),
        ]
        for error in errors { #expect(error?.code == .storage) }
    }

    @Test func aFunnelRowHasOneFieldPerStep() throws {
        let sources = try #require(FunnelSources(steps: [.page("Home"), .page("Cart")], counts: []))
        let query = sql.funnelPeople(
            projectId: 1, filter: ReportFilter(), sources: sources, stepCount: 2, windowMilliseconds: 1_000)
        #expect(try query.decode(Self.fields("5\t-1")) == [5, 0])
        #expect(Self.error(query, "5")?.code == .storage)
    }
}
