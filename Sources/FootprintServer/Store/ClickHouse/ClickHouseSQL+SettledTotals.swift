import FootprintWire

/// The settled totals: a round's people counted once for every range, so that a read counts
/// only the people who changed since (see docs/ARCHITECTURE.md, *Settled totals*).
///
/// Per kind, key and day, a round keeps how many of its people (members grouped with the links
/// as the round has them) have that day, by the *gap* to each one's day before (1…63 days, 64
/// when none of the 64 days before has one): `settled_totals`. The people of a range's days
/// `s…e` (at most ``maskedDays`` apart) are then the sum over its days `d` of those with a gap
/// over `d - s`: each person is counted on its first day there. So a read takes the round's
/// totals, takes away what the round counted of the people who changed since (grouped as the
/// round grouped them) and adds those people as they are now (grouped with the links now and
/// the rows written since), and never reads the other people's rows.
extension ClickHouseSQL {
    /// The columns of `settled_totals`.
    static let settledTotalsColumns = """
        project_id Int64, round String, kind UInt8, key String, day Int64, gap UInt8, count Int64
        """

    /// The `kind` of a round's one row of `settled_totals` that says it has them: a person's
    /// deletion deletes a project's totals, and a read then takes the members' rows.
    static let totalsMarkerKind = 255

    /// The people of the range's days `first…last` (offsets in the range, `0…63`): one measure
    /// of a settled read, computed from a person's days of the range (``maskMeasure``) or from
    /// the totals (``totalsMeasure(firstDay:)``).
    struct SettledSpan: Equatable, Sendable {
        var first: Int
        var last: Int

        /// The span's days as a mask of the range's days (bit `n`: day `n`).
        var bits: UInt64 { ClickHouseSQL.rangeBits(last + 1) & ~ClickHouseSQL.rangeBits(first) }

        /// `1` when a person's days of the range (`mask`) have one in the span, else `0`.
        var maskMeasure: String { "toInt64(bitAnd(mask, toUInt64(\(bits))) != 0)" }

        /// The people with a day in the span, from the totals' rows of a range whose first day
        /// is `firstDay`: those counted on a day of the span whose day before is before it.
        func totalsMeasure(firstDay: Int64) -> String {
            let start = firstDay &+ Int64(first)
            return
                "sumIf(count, day >= \(start) AND day <= \(firstDay &+ Int64(last)) AND gap > day - \(start))"
        }

        /// The whole range of `count` days, and each day alone.
        static func range(_ count: Int) -> [SettledSpan] {
            [SettledSpan(first: 0, last: max(0, count - 1))]
                + (0..<count).map { SettledSpan(first: $0, last: $0) }
        }

        /// Per day of a range of `count` days, the `window` days ending there within the range.
        static func windows(_ count: Int, window: Int) -> [SettledSpan] {
            (0..<count).map { SettledSpan(first: max(0, $0 - window + 1), last: $0) }
        }
    }

    /// The set bits of each byte value, `[[], [0], [1], [0, 1], …]`: a row's days without a
    /// lambda over every bit.
    private static let byteBits: String = {
        let bytes = (0..<256).map { byte in
            "[" + (0..<8).filter { byte >> $0 & 1 == 1 }.map(String.init).joined(separator: ",") + "]"
        }
        return "CAST([\(bytes.joined(separator: ","))] AS Array(Array(UInt8)))"
    }()

    /// The gap from the day at bit `i` of block mask `m` to the day before it (`prev`: the
    /// block before's mask): 64 less the highest bit of the 64 days before it, 64 when none.
    /// The highest bit is taken from each 32-bit half, whose `log2` is exact in a `Float64`.
    private static let gap = """
        if(w = 0, toInt64(64), 64 - if(w >= 4294967296, 32 + toInt64(floor(log2(toFloat64(bitShiftRight(w, 32))))), toInt64(floor(log2(toFloat64(w))))))
        """

