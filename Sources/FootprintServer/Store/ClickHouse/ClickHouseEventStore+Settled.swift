import FootprintWire
import Foundation

/// The settled session figures (``ClickHouseSQL``'s `settled_figures`, see
/// docs/ARCHITECTURE.md, *Settled session figures*): rounds that compute every day's dwell
/// histograms, page moves and session lengths once, and the reads that take a round's days no
/// session was touched on since and compute only the others from the sessions' rows.
extension ClickHouseEventStore {
    /// A round a read can use: its id, and the days it no longer gives (sorted).
    struct SettledRound: Sendable, Equatable {
        var round: String
        var cutoff: Int64
        var touchedDays: [Int64]
        /// The first day of its window (``ClickHouseSQL/SettledKind/window``), if it has one.
        var window: Int64?
        /// The hashes of the sessions touched since its cutoff (``ClickHouseSQL/sessionHash``),
        /// read before the touched days when they are at most
        /// ``ClickHouseEventStore/maximumTakenBack``; `nil` otherwise.
        var touchedSessions: [UInt64]?
        /// Whether its people are read from its totals (``ClickHouseSQL/settledTotals(projectId:filter:round:items:spans:)``);
        /// set by ``ClickHouseEventStore/settledPeopleRound(projectId:filter:lookups:)``.
        var totals = false
        /// What the reads of the report that took it share (who changed since it), if they do.
        var lookups: SettledLookups?

        static func == (lhs: SettledRound, rhs: SettledRound) -> Bool {
            (lhs.round, lhs.cutoff, lhs.touchedDays, lhs.window, lhs.touchedSessions, lhs.totals) == (
                rhs.round, rhs.cutoff, rhs.touchedDays, rhs.window, rhs.touchedSessions, rhs.totals
            )
        }

        /// The start of its window when a read takes back the sessions touched since on its days:
        /// some touched day is in it, and their hashes were read.
        private var takingBack: Int64? {
            guard let window, touchedSessions != nil, touchedDays.contains(where: { $0 >= window }) else {
                return nil
            }
            return window
        }

        /// The touched days a read computes from every session of theirs: those before its
        /// window when it takes back the sessions touched since on the window's days, else all.
        var recomputedDays: [Int64] {
            guard let window = takingBack else { return touchedDays }
            return touchedDays.filter { $0 < window }
        }

        /// The days of `filter` in its window when a read takes back the round's rows of the
        /// sessions touched since on those days and computes those sessions again
        /// (``ClickHouseSQL/Sessions/touched``); `nil` when it does not.
        func takenBack(_ filter: ReportFilter) -> ReportFilter? {
            guard let window = takingBack else { return nil }
            let start = Timestamp(millisecondsSince1970: window &* 86_400_000)
            guard filter.to.map({ $0 > start }) ?? true else { return nil }
            var days = filter
            days.from = max(filter.from ?? start, start)
            return days
        }

        /// The hashes a read of `filter` takes back (``takenBack(_:)``), if it does.
        func takenBackSessions(_ filter: ReportFilter) -> [UInt64]? {
            takenBack(filter) == nil ? nil : touchedSessions
        }

        /// The table of the sessions touched since for a read of `sessions`
        /// (``ClickHouseSQL/Sessions/touched``), else none.
        func touchedTable(_ sessions: ClickHouseSQL.Sessions) -> [ClickHouseExternalTable] {
            guard sessions == .touched, let touchedSessions else { return [] }
            return [ClickHouseSQL.touchedTable(touchedSessions)]
        }
    }

