/// The reports that count people, from per-day sets of people (``PersonSet``, links already
/// applied by ``PersonMerges``) instead of person rows: the same figures as the functions over
/// ``RollupPersonDays`` (tests compare both), each person a number.
extension RollupReports {
    /// One kind and key's people per day (days since 1970-01-01), links applied.
    public typealias DaySets = [Int64: PersonSet]

    /// ``activity(active:viewers:filter:)`` from day sets.
    /// - Parameters:
    ///   - active: the people of ``RollupKind/anyEvent`` per day.
    ///   - viewers: per page (the ``RollupKind/pageViews`` key), its viewers per day.
    public static func activity(active: DaySets, viewers: [String: DaySets], filter: ReportFilter)
        -> PeopleActivity
    {
        let (firstDay, dayCount) = days(of: filter)
        let activeDays = rangeDays(active, firstDay: firstDay, dayCount: dayCount)
        var visitorDays = PersonRangeDays<NumberSlots>(firstDay: firstDay, dayCount: dayCount)
        var pages: [String: PeopleActivity.Page] = [:]
        for (page, sets) in viewers {
            var perDay = Array(repeating: 0, count: dayCount)
            var inRange: [PersonSet] = []
            for (day, set) in sets {
                let offset = day - firstDay
                guard offset >= 0, offset < Int64(dayCount), !set.isEmpty else { continue }
                perDay[Int(offset)] = set.count
                inRange.append(set)
                visitorDays.add(set.members, day: day)
            }
            guard !inRange.isEmpty else { continue }
            pages[page] = PeopleActivity.Page(people: PersonSet.unionCount(inRange), perDay: perDay)
        }
        return PeopleActivity(
            people: activeDays.people, daily: activeDays.peoplePerDay(window: 1),
            weekly: activeDays.peoplePerDay(window: 7), monthly: activeDays.peoplePerDay(window: 30),
            visitors: visitorDays.peoplePerDay(window: 1), pages: pages)
    }

    /// ``people(_:filter:)`` from day sets: distinct people per key over the range.
    public static func people(_ perKey: [String: DaySets], filter: ReportFilter) -> [String: Int] {
        let (firstDay, dayCount) = days(of: filter)
        var result: [String: Int] = [:]
        for (key, sets) in perKey {
            let inRange = sets.filter { $0.key >= firstDay && $0.key < firstDay + Int64(dayCount) }.map(
                \.value)
            let people = PersonSet.unionCount(inRange)
            if people > 0 { result[key] = people }
        }
        return result
    }

    /// ``retention(active:returns:returnEvent:days:filter:)`` from day sets.
    /// - Parameters:
    ///   - active: the people of ``RollupKind/anyEvent`` per day.
    ///   - returns: the return event's people per day, or `nil` for any event.
    public static func retention(
        active: DaySets, returns: DaySets?, returnEvent: String?, days span: Int, filter: ReportFilter
    ) -> RetentionReport {
        let (firstDay, dayCount) = days(of: filter)
        let activeDays = rangeDays(active, firstDay: firstDay, dayCount: dayCount)
        let returnDays = returns.map { rangeDays($0, firstDay: firstDay, dayCount: dayCount) } ?? activeDays
        return retention(
            activeDays: activeDays, returnDays: returnDays, returnEvent: returnEvent, days: span,
            filter: filter)
    }

    private static func rangeDays(_ sets: DaySets, firstDay: Int64, dayCount: Int) -> PersonRangeDays<
        NumberSlots
    > {
        var range = PersonRangeDays<NumberSlots>(firstDay: firstDay, dayCount: dayCount)
        for (day, set) in sets.sorted(by: { $0.key < $1.key }) {
            range.add(set.members, day: day)
        }
        return range
    }
}
