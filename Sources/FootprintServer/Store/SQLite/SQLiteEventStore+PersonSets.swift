import FootprintSQLite
import FootprintWire

/// The reports that count people, from the per-day sets of person numbers (`person_sets`, or
/// with an app version, OS or page `person_label_sets`; `person_merges`; ``PersonSetWriter``)
/// when they can answer: a whole-day range and every stored set readable. Otherwise from the
/// person rows (``rollupPersonDays(projectId:filter:kind:keys:pages:)``), as ``EventStore``'s
/// default implementations.
extension SQLiteEventStore {
    public func activity(projectId: Int64, filter: ReportFilter) throws(ServerError) -> PeopleActivity {
        if let sets = try daySets(
            projectId: projectId, filter: filter, of: [(.anyEvent, nil), (.pageViews, nil)])
        {
            return RollupReports.activity(active: sets[0][""] ?? [:], viewers: sets[1], filter: filter)
        }
        return try activityOfPersonRows(projectId: projectId, filter: filter)
    }

    public func peopleCounts(projectId: Int64, filter: ReportFilter, kind: RollupKind, keys: Set<String>?)
        throws(ServerError) -> [String: Int]
    {
        if let keys, keys.isEmpty { return [:] }
        if let sets = try daySets(projectId: projectId, filter: filter, of: [(kind, keys)]) {
            return RollupReports.people(sets[0], filter: filter)
        }
        return RollupReports.people(
            try rollupPersonDays(
                projectId: projectId, filter: filter, kind: kind, keys: keys, pages: .merged),
            filter: filter)
    }

    /// The matches with whole keys from the sets of those keys, the others from the person rows
    /// of their selectors.
    public func peopleCounts(projectId: Int64, filter: ReportFilter, matches: [RollupReports.DefinitionMatch])
        throws(ServerError) -> [Int]
    {
        var keys: [RollupKind: Set<String>] = [:]
        for key in matches.compactMap(\.wholeKeys).joined() { keys[key.kind, default: []].insert(key.key) }
        let wanted = keys.sorted { $0.key.rawValue < $1.key.rawValue }
        guard !wanted.isEmpty,
            let sets = try daySets(
                projectId: projectId, filter: filter, of: wanted.map { ($0.key, $0.value) })
        else {
            return try peopleCounts(projectId: projectId, filter: filter, selections: matches.map(\.people))
        }
        let perKind = Dictionary(uniqueKeysWithValues: zip(wanted.map(\.key), sets))
        let others = matches.filter { $0.wholeKeys == nil }
        var fromRows =
            others.isEmpty
            ? [] : try peopleCounts(projectId: projectId, filter: filter, selections: others.map(\.people))
        return matches.map { match in
            if let whole = match.wholeKeys {
                return RollupReports.people(ofKeys: whole, sets: perKind, filter: filter)
            }
            return fromRows.removeFirst()
        }
    }

    public func retention(projectId: Int64, filter: ReportFilter, returnEvent: String?, days: Int)
        throws(ServerError) -> RetentionReport
    {
        var wanted: [(RollupKind, Set<String>?)] = [(.anyEvent, nil)]
        if let returnEvent { wanted.append((.trackEvents, [returnEvent])) }
        if let sets = try daySets(projectId: projectId, filter: filter, of: wanted) {
            return RollupReports.retention(
                active: sets[0][""] ?? [:], returns: returnEvent.map { sets[1][$0] ?? [:] },
                returnEvent: returnEvent, days: days, filter: filter)
        }
        return try retentionOfPersonRows(
            projectId: projectId, filter: filter, returnEvent: returnEvent, days: days)
    }

    /// Per wanted kind (and keys, `nil` for all), each key's people per day of `filter`'s range
    /// with the links applied; `nil` when the sets cannot answer (see the extension's note).
    func daySets(projectId: Int64, filter: ReportFilter, of wanted: [(kind: RollupKind, keys: Set<String>?)])
        throws(ServerError) -> [[String: RollupReports.DaySets]]?
    {
        guard configuration.countsPeopleFromSets, RollupReports.canAnswer(filter), filter.from != nil,
            filter.to != nil
        else { return nil }
        // With a page, app version or OS: the labelled sets that match, read together.
        let table = filter.namesPageVersionOrOS ? "person_label_sets" : "person_sets"
        let (conditions, bound) = rollupConditions(projectId: projectId, filter: filter)
        let inRange = (conditions + ["kind = ?\(bound.count + 1)"]).joined(separator: " AND ")
        return try readSets(projectId: projectId) { database, merges -> [[String: RollupReports.DaySets]]? in
            guard let merges else { return nil }
            let allKeys = try database.prepare(
                "SELECT key, day, role, members FROM \(table) WHERE \(inRange)")
            let oneKey = try database.prepare(
                "SELECT key, day, role, members FROM \(table) WHERE \(inRange) AND key = ?\(bound.count + 2)")
            var result: [[String: RollupReports.DaySets]] = []
            for (kind, keys) in wanted {
                // Per key and day: the user ids' and the anonymous ids' chunks.
                var parts: [String: [Int64: (users: [PersonSet], anonymous: [PersonSet])]] = [:]
                let base = bound + [.integer(kind.rawValue)]
                let runs: [(SQLiteStatement, [SQLiteValue])] =
                    keys.map { $0.sorted().map { (oneKey, base + [.text($0)]) } } ?? [(allKeys, base)]
                for (statement, values) in runs {
                    try statement.bind(values)
                    defer { statement.reset() }
                    while try statement.step() {
                        guard let set = statement.withBlob(at: 3, { PersonSet(encoded: $0) }) else {
                            return nil
                        }
                        let key = statement.text(at: 0) ?? ""
                        let day = statement.int64(at: 1)
                        if statement.int64(at: 2) == 0 {
                            parts[key, default: [:]][day, default: ([], [])].users.append(set)
                        } else {
                            parts[key, default: [:]][day, default: ([], [])].anonymous.append(set)
                        }
                    }
                }
                result.append(
                    parts.mapValues { days in
                        days.mapValues { day in
                            merges.resolve(
                                users: PersonSet.union(day.users), anonymous: PersonSet.union(day.anonymous))
                        }
                    })
            }
            return result
        }
    }

    /// `body` on a read connection in one snapshot, with the project's merges (`nil` while they
    /// are due to be built): the merges and every set read from the same state of the file.
    func readSets<T>(projectId: Int64, _ body: (SQLiteDatabase, PersonMerges?) throws -> T)
        throws(ServerError) -> T
    {
        try read { database in
            try database.execute("BEGIN")
            defer { try? database.execute("COMMIT") }
            return try body(database, try Self.personMerges(projectId: projectId, database: database))
        }
    }

    /// The project's identity links as merges of person numbers, or `nil` while the merges are
    /// due to be built (``SQLiteSchema/personSetsKey``).
    static func personMerges(projectId: Int64, database: SQLiteDatabase) throws(SQLiteError) -> PersonMerges?
    {
        let pending = try database.prepare("SELECT 1 FROM store_state WHERE key = ?1").rowsOrThrow([
            .text(SQLiteSchema.personSetsKey)
        ]) { _ in true }
        guard pending.isEmpty else { return nil }
        return PersonMerges(
            try database.prepare("SELECT anonymous, person FROM person_merges WHERE project_id = ?1")
                .rowsOrThrow([.integer(projectId)]) {
                    (
                        anonymous: UInt32(truncatingIfNeeded: max(0, $0.int64(at: 0))),
                        person: UInt32(truncatingIfNeeded: max(0, $0.int64(at: 1)))
                    )
                })
    }
}