    /// What the reads of one report look up about the rounds once and share
    /// (``sharingLookups()``): the round that holds, the days touched since it, whether its
    /// people hold, and who changed since it, each computed by the first read that asks.
    final class SettledLookups: Sendable {
        /// Per project, the latest round that holds (``heldRound(projectId:)``).
        let rounds = OnceEach<Int64, SettledRound?>()
        /// Per project and round, the days touched after its cutoff.
        let touchedDays = OnceEach<RoundKey, [Int64]>()
        /// Per project and round, the hashes of the sessions touched after its cutoff.
        let touchedSessions = OnceEach<RoundKey, [UInt64]?>()
        /// Per project and round, its people's first block and whether it has totals.
        let people = OnceEach<RoundKey, PeopleBlock?>()
        /// Per project, filter, round and whether read with totals, the affected members.
        let affected = OnceEach<AffectedKey, [String]>()
        /// Per project and round, the links of the devices with rows written since (`nil`: more
        /// than ``ClickHouseEventStore/maximumLinksSent``).
        let linksSince = OnceEach<RoundKey, [ClickHouseSQL.SinceLink]?>()

        /// A round of a project.
        struct RoundKey: Hashable, Sendable {
            var projectId: Int64
            var round: String
        }

        /// The key of an affected list.
        struct AffectedKey: Hashable, Sendable {
            var projectId: Int64
            var filter: ReportFilter
            var round: String
            var totals: Bool
        }
    }

    /// A round's people, when they hold (``settledPeopleBlock(projectId:round:)``).
    struct PeopleBlock: Sendable {
        var firstBlock: Int64
        var totals: Bool
    }

    /// `compute()`, or when `memo` is given, its answer for `key` (computed once).
    func shared<Key, Value>(
        _ memo: OnceEach<Key, Value>?, _ key: Key, _ compute: () throws(ServerError) -> Value
    ) throws(ServerError) -> Value {
        guard let memo else { return try compute() }
        return try memo.value(key, compute)
    }

    /// Settles a project's session figures: a new round of every day's figures, recorded once
    /// they are all written; the rounds before the one it supersedes are then deleted. While the
    /// latest round holds, the new one copies its figures of the days no session was touched on
    /// since and computes the others; else it computes every day. Cluster without replicas only
    /// (see docs/ARCHITECTURE.md): with replicas it does nothing, nor while a shard runs a
    /// mutation (a deletion, whose sessions are touched before it starts and once it is done, may
    /// be half applied).
    /// - Returns: the round's id, or `nil` when none was made.
    @discardableResult
    public func settleSessionFigures(projectId: Int64) throws(ServerError) -> String? {
        try settle(projectId: projectId)?.round
    }

