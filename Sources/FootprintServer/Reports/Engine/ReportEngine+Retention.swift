import FootprintWire

/// Day-N retention by first-seen day.
public struct RetentionReport: Sendable, Hashable, Codable {
    /// The return event (`nil`: any event).
    public var returnEvent: String?
    /// One row per first-seen day with people, oldest first.
    public var cohorts: [RetentionCohort]
    /// Days after the first (0...`days`) the table covers.
    public var days: Int
}

/// People first seen on one day and how many came back.
public struct RetentionCohort: Sendable, Hashable, Codable {
    /// The UTC day of their first event in range.
    public var day: String
    /// People first seen that day.
    public var people: Int
    /// People who did the return event N days later, for N = 0...days (`nil` for a day after
    /// the data ends: not known yet).
    public var returned: [Int?]

    /// `returned[n] / people`, 0...1.
    public func rate(day n: Int) -> Double? {
        guard n < returned.count, let count = returned[n], people > 0 else { return nil }
        return Double(count) / Double(people)
    }
}

extension ReportEngine {
    /// Cohorts by the UTC day of each person's first event; day N counts those who did
    /// `returnEvent` (any event when `nil`) N days later. Day 0 counts the return event on the
    /// first day itself.
    /// - Parameters:
    ///   - returnEvent: a track event name, or `nil` for any event.
    ///   - days: the last N shown. Default 7.
    ///   - lastDay: the last day with data (later cells are `nil`); default the newest event's.
    public func retention(returnEvent: String? = nil, days: Int = 7, lastDay: Int64? = nil) -> RetentionReport
    {
        var firstDay: [String: Int64] = [:]
        var activeDays: [String: Set<Int64>] = [:]
        for (index, event) in events.enumerated() {
            let person = people[index]
            let day = event.time.dayNumber
            if firstDay[person] == nil { firstDay[person] = day }
            if returnEvent == nil || event.isTrack(returnEvent!) {
                activeDays[person, default: []].insert(day)
            }
        }
        let end = lastDay ?? events.last?.time.dayNumber ?? 0
        var cohorts: [Int64: (people: Int, returned: [Int])] = [:]
        let span = max(0, days)
        for (person, first) in firstDay {
            var cohort = cohorts[first] ?? (0, Array(repeating: 0, count: span + 1))
            cohort.people += 1
            for n in 0...span where activeDays[person]?.contains(first + Int64(n)) == true {
                cohort.returned[n] += 1
            }
            cohorts[first] = cohort
        }
        let rows = cohorts.keys.sorted().map { day in
            let cohort = cohorts[day]!
            return RetentionCohort(
                day: Timestamp(millisecondsSince1970: day * 86_400_000).dayString, people: cohort.people,
                returned: (0...span).map { n in day + Int64(n) <= end ? cohort.returned[n] : nil })
        }
        return RetentionReport(returnEvent: returnEvent, cohorts: rows, days: span)
    }
}
