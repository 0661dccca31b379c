import FootprintWire

/// The settled people: each *member*'s days per kind and key, written by a round beside the
/// settled session figures and read instead of the person rows by the people counts (see
/// docs/ARCHITECTURE.md, *Settled people*).
///
/// A member is what a person is made of, as on SQLite (``PersonSet``): every event of one user
/// id, or every event without a user id of one anonymous id. A member never changes; the links
/// only say which members make one person. So a round keeps, per kind, key and member, the
/// member's days as one 64-bit mask per 64-day block from the round's first block
/// (`first_block`, `days`), with no link applied, and a read applies the links as they are then:
/// - the members that are not *affected* are each a person alone, and their rows are counted as
///   they are, one row one person, with no person grouped;
/// - the affected members (every member of a person of two members or more, and every member of a
///   person with rows written after the round's cutoff) are resolved to their person and grouped
///   with the rows that person had written since, from `touched_rows`
///   (``touchedRows(of:)``), which keeps each INSERT's people rows with the shard's time.
///
/// Each person is wholly on one side: the members of a person of two members or more are a
/// linked device with events without a user id and its person, or one id that is both a user id
/// and such a device (the round lists those); a person with rows written since has all of its
/// members among the affected. The masks are OR-ed, so rows written since that the round also saw
/// count once. A day that goes on receiving events costs a read the people who sent them since
/// the round, not every person of that day.
extension ClickHouseSQL {
    /// The columns of `settled_people`.
    static let settledPeopleColumns = """
        project_id Int64, round String, kind UInt8, key String, member String, anonymous UInt8,
            first_block Int64, days Array(UInt64)
        """

    /// The kinds a round settles: those whose people the reports count over a range with no page,
    /// app version or OS (``EventStore/peopleCounts(projectId:filter:kind:keys:)`` and
    /// ``EventStore/activity(projectId:filter:)``).
    static let settledPeopleKinds: Set<RollupKind> = blockKinds.union([.pageViews])

    /// The `kind` of the rows of page views of any page (`key` `''`): the visitors per day.
    static let anyPageKind = 100

    /// The `kind` of a round's one row that says it has settled people: `days` holds the number
    /// of copy records (``copyRecords(projectId:)``) the round saw. (Rounds made before
    /// `touched_members` marked theirs 101, before ``linkedMembersKind`` 103, before the
    /// settled totals 104, and before ``labelledKinds`` and `touched_rows` 106: they lack what a
    /// read takes, or the rows written since them were kept where a read no longer looks, so
    /// they are not read.)
    static let copiesSeenKind = 107

    /// The `kind` of a round's rows of the members of linked people as the links were then: each
    /// linked device with events without a user id (`member`) and its smallest linked user id
    /// (`key`), its person. A read adds those of the links written since
    /// (``touchedLinksTables``).
    static let linkedMembersKind = 105

    /// The `kind` of a round's rows of the ids that are both a user id and a device with events
    /// without one (`member`): two members of one person with no link between them.
    static let sharedIdsKind = 102

    /// The table of what came after a round (an aggregate table: made with the others, cut at the
    /// retention horizon and per person with them, but not filled from the events of a database
    /// made before it): per INSERT, its people rows of the settled kinds per page, app version
    /// and OS (what a read filtered on one of them takes, ``SettledLabel``), with the shard's
    /// time in seconds (`touched`). Sorted by that time, so that a read of the rows after a
    /// round's cutoff reads those only; partitioned by its hour, so that the settling thread
    /// drops the hours no read takes (``staleTouchedHours``). Its view's name sorts after those
    /// of `person_days` and `person_blocks`, so an INSERT's time here is taken once their rows
    /// are written: a row a round did not see has a time after the round's cutoff. (It replaces
    /// `touched_members`, which had no page, app version or OS: ``retiredTables``.)
    static func touchedRows(of events: String) -> Aggregate {
        let kinds = settledPeopleKinds.map { "\($0.rawValue)" }.sorted().joined(separator: ", ")
        return Aggregate(
            name: "touched_rows",
            columns: """
                project_id Int64, touched Int64, kind UInt8, key String, day Int64, device String,
                    user_id String, page String, app_version String, os String
                """,
            family: "MergeTree",
            orderBy: "project_id, touched, kind, key, day, device, user_id, page, app_version, os",
            select: """
                SELECT project_id, toInt64(toUnixTimestamp(now())) AS touched, kind, key, day, device,
                    ifNull(user_id, '') AS user_id, \(strings)
                \(contributions(of: events, items: ["kind IN (\(kinds))"], role: 2))
                GROUP BY project_id, kind, key, day, device, user_id, page, app_version, os
                """,
            filled: false, partitionBy: "intDiv(touched, 3600)")
    }

    /// The statements that drop, on one shard, the tables an earlier version made and this one
    /// no longer reads nor fills: `touched_members` (now ``touchedRows(of:)``), its view first so
    /// that no INSERT feeds it meanwhile. Rounds made before it are not read for people
    /// (``copiesSeenKind``).
    var retiredTables: [String] {
        ["touched_members_mv", "touched_members", "touched_members_local"].map {
            "DROP TABLE IF EXISTS \(database).\($0)"
        }
    }