    /// ``settleSessionFigures(projectId:)``, the days it computed (`nil` for every day) and the
    /// round whose people it kept for the members with nothing written since (`nil`: every
    /// member grouped).
    func settle(projectId: Int64) throws(ServerError) -> (
        round: String, computed: [Int64]?, peopleFrom: String?
    )? {
        guard !location.isReplicated else { return nil }
        var times: [Int64] = []
        for shard in location.shards {
            guard try client.rows(sql.pendingMutations, on: shard).first ?? 0 == 0 else { return nil }
            times.append(try client.rows(ClickHouseSQL.nodeTime, on: shard).first ?? 0)
        }
        let cutoff = (times.min() ?? 0) - Int64(configuration.settledMargin)
        // The touches first, then the round before and what was touched since: a touch up to the
        // cutoff that comes later voids this round; one that came before is in those days or
        // voids the round before.
        let touches = try client.rows(sql.touches(projectId: projectId, upTo: cutoff)).first ?? 0
        let previous = try settledRound(projectId: projectId)
        let round = UUID().uuidString.lowercased()
        let settler = longClient
        // The days before the window per day: those of the round before that no session was
        // touched on since copied, the others computed; the window's per session too.
        let windowDays = min(max(configuration.settledWindowDays, 0), ClickHouseSQL.maskedDays)
        let window =
            windowDays > 0
            ? try client.rows(sql.windowStart(projectId: projectId, cutoff: cutoff, days: windowDays)).first
                ?? nil
            : nil
        var beforeWindow = ReportFilter()
        beforeWindow.to = window.map { Timestamp(millisecondsSince1970: $0 &* 86_400_000) }
        var statements: [String] = []
        if let previous {
            statements.append(
                sql.copyFigures(
                    projectId: projectId, from: previous.round, to: round, skipped: previous.touchedDays,
                    window: window))
            for live in Self.liveFilters(beforeWindow, days: previous.touchedDays) {
                statements += sql.settleFigures(projectId: projectId, round: round, filter: live)
            }
        } else {
            statements = sql.settleFigures(
                projectId: projectId, round: round, filter: beforeWindow, sessions: .all)
        }
        if let window { statements += sql.settleWindow(projectId: projectId, round: round, from: window) }
        var peopleFrom: String?
        if let firstBlock = try client.rows(sql.firstPersonBlock(projectId: projectId)).first {
            // The members with no row written since the round before keep its rows.
            var before: (round: String, after: Int64, upTo: Int64)?
            if let previous,
                try settledPeopleBlock(projectId: projectId, round: previous)?.firstBlock == firstBlock
            {
                before = (previous.round, previous.cutoff, cutoff)
                peopleFrom = previous.round
            }
            statements += sql.settlePeople(
                projectId: projectId, round: round, firstBlock: firstBlock, before: before)
        }
        for statement in statements {
            _ = try settler.execute(statement, settings: ["insert_distributed_sync": "1"])
        }
        // A deletion whose mutations were made since the round began may have run before the
        // round wrote the person's members: such a round is not recorded.
        for (shard, began) in zip(location.shards, times) {
            guard try client.rows(sql.mutationsSince(began), on: shard).first ?? 0 == 0 else { return nil }
        }
        let rows = try client.rows(sql.settledRows(projectId: projectId, round: round)).first ?? 0
        _ = try client.execute(
            sql.commitRound(projectId: projectId, round: round, cutoff: cutoff, touches: touches, rows: rows),
            settings: ["insert_distributed_sync": "1"])
        // The round before stays for the reads that took it a moment ago.
        let kept = Set(try client.rows(sql.rounds(projectId: projectId)).prefix(2))
        if kept.contains(round) {
            for shard in location.shards {
                for statement in sql.deleteRounds(projectId: projectId, keeping: kept) {
                    _ = try client.execute(statement, on: shard)
                }
            }
        }
        return (round, previous?.touchedDays, peopleFrom)
    }

    /// The latest round of a project that still holds (its touches up to its cutoff and its
    /// figure rows are what it recorded), and the days touched since its cutoff (none read
    /// without `touchedDays`: the people reads take the rows written since instead, and the
    /// touches are the larger read, 0.4–0.9 s at 100M events); `nil` when none does. With
    /// `lookups`, each is looked up once for all the reads that share them.
    func settledRound(projectId: Int64, touchedDays: Bool = true, lookups: SettledLookups? = nil)
        throws(ServerError) -> SettledRound?
    {
        guard !location.isReplicated,
            var round = try shared(
                lookups?.rounds, projectId,
                { () throws(ServerError) in
                    try heldRound(projectId: projectId)
                })
        else { return nil }
        if touchedDays {
            // The sessions touched since first (none: no day either), then their days.
            let key = SettledLookups.RoundKey(projectId: projectId, round: round.round)
            let cutoff = round.cutoff
            round.touchedSessions = try shared(lookups?.touchedSessions, key) {
                () throws(ServerError) in
                let hashes = try client.rows(
                    sql.touchedSessionHashes(
                        projectId: projectId, after: cutoff, limit: Self.maximumTakenBack))
                return hashes.count > Self.maximumTakenBack ? nil : hashes
            }
            let hashes = round.touchedSessions
            round.touchedDays = try shared(lookups?.touchedDays, key) {
                () throws(ServerError) in
                guard let hashes else {
                    return try client.rows(sql.daysTouched(projectId: projectId, after: cutoff))
                }
                guard !hashes.isEmpty else { return [] }
                return try client.rows(sql.daysOfTouchedSessions(projectId: projectId, hashes: hashes))
            }
        }
        round.lookups = lookups
        return round
    }

    /// The most sessions touched since a round whose hashes a read sends (8 bytes each) to find
    /// their days and to take them back and compute them again: past it, the days are found from
    /// their keys (``ClickHouseSQL/daysTouched(projectId:after:)``) and every session of the
    /// touched days of the window is computed, as of those before it.
    static let maximumTakenBack = 100_000

