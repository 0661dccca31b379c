import FootprintWire
import Testing

@testable import FootprintServer

/// The sessions report is made from ``SessionFigures`` (which a store may count itself, as
/// ClickHouse does) instead of every session; these tests hold it to the report made from the
/// sessions one by one.
struct SessionFiguresTests {
    /// The report from every session: the definition the figures replace.
    static func report(_ sessions: [StoredSession]) -> SessionReport {
        let count = sessions.count
        let lengths = sessions.map(\.lengthMilliseconds)
        let screens = sessions.map(\.pageViews).saturatingSum()
        return SessionReport(
            sessions: count,
            averageLengthMilliseconds: count == 0
                ? 0 : Int(saturating: Double(lengths.saturatingSum()) / Double(count)),
            medianLengthMilliseconds: ReportEngine.median(lengths) ?? 0,
            screensPerSession: count == 0 ? 0 : Double(screens) / Double(count),
            bounces: sessions.filter { $0.pageViews <= 1 }.count)
    }

    @Test func theReportFromTheFiguresIsTheReportFromEverySession() {
        var random = SeededRandom(seed: 2612)
        let extremes: [Int64] = [0, 1, .max, .max - 1, 1 << 62, 1 << 53 + 1]
        for round in 0..<5_000 {
            let sessions = (0..<Int.random(in: 0...(round % 7 == 0 ? 60 : 9), using: &random)).map { _ in
                StoredSession(
                    lengthMilliseconds: Bool.random(using: &random)
                        ? Int64.random(in: 0..<50, using: &random) * 1_000
                        : extremes.randomElement(using: &random)!,
                    pageViews: Int.random(in: 0...3, using: &random) == 0
                        ? Int.max - Int.random(in: 0...2, using: &random)
                        : Int.random(in: 0...4, using: &random))
            }
            #expect(RollupReports.sessions(SessionFigures(sessions)) == Self.report(sessions), "\(sessions)")
        }
    }

    @Test func theMiddleLengthsAreTheSortedLengthsMiddleOnes() {
        func figures(_ lengths: [Int64]) -> SessionFigures {
            SessionFigures(lengths.map { StoredSession(lengthMilliseconds: $0, pageViews: 2) })
        }
        let none = figures([])
        #expect(
            none.sessions == 0 && none.lowerMiddleLengthMilliseconds == 0
                && none.upperMiddleLengthMilliseconds == 0)
        let odd = figures([9_000, 1_000, 5_000])
        #expect((odd.lowerMiddleLengthMilliseconds, odd.upperMiddleLengthMilliseconds) == (5_000, 5_000))
        let even = figures([9_000, 1_000, 5_000, 2_000])
        #expect((even.lowerMiddleLengthMilliseconds, even.upperMiddleLengthMilliseconds) == (2_000, 5_000))
        #expect(RollupReports.sessions(even).medianLengthMilliseconds == 3_500)
        // A length below 0 (no store gives one) counts as 0, and the total stays within Int64.
        let held = figures([-5, .max, .max])
        #expect(held.totalLengthMilliseconds == .max && held.lowerMiddleLengthMilliseconds == .max)
        #expect(figures([-5]).lowerMiddleLengthMilliseconds == 0)
    }
}
