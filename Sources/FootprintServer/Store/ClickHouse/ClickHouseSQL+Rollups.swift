import FootprintWire

/// The rollup reads: the daily counts, element texts and person days the SQLite rollups give.
extension ClickHouseSQL {
    /// Daily counts per day, kind and key: the `daily_counts` aggregate, less the contributions
    /// of the redundant copies it counted; of `kinds` only, or of every kind (INSERTs' marks left
    /// out).
    func rollupCounts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>? = nil)
        -> ClickHouseQuery<RollupCount>
    {
        let notMark = kinds.map(RollupKind.sqlCondition) ?? "kind != \(Self.insertMarkKind)"
        return ClickHouseQuery(
            """
            SELECT day, kind, key, sum(counted) FROM (
                SELECT day, kind, key, sumMerge(count) AS counted FROM \(database).\(tables.dailyCounts)
                WHERE \((aggregateConditions(projectId: projectId, filter: filter, people: false) + [notMark]).joined(separator: " AND "))
                GROUP BY day, kind, key
                UNION ALL
                SELECT day, kind, key, -toInt64(count()) AS counted
                \(contributions(rows: rollupConditions(projectId: projectId, filter: filter, copies: .redundant), items: [notMark], role: 1))
                GROUP BY day, kind, key
            ) GROUP BY day, kind, key HAVING sum(counted) != 0
            """, fields: 4
        ) { row throws(ServerError) in
            RollupCount(
                day: try row.int64(0), kind: try row.kind(1), key: row.string(2), count: try row.int(3))
        }
    }

    /// Daily counts of `kinds` per kind, key, page and day, as ``rollupCounts(projectId:filter:)``.
    func rollupPageCounts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>)
        -> ClickHouseQuery<(key: [Substring], count: RollupPageCount)>
    {
        let kind = RollupKind.sqlCondition(kinds)
        let sql = """
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
        return ClickHouseQuery(sql, fields: 5) { row throws(ServerError) in
            (
                Array(row.fields[0..<4]),
                RollupPageCount(
                    kind: try row.kind(0), key: row.string(1), page: row.string(2), day: try row.int64(3),
                    count: try row.int(4), text: nil)
            )
        }
    }

    /// The days, kinds and keys of `filter`'s element clicks (kinds 2 and 3 among `kinds`) with
    /// a row of a device that has a redundant copy (a subquery of `kind, key, day`): those
    /// ``elementTexts(projectId:filter:kinds:copied:)`` reads from the person rows.
    private func copiedClickGroups(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>) -> String {
        """
        SELECT kind, key, day FROM \(database).\(tables.personDays)
        PREWHERE \((aggregateConditions(projectId: projectId, filter: filter, people: false) + [RollupKind.sqlCondition(kinds)]).joined(separator: " AND "))
            AND device IN (\(redundantDevices(projectId: projectId)))
        GROUP BY kind, key, day
        """
    }

    /// How many ``copiedClickGroups(projectId:filter:kinds:)`` there are (none in the usual
    /// case, where no device has a redundant copy): read before the texts.
    func copiedClickGroupCount(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>)
        -> ClickHouseQuery<Int64>
    {
        ClickHouseQuery.number(
            "SELECT count() FROM (\(copiedClickGroups(projectId: projectId, filter: filter, kinds: kinds)))")
    }

    /// The element texts of element clicks (kinds 2 and 3 among `kinds`) per kind, key, page and
    /// day: per app version and OS the last one stored, then the greatest of those (as the SQLite
    /// rollup rows give it); from `element_texts`, a few rows per element and day.
    ///
    /// `element_texts` keeps every stored copy's text, the redundant ones' too, and copies of one
    /// message may differ (a client can send anything twice). So with `copied` (there are
    /// ``copiedClickGroups(projectId:filter:kinds:)``), those days, kinds and keys are read as the
    /// person rows keep them instead: from `person_days` for the other devices, and from the
    /// counted events of the devices with a redundant copy. (Both reads scan every person row of
    /// the range, so they are sent only when some group is copied.)
    func elementTexts(projectId: Int64, filter: ReportFilter, kinds: Set<RollupKind>, copied: Bool)
        -> ClickHouseQuery<(key: [Substring], text: String?)>
    {
        let kind = RollupKind.sqlCondition(kinds)
        let groups = copiedClickGroups(projectId: projectId, filter: filter, kinds: kinds)
        let texts = aggregateConditions(projectId: projectId, filter: filter, people: false) + [kind]
        // The last texts of a table that keeps them as `last_text` states.
        func merged(from table: String, where conditions: [String]) -> String {
            """
            SELECT kind, key, page, day, app_version, os, maxIfMerge(last_text) AS last
            FROM \(database).\(table) WHERE \(conditions.joined(separator: " AND "))
            GROUP BY kind, key, page, day, app_version, os
            """
        }
        var reads = [
            merged(
                from: tables.elementTexts,
                where: texts + (copied ? ["(kind, key, day) GLOBAL NOT IN (\(groups))"] : []))
        ]
        if copied {
            let rows = rollupConditions(
                projectId: projectId, filter: filter, copies: .countedOfRedundantDevices)
            reads += [
                merged(
                    from: tables.personDays,
                    where: aggregateConditions(projectId: projectId, filter: filter, people: true) + [
                        kind, "(kind, key, day) GLOBAL IN (\(groups))",
                    ]),
                """
                SELECT kind, key, ifNull(page, '') AS page, day, ifNull(app_version, '') AS app_version,
                    ifNull(os, '') AS os,
                    maxIf((sequence, ifNull(element_text, '')), isNotNull(element_text)) AS last
                \(contributions(rows: rows, items: [kind], role: 2))
                GROUP BY kind, key, page, day, app_version, os
                """,
            ]
        }
        let sql = """
            SELECT kind, key, page, day, max(if(last.1 > 0, last.2, NULL)) FROM (
                SELECT kind, key, page, day, max(last) AS last FROM (
                    \(reads.joined(separator: "\nUNION ALL\n"))
                ) GROUP BY kind, key, page, day, app_version, os
            ) GROUP BY kind, key, page, day
            """
        return ClickHouseQuery(sql, fields: 5) { row throws(ServerError) in
            _ = (try row.kind(0), try row.int64(3))
            return (Array(row.fields[0..<4]), row.text(4))
        }
    }

    /// Who did what in which 64-day blocks: the day bits per key, block, anonymous id, user id
    /// and page (`''` for each with ``RollupPersonDays/Pages/merged``); from `person_days`, with the devices that have a
    /// redundant copy read from their counted events.
    func rollupPersonDays(
        projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?,
        pages: RollupPersonDays.Pages
    )
        -> ClickHouseQuery<
            (key: String, block: Int64, anonymousId: String, userId: String, page: String, days: UInt64)
        >
    {
        var items = ["kind = \(kind.rawValue)"]
        if let keys { items.append("key IN (\(Self.list(keys)))") }
        let blocks = Self.blockConditions(filter)
        let aggregate = aggregateConditions(projectId: projectId, filter: filter, days: false, people: true)
        let rows =
            rollupConditions(
                projectId: projectId, filter: filter, days: false, copies: .countedOfRedundantDevices)
            + blocks
        let (page, eventPage) = pages == .each ? ("page", "ifNull(page, '')") : ("''", "''")
        let sql = """
            SELECT key, day_block, device, user_id, \(page) AS on_page, groupBitOr(day_bit)
            FROM \(database).\(tables.personDays)
            WHERE \((aggregate + items + blocks).joined(separator: " AND "))
            GROUP BY key, day_block, device, user_id, on_page
            UNION ALL
            SELECT key, day_block, ifNull(anonymous_id, ''), ifNull(user_id, ''), \(eventPage) AS on_page,
                groupBitOr(day_bit)
            \(contributions(rows: rows, items: items, role: 2))
            GROUP BY key, day_block, anonymous_id, user_id, on_page
            """
        return ClickHouseQuery(sql, fields: 6) { row throws(ServerError) in
            (row.string(0), try row.int64(1), row.string(2), row.string(3), row.string(4), try row.uint64(5))
        }
    }
}