    /// The latest round of a project that still holds, without its touched days.
    private func heldRound(projectId: Int64) throws(ServerError) -> SettledRound? {
        for latest in try client.rows(sql.latestRounds(projectId: projectId)) {
            let counts = try client.rows(
                sql.roundCounts(projectId: projectId, round: latest.round, cutoff: latest.cutoff)
            ).first
            guard let counts, counts.touches == latest.touches, counts.rows == latest.rows else { continue }
            return SettledRound(
                round: latest.round, cutoff: latest.cutoff, touchedDays: [], window: counts.window)
        }
        return nil
    }

    /// The filters of `filter` over each run of consecutive days among `days` within its own:
    /// what a read computes from the marks beside a round's figures.
    static func liveFilters(_ filter: ReportFilter, days: [Int64]) -> [ReportFilter] {
        let first = filter.from?.dayNumber ?? Int64.min
        let last = filter.to.map { $0.adding(milliseconds: -1).dayNumber } ?? Int64.max
        var runs: [ClosedRange<Int64>] = []
        for day in days.sorted() where day >= first && day <= last {
            if let run = runs.last, run.upperBound &+ 1 == day {
                runs[runs.count - 1] = run.lowerBound...day
            } else {
                runs.append(day...day)
            }
        }
        return runs.map {
            var live = filter
            live.from = Timestamp(millisecondsSince1970: $0.lowerBound &* 86_400_000)
            live.to = Timestamp(millisecondsSince1970: ($0.upperBound &+ 1) &* 86_400_000)
            return live
        }
    }

    /// The dwell histograms of `filter` from a round's figures and, on the days touched since,
    /// from the marks: of every session on those before its window, of the sessions touched
    /// since (their rows in the round taken back) on those in it.
    func settledDwell(projectId: Int64, filter: ReportFilter, round: SettledRound) throws(ServerError)
        -> [String: DwellHistogram]
    {
        var histograms: [String: DwellHistogram] = [:]
        for row in try client.rows(
            sql.settledFigures(
                projectId: projectId, round: round.round, kind: .dwell, filter: filter,
                skipped: round.recomputedDays, takenBack: round.takenBackSessions(filter)))
        where row.count != 0 {
            histograms[row.page, default: DwellHistogram()].add(
                bucket: row.bucket, count: row.count, total: row.total)
        }
        for (live, sessions) in try liveReads(projectId: projectId, filter: filter, round: round) {
            var read = sql.rollupDwell(projectId: projectId, filter: live, sessions: sessions)
            read.external = round.touchedTable(sessions)
            for row in try client.rows(read) where row.count != 0 {
                histograms[row.page, default: DwellHistogram()].add(
                    bucket: row.bucket, count: row.count, total: row.total)
            }
        }
        return histograms
    }

    /// What a settled read computes from the marks beside a round's figures: each run of touched
    /// days before its window from every session of theirs, and its window's days of `filter`
    /// from the sessions touched since (``SettledRound/takenBack(_:)``).
    private func liveReads(projectId: Int64, filter: ReportFilter, round: SettledRound) throws(ServerError)
        -> [(filter: ReportFilter, sessions: ClickHouseSQL.Sessions)]
    {
        var reads: [(filter: ReportFilter, sessions: ClickHouseSQL.Sessions)] = []
        for live in Self.liveFilters(filter, days: round.recomputedDays) {
            reads.append((live, try sessionsToRead(projectId: projectId, filter: live, page: nil)))
        }
        if let window = round.takenBack(filter) { reads.append((window, .touched)) }
        return reads
    }