    /// Per kind, key, day and gap, how many rows of `source` (a subquery of `kind, key,
    /// first_block, days`, one row one person) have that day with that gap.
    static func gapCounts(of source: String) -> String {
        """
        SELECT kind, key, block * 64 + toInt64(i) AS day, toUInt8(\(gap)) AS gap, toInt64(count()) AS count FROM (
            SELECT kind, key, block, shift + b AS i,
                if(i = 0, prev, bitOr(bitShiftLeft(m, toUInt8(64 - i)), bitShiftRight(prev, i))) AS w FROM (
                SELECT kind, key, block, m, prev, shift,
                    arrayElement(\(byteBits), toUInt32(bitAnd(bitShiftRight(m, shift), 255)) + 1) AS bits FROM (
                    SELECT kind, key, first_block + toInt64(index) - 1 AS block, m,
                        if(index > 1, days[index - 1], toUInt64(0)) AS prev
                    FROM (\(source)) ARRAY JOIN days AS m, arrayEnumerate(days) AS index)
                ARRAY JOIN [toUInt8(0), 8, 16, 24, 32, 40, 48, 56] AS shift)
            ARRAY JOIN bits AS b)
        GROUP BY kind, key, day, gap
        """
    }

    /// The members of round `round`'s people of two members or more (a subquery): its linked
    /// devices with events without a user id and their people (``linkedMembersKind``), and the
    /// ids that are both a user id and such a device (``sharedIdsKind``).
    func groupedMembers(projectId: Int64, round: String) -> String {
        let of = "project_id = \(projectId) AND round = \(ClickHouseFormat.literal(round))"
        let settled = "\(database).\(tables.settledPeople)"
        return """
            SELECT member FROM \(settled) WHERE \(of) AND kind IN (\(Self.linkedMembersKind), \(Self.sharedIdsKind))
            UNION ALL SELECT key AS member FROM \(settled) WHERE \(of) AND kind = \(Self.linkedMembersKind)
            """
    }

    /// Round `round`'s linked devices and their people (`member, linked`), joined on `member`:
    /// a member row's person as the round grouped it is `linked` for a device's events without a
    /// user id, else the member.
    func roundPeople(projectId: Int64, round: String) -> String {
        """
        SELECT member, key AS linked FROM \(database).\(tables.settledPeople)
        WHERE project_id = \(projectId) AND round = \(ClickHouseFormat.literal(round)) AND kind = \(Self.linkedMembersKind)
        """
    }

    /// Writes round `round`'s totals from its people's rows (written before): the members
    /// alone as they are, the people of two members or more grouped; then the row that says
    /// the round has them.
    func settleTotals(projectId: Int64, round: String) -> [String] {
        let into = """
            INSERT INTO \(database).\(tables.settledTotals) (project_id, round, kind, key, day, gap, count)
            """
        let head = "SELECT \(projectId), \(ClickHouseFormat.literal(round))"
        let kinds = Self.settledKindCodes
        let rows = """
            SELECT kind, key, member, anonymous, first_block, days FROM \(database).\(tables.settledPeople)
            PREWHERE project_id = \(projectId) AND round = \(ClickHouseFormat.literal(round))
                AND kind IN (\(kinds.map(String.init).joined(separator: ", ")))
            """
        let grouped = groupedMembers(projectId: projectId, round: round)
        let people = """
            SELECT kind, key, any(first_block) AS first_block, groupBitOrForEach(days) AS days FROM (
                SELECT kind, key, if(anonymous = 1 AND linked != '', linked, member) AS person, first_block, days
                FROM (\(rows) WHERE member GLOBAL IN (\(grouped))) AS members
                GLOBAL ANY LEFT JOIN (\(roundPeople(projectId: projectId, round: round))) AS pairs USING member)
            GROUP BY kind, key, person
            """
        return [
            """
            \(into)
            \(head), kind, key, day, gap, count FROM (\(Self.gapCounts(of: "\(rows) WHERE member GLOBAL NOT IN (\(grouped))")))
            """,
            """
            \(into)
            \(head), kind, key, day, gap, count FROM (\(Self.gapCounts(of: people)))
            """,
            """
            \(into)
            \(head), \(Self.totalsMarkerKind), '', 0, 0, 1
            """,
        ]
    }

