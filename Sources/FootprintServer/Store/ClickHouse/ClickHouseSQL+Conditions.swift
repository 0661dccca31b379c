import FootprintWire

/// The conditions the reads share: which stored copies they take, and `filter`'s days, app
/// version, OS and page on the events and on the aggregate tables.
extension ClickHouseSQL {
    /// The condition that leaves out a project's redundant copies: those recorded in
    /// `duplicate_copies_local`. The subquery is not `GLOBAL`, so in a read of the `Distributed`
    /// table each shard runs it against its own records, which are those of the copies it holds.
    func unique(projectId: Int64) -> String {
        """
        (device, message_id, sequence) NOT IN (SELECT device, message_id, sequence
            FROM \(database).duplicate_copies_local WHERE project_id = \(projectId))
        """
    }

    /// The devices of a project with a redundant copy recorded on the shard that runs it (not
    /// `GLOBAL`, as ``unique(projectId:)``): those whose rows the person aggregates may count twice.
    func redundantDevices(projectId: Int64) -> String {
        "SELECT device FROM \(database).duplicate_copies_local WHERE project_id = \(projectId)"
    }

    /// The conditions on a project's events for a rollup-style read of `filter` (`copies` of
    /// them): whole days (when `days`), app version, OS and page compared as the SQLite rollups
    /// store them (`''` for none).
    func rollupConditions(
        projectId: Int64, filter: ReportFilter, days: Bool = true, page: Bool = true,
        copies: Copies = .counted
    ) -> [String] {
        copyConditions(projectId: projectId, copies: copies)
            + Self.filterConditions(filter, days: days, page: page, nullable: true)
    }

    /// The conditions on a project's events that keep `copies` of them.
    func copyConditions(projectId: Int64, copies: Copies) -> [String] {
        let project = "project_id = \(projectId)"
        switch copies {
        case .counted:
            return [project, unique(projectId: projectId)]
        case .countedOfRedundantDevices:
            return [
                project, "device IN (\(redundantDevices(projectId: projectId)))",
                unique(projectId: projectId),
            ]
        case .redundant:
            return [
                project, "device IN (\(redundantDevices(projectId: projectId)))",
                """
                (device, message_id, sequence) IN (SELECT device, message_id, sequence
                    FROM \(database).duplicate_copies_local WHERE project_id = \(projectId))
                """,
            ]
        }
    }

    /// The conditions on a project's rows of an aggregate table for `filter`: as
    /// ``rollupConditions(projectId:filter:days:page:copies:)`` on columns that hold `''` for none.
    /// - Parameter people: leave out the devices with a redundant copy (a person aggregate).
    func aggregateConditions(projectId: Int64, filter: ReportFilter, days: Bool = true, people: Bool)
        -> [String]
    {
        var conditions = ["project_id = \(projectId)"]
        if people { conditions.append("device NOT IN (\(redundantDevices(projectId: projectId)))") }
        return conditions + Self.filterConditions(filter, days: days, page: true, nullable: false)
    }

    /// `filter`'s whole days (when `days`), app version, OS and page (when `page`) on columns that
    /// are `Nullable` (compared as `''` when NULL) or not.
    static func filterConditions(_ filter: ReportFilter, days: Bool, page: Bool, nullable: Bool)
        -> [String]
    {
        func column(_ name: String) -> String { nullable ? "ifNull(\(name), '')" : name }
        var conditions = days ? dayConditions(filter) : []
        if let version = filter.appVersion {
            conditions.append("\(column("app_version")) = \(ClickHouseFormat.literal(version))")
        }
        if let os = filter.os { conditions.append("\(column("os")) = \(ClickHouseFormat.literal(os))") }
        if page, let name = filter.page {
            conditions.append("\(column("page")) = \(ClickHouseFormat.literal(name))")
        }
        return conditions
    }

    /// The conditions on a row's `day` that keep `filter`'s whole days.
    static func dayConditions(_ filter: ReportFilter) -> [String] {
        var conditions: [String] = []
        if let from = filter.from { conditions.append("day >= \(from.dayNumber)") }
        if let to = filter.to { conditions.append("day < \(to.adding(milliseconds: -1).dayNumber + 1)") }
        return conditions
    }

    /// The 64-day blocks `filter`'s days touch, on rows with `day` and `day_block`.
    static func blockConditions(_ filter: ReportFilter) -> [String] {
        var conditions: [String] = []
        if let from = filter.from {
            let block = from.dayNumber >> 6
            conditions += ["day_block >= \(block)", "day >= \(block &<< 6)"]
        }
        if let to = filter.to {
            let block = to.adding(milliseconds: -1).dayNumber >> 6
            conditions += ["day_block <= \(block)", "day < \((block &+ 1) &<< 6)"]
        }
        return conditions
    }

    /// The contributions (``RollupDelta/Contribution``) with role `bit` and `items`' conditions
    /// of the events with `rows`' conditions. The rows' conditions are a `PREWHERE`: they drop rows
    /// (and leave out redundant copies) before `ARRAY JOIN` multiplies them, which ClickHouse
    /// does not do by itself for a query with `ARRAY JOIN`.
    func contributions(rows: [String], items: [String] = [], role bit: Int) -> String {
        """
        FROM \(database).\(tables.events) ARRAY JOIN kinds AS kind, keys AS key, roles AS role
        PREWHERE \(rows.joined(separator: " AND "))
        WHERE \((items + ["bitAnd(role, \(bit)) != 0"]).joined(separator: " AND "))
        """
    }

    /// `(kind, key) IN (…)` of `pairs`. The list always has two tuples at least: `IN ((1, 'a'))`
    /// would read as the list of 1 and 'a'. Kind 255 is none.
    static func keys(_ pairs: [(RollupKind, String)]) -> String {
        let some = Set(pairs.map { "(\($0.0.rawValue), \(ClickHouseFormat.literal($0.1)))" }).sorted()
        let list = some.isEmpty ? ["(255, '')", "(255, '')"] : some.count > 1 ? some : some + some
        return "(kind, key) IN (\(list.joined(separator: ", ")))"
    }

    /// `items` as a list of literals (`''` for none, which matches nothing useful).
    static func list(_ items: Set<String>) -> String {
        items.isEmpty ? "''" : items.sorted().map(ClickHouseFormat.literal).joined(separator: ", ")
    }
}
