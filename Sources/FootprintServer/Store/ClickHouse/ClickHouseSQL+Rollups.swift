import FootprintWire

/// The rollup reads: the daily counts, element texts and person days the SQLite rollups give.
extension ClickHouseSQL {
    /// Daily counts per day, kind and key: the `daily_counts` aggregate, less the contributions
    /// of the redundant copies it counted.
    func rollupCounts(projectId: Int64, filter: ReportFilter) -> String {
        """
        SELECT day, kind, key, sum(counted) FROM (
            SELECT day, kind, key, sumMerge(count) AS counted FROM \(database).\(tables.dailyCounts)
            WHERE \(aggregateConditions(projectId: projectId, filter: filter, people: false).joined(separator: " AND "))
            GROUP BY day, kind, key
            UNION ALL
            SELECT day, kind, key, -toInt64(count()) AS counted
            \(contributions(rows: rollupConditions(projectId: projectId, filter: filter, copies: .redundant), role: 1))
            GROUP BY day, kind, key
        ) GROUP BY day, kind, key HAVING sum(counted) != 0
        """
    }

    /// Daily counts of `kinds` per kind, key, page and day, as ``rollupCounts(projectId:filter:)``.
    func rollupPageCounts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>) -> String {
        let kind = "kind IN (\(kinds.map { String($0.rawValue) }.sorted().joined(separator: ", ")))"
        return """
            SELECT kind, key, page, day, sum(counted) FROM (
                SELECT kind, key, page, day, sumMerge(count) AS counted FROM \(database).\(tables.dailyCounts)
                WHERE \((aggregateConditions(projectId: projectId, filter: filter, people: false) + [kind]).joined(separator: " AND "))
                GROUP BY kind, key, page, day
                UNION ALL
                SELECT kind, key, ifNull(page, '') AS page, day, -toInt64(count()) AS counted
                \(contributions(rows: rollupConditions(projectId: projectId, filter: filter, copies: .redundant), items: [kind], role: 1))
                GROUP BY kind, key, page, day
            ) GROUP BY kind, key, page, day HAVING sum(counted) != 0
            """
    }

    /// The element texts of element clicks (kinds 2 and 3 among `kinds`) per kind, key, page and
    /// day: per app version and OS the last one stored, then the greatest of those (as the SQLite
    /// rollup rows give it); from `person_days`, with the devices that have a redundant copy read
    /// from their counted events.
    func elementTexts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>) -> String {
        let kind = "kind IN (\(kinds.map { String($0.rawValue) }.sorted().joined(separator: ", ")))"
        let rows = rollupConditions(projectId: projectId, filter: filter, copies: .countedOfRedundantDevices)
        return """
            SELECT kind, key, page, day, max(if(last.1 > 0, last.2, NULL)) FROM (
                SELECT kind, key, page, day, max(last) AS last FROM (
                    SELECT kind, key, page, day, app_version, os, maxIfMerge(last_text) AS last
                    FROM \(database).\(tables.personDays)
                    WHERE \((aggregateConditions(projectId: projectId, filter: filter, people: true) + [kind]).joined(separator: " AND "))
                    GROUP BY kind, key, page, day, app_version, os
                    UNION ALL
                    SELECT kind, key, ifNull(page, '') AS page, day, ifNull(app_version, '') AS app_version,
                        ifNull(os, '') AS os,
                        maxIf((sequence, ifNull(element_text, '')), isNotNull(element_text)) AS last
                    \(contributions(rows: rows, items: [kind], role: 2))
                    GROUP BY kind, key, page, day, app_version, os
                ) GROUP BY kind, key, page, day, app_version, os
            ) GROUP BY kind, key, page, day
            """
    }

    /// Who did what in which 64-day blocks: the day bits per key, block, anonymous id, user id
    /// and page (`''` for each unless `pages`); from `person_days`, with the devices that have a
    /// redundant copy read from their counted events.
    func rollupPersonDays(
        projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?, pages: Bool
    ) -> String {
        var items = ["kind = \(kind.rawValue)"]
        if let keys { items.append("key IN (\(Self.list(keys)))") }
        let blocks = Self.blockConditions(filter)
        let aggregate = aggregateConditions(projectId: projectId, filter: filter, days: false, people: true)
        let rows =
            rollupConditions(
                projectId: projectId, filter: filter, days: false, copies: .countedOfRedundantDevices)
            + blocks
        let page = pages ? "page" : "''"
        return """
            SELECT key, day_block, device, user_id, \(page) AS on_page, groupBitOr(day_bit)
            FROM \(database).\(tables.personDays)
            WHERE \((aggregate + items + blocks).joined(separator: " AND "))
            GROUP BY key, day_block, device, user_id, on_page
            UNION ALL
            SELECT key, day_block, ifNull(anonymous_id, ''), ifNull(user_id, ''), \(pages ? "ifNull(page, '')" : "''") AS on_page,
                groupBitOr(day_bit)
            \(contributions(rows: rows, items: items, role: 2))
            GROUP BY key, day_block, anonymous_id, user_id, on_page
            """
    }
}