    /// The table of the links written since a round, and the view that fills it from
    /// `identities_local`: per INSERT of links, each anonymous id with the shard's time in
    /// seconds, sorted and partitioned like `touched_rows` (``touchedRows(of:)``), whose
    /// hours it shares. The view runs once the links' part is written, so a link a round did not
    /// see has a later time than the round's cutoff.
    var touchedLinksTables: [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS \(database).touched_links_local (project_id Int64, touched Int64, anonymous_id String)
            ENGINE = \(engine("MergeTree", table: "touched_links_local")) PARTITION BY intDiv(touched, 3600)
            ORDER BY (project_id, touched, anonymous_id)
            """,
            """
            CREATE MATERIALIZED VIEW IF NOT EXISTS \(database).touched_links_mv TO \(database).touched_links_local AS
            SELECT project_id, toInt64(toUnixTimestamp(now())) AS touched, anonymous_id FROM \(database).identities_local
            """,
        ]
    }

    /// The tables whose hours the settling thread drops (``staleTouchedHours``).
    static let touchedTables = ["touched_rows_local", "touched_links_local"]

    /// Seconds `touched_rows` and `touched_links` keep their rows (whole hours, dropped by the
    /// settling thread).
    static let touchedKept: Int64 = 2 * 86_400

    /// Seconds after which a round's people are read only while nothing was touched since: the
    /// rows written after an older cutoff may have been dropped (``touchedKept``).
    static let touchedRead: Int64 = 86_400

    /// The hours of ``touchedTables`` on the node that runs it older than ``touchedKept``: their
    /// partitions to drop, `table, hour`.
    var staleTouchedHours: ClickHouseQuery<(table: String, hour: Int64)> {
        let sql = """
            SELECT DISTINCT table, toInt64(partition) FROM system.parts
            WHERE database = \(ClickHouseFormat.literal(database)) AND table IN (\(Self.list(Set(Self.touchedTables))))
                AND active AND toInt64(partition) < intDiv(toInt64(toUnixTimestamp(now())) - \(Self.touchedKept), 3600)
            """
        return ClickHouseQuery(sql, fields: 2) { row throws(ServerError) in (row.string(0), try row.int64(1))
        }
    }

    /// Drops one hour of `table` (one of ``touchedTables``) on the node that runs it.
    func dropTouchedHour(_ hour: Int64, of table: String) -> String? {
        guard Self.touchedTables.contains(table) else { return nil }
        return "ALTER TABLE \(database).\(table) DROP PARTITION \(hour)"
    }

    /// A project's records of redundant copies, each counted once however many times it is
    /// stored: a record made or taken back after a round may change what a member's rows count,
    /// so the round's people no longer hold.
    func copyRecords(projectId: Int64) -> String {
        """
        SELECT toUInt64(uniqExact(device, message_id, sequence)) FROM \(database).\(tables.duplicateCopies)
        WHERE project_id = \(projectId)
        """
    }

    /// A project's first 64-day block with a person row (`nil` when it has none): the block of a
    /// round's masks at `days[1]`.
    func firstPersonBlock(projectId: Int64) -> ClickHouseQuery<Int64> {
        ClickHouseQuery.number(
            """
            SELECT min(day_block) FROM \(database).\(tables.personDays) WHERE project_id = \(projectId)
            HAVING count() > 0
            """)
    }

    /// A member of a row: its user id, else its device.
    static let member = "if(user_id != '', user_id, device)"

    /// The member rows of `kinds`: `kind, key, member, anonymous, day_block, mask` (the row's days
    /// of its block), from `table` (`person_blocks`, or `person_days` with `day_bit`) for the
    /// devices with no redundant copy, and from the counted events of the others; only those of
    /// the members `members` lists when given (a subquery).
    private func memberRows(
        projectId: Int64, kinds: String, from table: String, mask: String, as output: String,
        members: String?
    )
        -> String
    {
        let counted =
            copyConditions(projectId: projectId, copies: .countedOfRedundantDevices)
        let only = members.map { "WHERE \(Self.member) GLOBAL IN (\($0))" } ?? ""
        return """
            SELECT \(output), \(Self.member) AS member, toUInt8(user_id = '') AS anonymous, day_block, \(mask) AS mask
            FROM \(database).\(table)
            PREWHERE \(aggregateConditions(projectId: projectId, filter: ReportFilter(), people: true).joined(separator: " AND ")) AND \(kinds)
            \(only)
            UNION ALL
            SELECT \(output), \(Self.member) AS member, toUInt8(user_id = '') AS anonymous, day_block, day_bit AS mask FROM (
                SELECT kind, key, day_block, day_bit, device, ifNull(user_id, '') AS user_id, \(Self.strings)
                \(contributions(rows: counted, items: [kinds], role: 2)))
            \(only)
            """
    }

    /// Writes a round's settled people: per kind, key and member, the member's days per block
    /// from `firstBlock` on; the page views also as page views of any page
    /// (``anyPageKind``); the row that says the round has them (``copiesSeenKind``, with
    /// `firstBlock`); and the ids of two members (``sharedIdsKind``), from the rows written before.
    ///
    /// With `before` (a round whose people still hold, from the same first block, with the copy
    /// records there are now; its cutoff `after`, this round's `upTo`), the members with no row
    /// written after `after` up to `upTo` keep their rows as it has them (copied), and only the
    /// others are grouped from the person rows: a round then costs the people who sent events
    /// since the one before, not every person. The members are those of a fixed span, so that
    /// each statement takes the same ones: a member with rows only after `upTo` is copied, and the
    /// reads add those rows (and a row of the span that comes later voids this round).
    func settlePeople(
        projectId: Int64, round: String, firstBlock: Int64,
        before: (round: String, after: Int64, upTo: Int64)? = nil
    ) -> [String] {
        let into = """
            INSERT INTO \(database).\(tables.settledPeople) (project_id, round, kind, key, member, anonymous, first_block, days)
            """
        let head = "SELECT \(projectId), \(ClickHouseFormat.literal(round))"
        let masks = """
            \(firstBlock), groupBitOrForEach(arrayPushBack(arrayResize(emptyArrayUInt64(), toUInt64(day_block - \(firstBlock))), mask))
            """
        let blocks = Self.blockKinds.map { "\($0.rawValue)" }.sorted().joined(separator: ", ")
        let pages = "kind = \(RollupKind.pageViews.rawValue)"
        let changed = before.map {
            """
            SELECT DISTINCT \(Self.member) FROM \(database).\(tables.touchedRows)
            WHERE project_id = \(projectId) AND touched > \($0.after) AND touched <= \($0.upTo)
            """
        }
        var copied: [String] = []
        if let before, let changed {
            let kinds = Self.settledKindCodes
            copied.append(
                """
                \(into)
                \(head), kind, key, member, anonymous, first_block, days FROM \(database).\(tables.settledPeople)
                PREWHERE project_id = \(projectId) AND round = \(ClickHouseFormat.literal(before.round))
                    AND kind IN (\(kinds.map(String.init).joined(separator: ", ")))
                WHERE member GLOBAL NOT IN (\(changed))
                """)
        }
        return copied + [
            """
            \(into)
            \(head), kind, key, member, anonymous, \(masks)
            FROM (\(memberRows(projectId: projectId, kinds: "kind IN (\(blocks))", from: tables.personBlocks, mask: "finalizeAggregation(days)", as: "kind, key", members: changed)))
            GROUP BY kind, key, member, anonymous
            """,
            """
            \(into)
            \(head), kind, key, member, anonymous, \(masks)
            FROM (\(memberRows(projectId: projectId, kinds: pages, from: tables.personDays, mask: "day_bit", as: "kind, key", members: changed)))
            GROUP BY kind, key, member, anonymous
            """,
            """
            \(into)
            \(head), \(Self.anyPageKind), '', member, anonymous, \(masks)
            FROM (\(memberRows(projectId: projectId, kinds: pages, from: tables.personDays, mask: "day_bit", as: "kind", members: changed)))
            GROUP BY member, anonymous
            """,
        ]
            + Self.settleLabelled(into: into, head: head, masks: masks) { kinds, output in
                memberRows(
                    projectId: projectId, kinds: kinds, from: tables.personDays, mask: "day_bit", as: output,
                    members: changed)
            } + [
                """
                \(into)
                \(head), \(Self.copiesSeenKind), '', '', 0, \(firstBlock), [(\(copyRecords(projectId: projectId)))]
                """,
                """
                \(into)
                \(head), \(Self.sharedIdsKind), '', member, 0, 0, emptyArrayUInt64()
                FROM \(database).\(tables.settledPeople)
                WHERE project_id = \(projectId) AND round = \(ClickHouseFormat.literal(round)) AND kind = \(RollupKind.anyEvent.rawValue)
                GROUP BY member HAVING uniqExact(anonymous) = 2
                """,
                """
                \(into)
                \(head), \(Self.linkedMembersKind), key, member, 0, 0, emptyArrayUInt64()
                FROM (\(linkedPairs(projectId: projectId, round: round)))
                """,
            ] + settleTotals(projectId: projectId, round: round)
    }

    /// Whether round `round` has settled people, and the copy records it saw against those there
    /// are now: `rows` (its rows of kind ``copiesSeenKind``: 0 or 1), `seen`, `now`; its first
    /// block; the time of the node that runs it, in seconds; and whether it has its totals
    /// (``hasTotals(projectId:round:)``, 0 or 1).
    func settledPeopleCheck(projectId: Int64, round: String)
        -> ClickHouseQuery<
            (rows: Int64, seen: Int64, now: Int64, firstBlock: Int64, time: Int64, totals: Int64)
        >
    {
        let sql = """
            SELECT count(), toInt64(any(days[1])), toInt64((\(copyRecords(projectId: projectId)))),
                any(first_block), toInt64(toUnixTimestamp(now())), toInt64((\(hasTotals(projectId: projectId, round: round))))
            FROM \(database).\(tables.settledPeople)
            WHERE project_id = \(projectId) AND round = \(ClickHouseFormat.literal(round)) AND kind = \(Self.copiesSeenKind)
            """
        return ClickHouseQuery(sql, fields: 6) { row throws(ServerError) in
            (
                try row.int64(0), try row.int64(1), try row.int64(2), try row.int64(3), try row.int64(4),
                try row.int64(5)
            )
        }
    }

    /// A settled row's days of `filter`'s range as a mask (bit `n`: day `n` of the range, at most
    /// ``maskedDays``): the masks of the range's first block and the next, moved.
    static func settledRangeDays(_ filter: ReportFilter) -> String {
        let (first, count) = RollupReports.days(of: filter)
        let block = first >> 6
        let offset = first &- (block &<< 6)
        let range = rangeBits(count)
        func days(of block: Int64) -> String {
            "if(first_block <= \(block), arrayElement(days, \(block) - first_block + 1), toUInt64(0))"
        }
        let moved =
            offset == 0
            ? days(of: block)
            : "bitOr(bitShiftRight(\(days(of: block)), \(offset)), bitShiftLeft(\(days(of: block &+ 1)), \(64 - offset)))"
        return "bitAnd(\(moved), toUInt64(\(range)))"
    }

    /// The people counted by a settled read: which rows of which kinds.
    struct SettledPeopleItems {
        /// The settled kind (a ``RollupKind`` or ``anyPageKind``).
        var kind: Int
        /// Only these keys; `nil` for every key.
        var keys: Set<String>?
        /// The read's one page, app version or OS: the round keeps the kind's rows of each value
        /// as one of ``labelledKinds``, and page views (per page, or of any page) on one page are
        /// that page's own rows; `nil`: the kind's own rows.
        var label: SettledLabel? = nil

        /// Which rows the round keeps of them.
        private enum Stored {
            /// The kind's own rows.
            case own
            /// The rows of ``labelledKinds``' `kind` for `label`.
            case labelled(SettledLabel, kind: Int)
            /// The page views of `page` (page views on that page).
            case page(String)
        }

        private var stored: Stored {
            guard let label else { return .own }
            let views = Int(RollupKind.pageViews.rawValue)
            if label.dimension == .page, kind == views || kind == ClickHouseSQL.anyPageKind {
                return .page(label.value)
            }
            return ClickHouseSQL.labelledKind(kind, by: label.dimension).map { .labelled(label, kind: $0) }
                ?? .own
        }

        /// The kind of the rows the round keeps of them.
        var storedKind: Int {
            switch stored {
            case .own: kind
            case .labelled(_, let kind): kind
            case .page: Int(RollupKind.pageViews.rawValue)
            }
        }

        /// Whether the round keeps their rows by a label with the page in the key (page views per
        /// page, per app version or OS).
        private var pagedKeys: Bool {
            if case .labelled = stored { kind == Int(RollupKind.pageViews.rawValue) } else { false }
        }

        /// The condition on the kind and key of a row the round keeps of them.
        var condition: String {
            var condition = "kind = \(storedKind)"
            switch stored {
            case .labelled(let label, _):
                let prefix = label.keyPrefix
                if !pagedKeys {
                    condition += " AND key = \(ClickHouseFormat.literal(label.value))"
                } else if let keys {
                    condition += " AND key IN (\(ClickHouseSQL.list(Set(keys.map { prefix + $0 }))))"
                } else {
                    condition += """
                         AND key >= \(ClickHouseFormat.literal(prefix)) \
                        AND substring(key, 1, \(prefix.utf8.count)) = \(ClickHouseFormat.literal(prefix))
                        """
                }
            case .page(let page):
                let pages = keys.map { $0.intersection([page]) } ?? [page]
                condition += pages.isEmpty ? " AND 0" : " AND key IN (\(ClickHouseSQL.list(pages)))"
            case .own:
                if let keys { condition += " AND key IN (\(ClickHouseSQL.list(keys)))" }
            }
            return "(\(condition))"
        }

        /// The rows written since that they count, as one read of the person rows takes them (the
        /// read's filter applies the label): the conditions on those rows' kind and key, and the
        /// stored kind and key each gives (`of_kind`, `of_key`).
        var written: (conditions: [String], kind: String, key: String) {
            let rowKind =
                kind == ClickHouseSQL.anyPageKind ? Int(RollupKind.pageViews.rawValue) : kind
            var conditions = ["kind = \(rowKind)"]
            if let keys { conditions.append("key IN (\(ClickHouseSQL.list(keys)))") }
            let stored = "toUInt8(\(storedKind))"
            switch self.stored {
            case .labelled(let label, _) where pagedKeys:
                return (conditions, stored, "concat(\(ClickHouseFormat.literal(label.keyPrefix)), key)")
            case .labelled(let label, _): return (conditions, stored, ClickHouseFormat.literal(label.value))
            case .page(let page): return (conditions, stored, ClickHouseFormat.literal(page))
            case .own:
                return kind == ClickHouseSQL.anyPageKind
                    ? (conditions, stored, "''") : (conditions, "kind", "key")
            }
        }

        /// The kind and key a stored row of them counts for, `nil` when it is not one of theirs.
        func reported(kind stored: Int, key: String) -> (kind: Int, key: String)? {
            guard stored == storedKind else { return nil }
            switch self.stored {
            case .own: return (kind, key)
            case .page(let page):
                guard key == page else { return nil }
                return (kind, kind == ClickHouseSQL.anyPageKind ? "" : page)
            case .labelled(let label, _):
                guard pagedKeys else { return (kind, "") }
                let prefix = label.keyPrefix.utf8
                guard key.utf8.starts(with: prefix) else { return nil }
                return (kind, String(decoding: key.utf8.dropFirst(prefix.count), as: UTF8.self))
            }
        }
    }

    /// The members of linked people (each linked device and its smallest linked user id) among
    /// the devices `anonymousIds` lists (a subquery): what a read adds for the links written
    /// since.
    private func linkedMembers(projectId: Int64, anonymousIds: String) -> String {
        let identities = "\(database).\(tables.identities)"
        return """
            SELECT arrayJoin([anonymous_id, min(user_id)]) AS member FROM \(identities)
            WHERE project_id = \(projectId) AND anonymous_id GLOBAL IN (\(anonymousIds))
            GROUP BY anonymous_id
            """
    }

    /// Round `round`'s linked devices with events without a user id and the smallest user id
    /// each is linked to: `member, key`, what the round keeps (``linkedMembersKind``).
    private func linkedPairs(projectId: Int64, round: String) -> String {
        let identities = "\(database).\(tables.identities)"
        return """
            SELECT anonymous_id AS member, min(user_id) AS key FROM \(identities)
            WHERE project_id = \(projectId) AND anonymous_id GLOBAL IN (
                SELECT member FROM \(database).\(tables.settledPeople)
                PREWHERE project_id = \(projectId) AND round = \(ClickHouseFormat.literal(round))
                    AND kind = \(RollupKind.anyEvent.rawValue) AND anonymous = 1
                WHERE member GLOBAL IN (SELECT anonymous_id FROM \(identities) WHERE project_id = \(projectId)))
            GROUP BY anonymous_id
            """
    }

    /// The members a settled read of `filter` groups per person (the *affected*), as a
    /// subquery: those of every person of two members or more as round `round` has them and the
    /// links are now (the round's ``linkedMembersKind`` rows, those of the links written after
    /// `cutoff`, and the ids that are both a user id and such a device, ``sharedIdsKind``), and
    /// the people with rows of the range written after `cutoff` (their ids as the reports resolve
    /// them; the links of their devices sent as ``linksSinceTable`` when `linksSent`).
    func affectedMembers(
        projectId: Int64, filter: ReportFilter, round: String, cutoff: Int64, linksSent: Bool = false
    ) -> String {
        [
            groupedMembers(projectId: projectId, round: round),
            linkedMembers(
                projectId: projectId, anonymousIds: linkedSince(projectId: projectId, cutoff: cutoff)),
            """
            SELECT person AS member FROM (\(peopleSince(
                projectId: projectId, filter: filter, cutoff: cutoff, linksSent: linksSent)))
            """,
        ].joined(separator: " UNION ALL ")
    }

    /// The anonymous ids linked after `cutoff` (a subquery of `anonymous_id`).
    func linkedSince(projectId: Int64, cutoff: Int64) -> String {
        """
        SELECT anonymous_id FROM \(database).\(tables.touchedLinks)
        WHERE project_id = \(projectId) AND touched > \(cutoff)
        """
    }

    /// The devices with rows written after `cutoff` (a subquery of `device`).
    func devicesSince(projectId: Int64, cutoff: Int64) -> String {
        """
        SELECT device FROM \(database).\(tables.touchedRows)
        WHERE project_id = \(projectId) AND touched > \(cutoff)
        """
    }

    /// The links of the devices with rows written after `cutoff` (``devicesSince(projectId:cutoff:)``),
    /// each device's smallest linked user id, at most `limit + 1` of them: looked up once per
    /// report and sent with its reads of the rows written since as ``linksSinceTable``.
    func linksSince(projectId: Int64, cutoff: Int64, limit: Int) -> ClickHouseQuery<SinceLink> {
        ClickHouseQuery(
            """
            SELECT device, linked FROM (\(links(projectId: projectId, among: devicesSince(projectId: projectId, cutoff: cutoff))))
            LIMIT \(limit &+ 1)
            """, fields: 2
        ) { row throws(ServerError) in SinceLink(device: row.string(0), linked: row.string(1)) }
    }

    /// A device with rows written since a round and its smallest linked user id.
    struct SinceLink: Hashable, Sendable {
        var device: String
        var linked: String
    }

    /// The table of the links of the devices with rows written since a round that a read of
    /// those rows is sent (``PersonRows/touchedAfter(cutoff:linksSent:)``), as ``links(projectId:among:)``
    /// gives them.
    static let linksSinceTable = (
        name: "links_since", structure: "device String, linked String, is_linked UInt8"
    )

    /// `links` as the table ``linksSinceTable``.
    static func linksSinceTable(_ links: [SinceLink]) -> ClickHouseExternalTable {
        var rows = ClickHouseRowBinary(capacity: links.count * 80)
        for link in links {
            rows.append(link.device)
            rows.append(link.linked)
            rows.append(UInt8(1))
        }
        return ClickHouseExternalTable(
            name: linksSinceTable.name, structure: linksSinceTable.structure, rows: rows)
    }

    /// The people with rows of `filter`'s range written after `cutoff`, their ids as the reports
    /// resolve them (a subquery of `person`; the links of their devices sent as
    /// ``linksSinceTable`` when `linksSent`).
    func peopleSince(projectId: Int64, filter: ReportFilter, cutoff: Int64, linksSent: Bool = false) -> String
    {
        let people = peopleParts(
            projectId: projectId, filter: filter, items: ["kind = \(RollupKind.anyEvent.rawValue)"],
            groups: ["person"], states: [("count()", "n")],
            rows: .touchedAfter(cutoff: cutoff, linksSent: linksSent))
        return "SELECT person FROM (\(people))"
    }

    /// The affected members of a settled read (``affectedMembers(projectId:filter:round:cutoff:)``),
    /// each once: read once, then sent along with both reads. With `links`, the links of the
    /// devices with rows written since are sent with it (``linksSinceTable``).
    func affectedMemberList(
        projectId: Int64, filter: ReportFilter, round: String, cutoff: Int64, links: [SinceLink]? = nil
    ) -> ClickHouseQuery<String> {
        let members = affectedMembers(
            projectId: projectId, filter: filter, round: round, cutoff: cutoff, linksSent: links != nil)
        var query = ClickHouseQuery("SELECT DISTINCT member FROM (\(members))", fields: 1) {
            row throws(ServerError) in
            row.string(0)
        }
        query.external = Self.sent(links)
        return query
    }

    /// The tables a read of the rows written since a round is sent: ``linksSinceTable`` of
    /// `links` when given, else none.
    static func sent(_ links: [SinceLink]?) -> [ClickHouseExternalTable] {
        links.map { [linksSinceTable($0)] } ?? []
    }

    /// The table of the affected members a settled read is sent.
    static let affectedTable = (name: "affected_members", structure: "member String")

    /// `members` as the table ``affectedTable``.
    static func affectedTable(_ members: [String]) -> ClickHouseExternalTable {
        var rows = ClickHouseRowBinary(capacity: members.count * 40)
        for member in members { rows.append(member) }
        return ClickHouseExternalTable(
            name: affectedTable.name, structure: affectedTable.structure, rows: rows)
    }

    /// The conditions on round `round`'s rows of `items` (a `PREWHERE`'s).
    private func settledRows(projectId: Int64, round: String, items: [SettledPeopleItems]) -> [String] {
        [
            "project_id = \(projectId)", "round = \(ClickHouseFormat.literal(round))",
            "(\(items.map(\.condition).joined(separator: " OR ")))",
        ]
    }

    /// Round `round`'s rows of `items` of the affected members (sent as ``affectedTable``):
    /// `of_kind, of_key, device, anonymous, bits` (a subquery), `bits` their days of `filter`'s
    /// range. The members are picked in the `PREWHERE`, before the keys and days of every other
    /// member's rows are read: the affected ones are few, but spread over every part of the
    /// table, whose order cannot narrow them.
    private func affectedRows(
        projectId: Int64, filter: ReportFilter, round: String, items: [SettledPeopleItems]
    ) -> String {
        let rows = settledRows(projectId: projectId, round: round, items: items)
        return """
            SELECT kind AS of_kind, key AS of_key, member AS device, anonymous, \(Self.settledRangeDays(filter)) AS bits
            FROM \(database).\(tables.settledPeople)
            PREWHERE \(rows.joined(separator: " AND ")) AND member IN \(Self.affectedTable.name)
            """
    }

    /// The people's rows of `items` in `filter`'s range written after `cutoff`: `of_kind, of_key,
    /// person, bits`, `bits` their days of the range; one subquery for the items of their own
    /// kinds, one for each of ``anyPageKind`` (page views of any page). The links of their devices
    /// are sent as ``linksSinceTable`` when `linksSent`.
    private func rowsSince(
        projectId: Int64, filter: ReportFilter, cutoff: Int64, linksSent: Bool, items: [SettledPeopleItems]
    ) -> [String] {
        // One read per stored kind and key they give, the items of their own kinds and keys in one.
        var reads: [(conditions: [String], kind: String, key: String)] = []
        for item in items {
            let written = item.written
            let condition = "(\(written.conditions.joined(separator: " AND ")))"
            if let index = reads.firstIndex(where: { $0.kind == written.kind && $0.key == written.key }) {
                reads[index].conditions.append(condition)
            } else {
                reads.append(([condition], written.kind, written.key))
            }
        }
        return reads.map { read in
            let parts = peopleParts(
                projectId: projectId, filter: filter,
                items: ["(\(read.conditions.joined(separator: " OR ")))"],
                groups: ["\(read.kind) AS of_kind", "\(read.key) AS of_key", "person"],
                states: [("groupBitOrState(\(Self.rangeDays))", "state")],
                rows: .touchedAfter(cutoff: cutoff, linksSent: linksSent))
            return
                "SELECT of_kind, of_key, person, groupBitOrMerge(state) AS bits FROM (\(parts)) GROUP BY of_kind, of_key, person"
        }
    }

    /// The links of the affected members (sent as ``affectedTable``), all a read joins to their
    /// rows: they are few.
    private func affectedLinks(projectId: Int64) -> String {
        links(projectId: projectId, among: "SELECT member FROM \(Self.affectedTable.name)")
    }

    /// The affected members' rows of `items` (sent as ``affectedTable``; a read without totals)
    /// resolved to their people as the links are now, and those people's rows written after
    /// `cutoff`: `of_kind, of_key, person, bits` (a subquery), what a read groups per person (the
    /// links of the devices with rows written since sent as ``linksSinceTable`` when `linksSent`).
    func affectedPeople(
        projectId: Int64, filter: ReportFilter, round: String, cutoff: Int64, linksSent: Bool,
        items: [SettledPeopleItems]
    ) -> String {
        let resolved = """
            SELECT of_kind, of_key, if(anonymous = 1 AND is_linked = 1, linked, device) AS person, bits FROM (
                \(affectedRows(projectId: projectId, filter: filter, round: round, items: items))) AS members
                GLOBAL ANY LEFT JOIN (\(affectedLinks(projectId: projectId))) AS links USING device
            """
        return
            ([resolved]
            + rowsSince(
                projectId: projectId, filter: filter, cutoff: cutoff, linksSent: linksSent, items: items))
            .joined(separator: "\nUNION ALL\n")
    }

    /// The people of `items` on `filter`'s days (a range of 1…``maskedDays`` days, with no page,
    /// app version or OS), from round `round` and the rows written after its `cutoff`: per
    /// kind and key, the people of each of `spans`, as reads whose sums add up; each read is sent
    /// the `affected` members.
    ///
    /// Without `totals`, the affected members are those of
    /// ``affectedMemberList(projectId:filter:round:cutoff:)``, and two reads: every member that
    /// is not affected, each one person, measured row by row with no person grouped; and the
    /// affected members resolved to their people and grouped with the people's rows written
    /// since, the masks OR-ed. Two reads, not one `UNION ALL`: under a grouping 18.16 reads a
    /// `UNION ALL` as one stream (4× slower at 10M events).
    ///
    /// With `totals` (the round has them), the affected members are the people who changed since
    /// (``changedPeople(projectId:filter:round:cutoff:)``) and their linked devices in the
    /// round, and two reads: the round's totals; and, in one scan of those members' rows, less
    /// them grouped as the round grouped them, plus them grouped as now with their rows written
    /// since. With no member affected (no row of the range written since, no link), the totals
    /// alone.
    func settledPeople(
        projectId: Int64, filter: ReportFilter, round: String, cutoff: Int64, items: [SettledPeopleItems],
        spans: [SettledSpan], affected: [String], totals: Bool, links: [SinceLink]? = nil
    ) -> [ClickHouseQuery<(kind: Int, key: String, sums: [Int64])>] {
        let settled = "\(database).\(tables.settledPeople)"
        let rows = settledRows(projectId: projectId, round: round, items: items)
        let members = [Self.affectedTable(affected)]
        let linksSent = links != nil
        let sums = spans.indices.map { "sum(m\($0))" }.joined(separator: ", ")
        // `signed`: each person's measures times its `sign`; `reads`: it reads the rows written
        // since (sent the links of their devices when given).
        func measured(_ from: String, signed: Bool = false, reads: Bool = false) -> ClickHouseQuery<
            (kind: Int, key: String, sums: [Int64])
        > {
            let columns = spans.enumerated().map {
                "\($0.element.maskMeasure)\(signed ? " * sign" : "") AS m\($0.offset)"
            }
            let sql = """
                SELECT of_kind, of_key, \(sums) FROM (
                    SELECT of_kind, of_key, \(columns.joined(separator: ", ")) FROM (\(from)) WHERE mask != 0)
                GROUP BY of_kind, of_key
                """
            var query = ClickHouseQuery<(kind: Int, key: String, sums: [Int64])>(
                sql, fields: 2 + spans.count
            ) { row throws(ServerError) in
                var sums: [Int64] = []
                for index in spans.indices { sums.append(try row.int64(2 + index)) }
                return (try row.int(0), row.string(1), sums)
            }
            query.external = members + (reads ? Self.sent(links) : [])
            return query
        }
        guard totals else {
            let grouped = """
                SELECT of_kind, of_key, groupBitOr(bits) AS mask FROM (\(affectedPeople(
                    projectId: projectId, filter: filter, round: round, cutoff: cutoff, linksSent: linksSent,
                    items: items)))
                GROUP BY of_kind, of_key, person
                """
            let alone = """
                SELECT kind AS of_kind, key AS of_key, \(Self.settledRangeDays(filter)) AS mask FROM \(settled)
                PREWHERE \(rows.joined(separator: " AND ")) WHERE member NOT IN \(Self.affectedTable.name)
                """
            // With no member affected there is no row of the range written since either (an
            // event's rows of any kind come with its row of any event, whose person would be
            // affected), and nothing to group.
            return affected.isEmpty ? [measured(alone)] : [measured(alone), measured(grouped, reads: true)]
        }
        let total = settledTotals(
            projectId: projectId, filter: filter, round: round, items: items, spans: spans)
        // Nobody changed: no row of the range written since, no link.
        guard !affected.isEmpty else { return [total] }
        let affectedRows = affectedRows(projectId: projectId, filter: filter, round: round, items: items)
        let linked = affectedLinks(projectId: projectId)
        let live = rowsSince(
            projectId: projectId, filter: filter, cutoff: cutoff, linksSent: linksSent, items: items)
        // One scan of the affected members' rows, each row twice: less as its person in the round,
        // plus as its person now; and plus the rows written since.
        let twice = """
            SELECT of_kind, of_key, arrayJoin([(toInt64(-1), rounded), (toInt64(1), person)]) AS signed, bits FROM (
                SELECT of_kind, of_key, if(anonymous = 1 AND round_linked != '', round_linked, device) AS rounded, person, bits FROM (
                    SELECT of_kind, of_key, device, anonymous, if(anonymous = 1 AND is_linked = 1, linked, device) AS person, bits
                    FROM (\(affectedRows)) AS members
                    GLOBAL ANY LEFT JOIN (\(linked)) AS links USING device) AS resolved
                GLOBAL ANY LEFT JOIN (
                    SELECT member AS device, linked AS round_linked FROM (\(roundPeople(projectId: projectId, round: round)))
                ) AS pairs USING device)
            """
        let changes = """
            SELECT of_kind, of_key, sign, groupBitOr(bits) AS mask FROM (
                SELECT of_kind, of_key, signed.1 AS sign, signed.2 AS person, bits FROM (\(twice))
                UNION ALL
                SELECT of_kind, of_key, toInt64(1) AS sign, person, bits FROM (\(live.joined(separator: "\nUNION ALL\n"))))
            GROUP BY of_kind, of_key, sign, person
            """
        return [total, measured(changes, signed: true, reads: true)]
    }

    /// Retention cohorts (``retention(projectId:filter:returnEvent:days:)``'s rows) of `filter`'s
    /// days (1…``maskedDays``, no page, app version or OS) from round `round` without its totals
    /// (they count people per span, not per first day): reads whose counts add up, each sent the
    /// affected members (``affectedMemberList(projectId:filter:round:cutoff:)``).
    /// - `everyShard`, run on each shard: its members that are not affected, each one person,
    ///   from the shard's own rows. A member's rows are all on one shard (the table is sharded by
    ///   project and member), so its mask of `returnEvent` is joined to its mask of any event
    ///   there, by a grouping per member that no node merges.
    /// - `once`: the affected members grouped per person with the people's rows written since;
    ///   `nil` with none affected (then no row of the range was written since either, see
    ///   ``settledPeople(projectId:filter:round:cutoff:items:spans:affected:totals:)``).
    func settledRetention(
        projectId: Int64, filter: ReportFilter, round: String, cutoff: Int64, returnEvent: String?, days: Int,
        affected: [String], links: [SinceLink]? = nil
    ) -> (everyShard: ClickHouseQuery<CohortRow>, once: ClickHouseQuery<CohortRow>?) {
        let (active, returns) = (Int(RollupKind.anyEvent.rawValue), Int(RollupKind.trackEvents.rawValue))
        let items =
            [SettledPeopleItems(kind: active, keys: nil)]
            + (returnEvent.map { [SettledPeopleItems(kind: returns, keys: [$0])] } ?? [])
        var local = self
        local.tables = .local
        let members = """
            SELECT member, kind, \(Self.settledRangeDays(filter)) AS mask FROM \(database).\(local.tables.settledPeople)
            PREWHERE \(local.settledRows(projectId: projectId, round: round, items: items).joined(separator: " AND "))
            WHERE member NOT IN \(Self.affectedTable.name)
            """
        // Without a return event a member's one row is its person's masks; with one, its two
        // rows are joined per member, and the affected people's per person.
        let (alone, grouped) =
            returnEvent == nil
            ? (
                "SELECT mask AS active, mask AS returned FROM (\(members))",
                "SELECT groupBitOr(bits) AS active, active AS returned"
            )
            : (
                """
                SELECT groupBitOrIf(mask, kind = \(active)) AS active, groupBitOrIf(mask, kind = \(returns)) AS returned
                FROM (\(members)) GROUP BY member
                """,
                "SELECT groupBitOrIf(bits, of_kind = \(active)) AS active, groupBitOrIf(bits, of_kind = \(returns)) AS returned"
            )
        let external = Self.affectedTable(affected)
        var everyShard = Self.cohorts(of: alone, filter: filter, days: days)
        everyShard.external = [external]
        guard !affected.isEmpty else { return (everyShard, nil) }
        let people = affectedPeople(
            projectId: projectId, filter: filter, round: round, cutoff: cutoff, linksSent: links != nil,
            items: items)
        var once = Self.cohorts(of: "\(grouped) FROM (\(people)) GROUP BY person", filter: filter, days: days)
        once.external = [external] + Self.sent(links)
        return (everyShard, once)
    }

    /// Deletes a person's members from one shard's settled people (every round's): its user id's,
    /// and its anonymous ids' without a user id, as ``personCondition(person:anonymousIds:)``.
    func deletePersonSettled(projectId: Int64, person: String, anonymousIds: Set<String>) -> String {
        """
        ALTER TABLE \(database).settled_people_local DELETE
        WHERE project_id = \(projectId) AND ((anonymous = 0 AND member = \(ClickHouseFormat.literal(person)))
            OR (anonymous = 1 AND member IN (\(Self.list(anonymousIds)))))
        """
    }

    /// The mutations made on the node that runs it since `time` (its own clock, in seconds) but
    /// those of the rounds' own tables (a round deletes the rounds before): a round that began
    /// before a deletion's mutations were made may have written the person's members after they
    /// ran, so it is not recorded.
    func mutationsSince(_ time: Int64) -> ClickHouseQuery<Int64> {
        ClickHouseQuery.number(
            """
            SELECT count() FROM system.mutations
            WHERE database = \(ClickHouseFormat.literal(database)) AND create_time >= toDateTime(\(time))
                AND table NOT LIKE 'settled\\_%'
            """)
    }
}