    /// The session figures of `filter` (no page) from a round's lengths and, on the days touched
    /// since, from the sessions' rows (``liveReads(projectId:filter:round:)``): one read.
    func settledSessionFigures(projectId: Int64, filter: ReportFilter, round: SettledRound)
        throws(ServerError) -> SessionFigures
    {
        let takenBack = round.takenBackSessions(filter)
        var parts = [
            sql.settledLengths(
                projectId: projectId, round: round.round, filter: filter, skipped: round.recomputedDays,
                takenBack: takenBack != nil)
        ]
        for (live, sessions) in try liveReads(projectId: projectId, filter: filter, round: round) {
            parts.append(sql.sessionLengths(projectId: projectId, filter: live, sessions: sessions))
        }
        var read = ClickHouseSQL.sessionFigures(of: parts)
        read.external = takenBack.map { [ClickHouseSQL.touchedTable($0)] } ?? []
        return try client.rows(read).first ?? SessionFigures([])
    }

    /// The page moves of `filter` (from `page` when given) from a round's figures and, on the
    /// days touched since, from the marks (``liveReads(projectId:filter:round:)``).
    func settledMoves(projectId: Int64, filter: ReportFilter, from page: String?, round: SettledRound)
        throws(ServerError) -> [RollupMove]
    {
        var counts: [MovePair: Int] = [:]
        for row in try client.rows(
            sql.settledFigures(
                projectId: projectId, round: round.round, kind: .move, filter: filter,
                skipped: round.recomputedDays, from: page, takenBack: round.takenBackSessions(filter)))
        {
            counts[MovePair(from: row.page, to: row.to), default: 0].addSaturating(Int(clamping: row.count))
        }
        for (live, sessions) in try liveReads(projectId: projectId, filter: filter, round: round) {
            var read = sql.rollupMoves(projectId: projectId, filter: live, from: page, sessions: sessions)
            read.external = round.touchedTable(sessions)
            for move in try client.rows(read) {
                counts[MovePair(from: move.from, to: move.to ?? ""), default: 0].addSaturating(move.count)
            }
        }
        return counts.map {
            RollupMove(from: $0.key.from, to: $0.key.to.isEmpty ? nil : $0.key.to, count: $0.value)
        }
        .filter { $0.count != 0 }
        .sorted { ($0.from, $0.to ?? "") < ($1.from, $1.to ?? "") }
    }

    /// A move's pages, the end as `''`.
    private struct MovePair: Hashable {
        var from: String
        var to: String
    }

    /// Runs a round for each project with touches whose latest round (any collector's) is at
    /// least ``Configuration/settledInterval`` old and no longer gives every day (void, or with
    /// sessions touched since): the settling thread's turn.
    func settleTouchedProjects() throws(ServerError) {
        guard configuration.settledInterval > 0, !location.isReplicated else { return }
        for project in try client.rows(sql.projectsTouched) {
            if let latest = try client.rows(sql.latestRounds(projectId: project.projectId)).first {
                guard Double(project.now - latest.made) >= configuration.settledInterval else { continue }
                if let round = try settledRound(projectId: project.projectId), round.touchedDays.isEmpty {
                    continue
                }
            }
            try settleSessionFigures(projectId: project.projectId)
        }
    }

    /// Touches every session of `devices` once their records are written (a redundant copy's,
    /// a suspect device's): a round made before no longer gives their days. With replicas, where
    /// no round is made, nothing.
    func touchSessions(projectId: Int64, devices: Set<String>) throws(ServerError) {
        guard !devices.isEmpty, !location.isReplicated else { return }
        _ = try client.execute(
            sql.touchDevices(projectId: projectId, devices: devices),
            settings: ["insert_distributed_sync": "1"],
            timeout: configuration.writeTimeout)
    }

    /// Touches `sessions` (each a session and a day): a person's before its deletion starts and
    /// once it is done. With replicas, where no round is made, nothing.
    func touchSessions(projectId: Int64, sessions: [(session: String, day: Int64)]) throws(ServerError) {
        guard !location.isReplicated else { return }
        for start in stride(from: 0, to: sessions.count, by: 10_000) {
            let slice = Array(sessions[start..<min(sessions.count, start + 10_000)])
            _ = try client.execute(
                sql.touch(projectId: projectId, sessions: slice), settings: ["insert_distributed_sync": "1"])
        }
    }
}
