import FootprintSQLite
import FootprintWire

/// What one group-commit transaction adds to the daily rollups, summed in memory so that each
/// rollup row is written once per transaction instead of once per event.
///
/// Summing is exact: counts add up, `viewed` is a maximum, and a count's `detail` is the last
/// non-nil one in event order — what applying the events one by one would leave.
struct RollupDelta {
    struct CountKey: Hashable {
        var project: Int64, day: Int64, kind: Int64, key: String, page: String, appVersion: String, os: String
    }
    struct PersonKey: Hashable {
        var project: Int64, day: Int64, anonymousId: String, userId: String, page: String, appVersion: String
        var os: String
    }
    struct ActiveKey: Hashable {
        var project: Int64, day: Int64, anonymousId: String, userId: String
    }

    private(set) var counts: [CountKey: (count: Int64, detail: String?)] = [:]
    private(set) var people: [PersonKey: Bool] = [:]
    private(set) var active: [ActiveKey: Bool] = [:]

    /// Counts one newly stored event.
    mutating func add(_ event: EventRecord, project: Int64) {
        let day = event.time.dayNumber
        let page = event.page ?? ""
        let appVersion = event.appVersion ?? ""
        let os = event.os ?? ""
        func count(_ kind: Int64, _ key: String, detail: String? = nil) {
            let countKey = CountKey(
                project: project, day: day, kind: kind, key: key, page: page, appVersion: appVersion, os: os)
            let previous = counts[countKey]
            counts[countKey] = ((previous?.count ?? 0) + 1, detail ?? previous?.detail)
        }
        let isView = event.type == .screen || event.type == .page
        if let name = event.name {
            if isView { count(0, name) } else if event.type == .track { count(1, name) }
        }
        if !isView, event.type != .track { count(4, event.type.rawValue) }
        if event.type == .track, event.name == "$element_click", let path = event.elementPath {
            count(2, path, detail: event.elementText)
            count(3, event.similarPath ?? path, detail: event.elementText)
        }
        let anonymousId = event.anonymousId ?? ""
        let userId = event.userId ?? ""
        let activeKey = ActiveKey(project: project, day: day, anonymousId: anonymousId, userId: userId)
        active[activeKey] = (active[activeKey] ?? false) || isView
        let personKey = PersonKey(
            project: project, day: day, anonymousId: anonymousId, userId: userId, page: page,
            appVersion: appVersion, os: os)
        people[personKey] = (people[personKey] ?? false) || isView
    }

    /// Writes the sums with the upsert statements of ``SQLiteSchema``.
    func write(count: SQLiteStatement, person: SQLiteStatement, active activeStatement: SQLiteStatement)
        throws(SQLiteError)
    {
        for (key, value) in counts {
            try count.run([
                .integer(key.project), .integer(key.day), .integer(key.kind), .text(key.key), .text(key.page),
                .text(key.appVersion), .text(key.os), .text(value.detail), .integer(value.count),
            ])
        }
        for (key, viewed) in active {
            try activeStatement.run([
                .integer(key.project), .integer(key.day), .text(key.anonymousId), .text(key.userId),
                .integer(viewed ? 1 : 0),
            ])
        }
        for (key, viewed) in people {
            try person.run([
                .integer(key.project), .integer(key.day), .text(key.anonymousId), .text(key.userId),
                .text(key.page), .text(key.appVersion), .text(key.os), .integer(viewed ? 1 : 0),
            ])
        }
    }
}