    /// Whether round `round` has its totals (0 or 1), as a scalar subquery.
    func hasTotals(projectId: Int64, round: String) -> String {
        """
        SELECT count() FROM \(database).\(tables.settledTotals)
        WHERE project_id = \(projectId) AND round = \(ClickHouseFormat.literal(round)) AND kind = \(Self.totalsMarkerKind)
        """
    }

    /// The people who changed since round `round` (its `cutoff`), as the reports resolve them
    /// and as the round did, in two reads run side by side (as one `UNION ALL` under its
    /// `DISTINCT`, 18.16 reads the parts one after the other): those with rows of `filter`'s
    /// range written since; and for each device linked since, the device, its person now and its
    /// person in the round. With `links`, the links of the devices with rows written since are
    /// sent with the first (``linksSinceTable``).
    func changedPeople(
        projectId: Int64, filter: ReportFilter, round: String, cutoff: Int64, links: [SinceLink]? = nil
    ) -> [ClickHouseQuery<String>] {
        let linked = linkedSince(projectId: projectId, cutoff: cutoff)
        let linkedParts = [
            "SELECT anonymous_id AS person FROM (\(linked))",
            "SELECT linked AS person FROM (\(self.links(projectId: projectId, among: linked)))",
            "SELECT linked AS person FROM (\(roundPeople(projectId: projectId, round: round))) WHERE member GLOBAL IN (\(linked))",
        ]
        let reads = [
            (
                peopleSince(projectId: projectId, filter: filter, cutoff: cutoff, linksSent: links != nil),
                Self.sent(links)
            ),
            (linkedParts.joined(separator: " UNION ALL "), []),
        ]
        return reads.map { read in
            var query = ClickHouseQuery("SELECT DISTINCT person FROM (\(read.0))", fields: 1) {
                row throws(ServerError) in
                row.string(0)
            }
            query.external = read.1
            return query
        }
    }

    /// The linked devices of the people `changed` lists (sent as ``affectedTable``) as round
    /// `round` has them: with those people, the members a read from the totals groups.
    func changedDevices(projectId: Int64, round: String, changed: [String]) -> ClickHouseQuery<String> {
        var query = ClickHouseQuery<String>(
            """
            SELECT member FROM \(database).\(tables.settledPeople)
            PREWHERE project_id = \(projectId) AND round = \(ClickHouseFormat.literal(round)) AND kind = \(Self.linkedMembersKind)
            WHERE key IN \(Self.affectedTable.name)
            """, fields: 1
        ) { row throws(ServerError) in row.string(0) }
        query.external = [Self.affectedTable(changed)]
        return query
    }

    /// The totals of `items` over `filter`'s range (1…``maskedDays`` days) from round `round`:
    /// per kind and key, each of `spans`.
    func settledTotals(
        projectId: Int64, filter: ReportFilter, round: String, items: [SettledPeopleItems],
        spans: [SettledSpan]
    ) -> ClickHouseQuery<(kind: Int, key: String, sums: [Int64])> {
        let (first, count) = RollupReports.days(of: filter)
        let sums = spans.map { $0.totalsMeasure(firstDay: first) }
        let sql = """
            SELECT kind, key, \(sums.joined(separator: ", ")) FROM \(database).\(tables.settledTotals)
            PREWHERE project_id = \(projectId) AND round = \(ClickHouseFormat.literal(round))
                AND (\(items.map(\.condition).joined(separator: " OR "))) AND day >= \(first) AND day < \(first &+ Int64(count))
            GROUP BY kind, key
            """
        return ClickHouseQuery(sql, fields: 2 + spans.count) { row throws(ServerError) in
            var sums: [Int64] = []
            for index in spans.indices { sums.append(try row.int64(2 + index)) }
            return (try row.int(0), row.string(1), sums)
        }
    }

    /// Deletes a project's totals from one shard (every round's): a person's deletion, after
    /// which the reads take the members' rows until the next round.
    func deleteTotals(projectId: Int64) -> String {
        "ALTER TABLE \(database).settled_totals_local DELETE WHERE project_id = \(projectId)"
    }
}
