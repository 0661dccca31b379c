import FootprintSQLite
import FootprintWire

extension SQLiteEventStore {
    public func analyticsEvents(
        projectId: Int64, filter: ReportFilter, properties: AnalyticsEvent.Properties
    ) throws(ServerError) -> [AnalyticsEvent] {
        try events(projectId: projectId, filter: filter, properties: properties)
    }

    /// ``FunnelReport/reached(stepCount:people:windowMilliseconds:)`` of ``funnelHits(projectId:filter:sources:)``.
    public func funnelPeople(
        projectId: Int64, filter: ReportFilter, sources: FunnelSources, stepCount: Int,
        windowMilliseconds: Int64
    ) throws(ServerError) -> [Int] {
        let (hits, starts) = try funnelHits(projectId: projectId, filter: filter, sources: sources)
        // The people in one run per core, walked side by side.
        let reached = try concurrently(Self.runs(count: starts.count - 1)) { part in
            FunnelReport.reached(
                stepCount: stepCount, people: part.lazy.map { hits[starts[$0]..<starts[$0 + 1]] },
                windowMilliseconds: windowMilliseconds)
        }
        return (0..<max(0, stepCount)).map { step in reached.reduce(0) { $0 + $1[step] } }
    }

    /// Each person's events in `filter` that complete funnel steps (in no order: ``FunnelReport``
    /// sorts them), as one run of `hits` per person number (person `n`'s from `starts[n]` to
    /// `starts[n + 1]`), read from `rollup_times` (``PersonTimes``: a few bytes per event, many
    /// people to a row), one index range per source: rows per day, page, app version and OS,
    /// each row's steps by its page, identity links applied as merges of person numbers. The
    /// sources are read in parallel, each on its own connection, then gathered per person once,
    /// by number.
    func funnelHits(projectId: Int64, filter: ReportFilter, sources: FunnelSources) throws(ServerError)
        -> (hits: [FunnelHit], starts: [Int])
    {
        var (conditions, values) = rollupConditions(projectId: projectId, filter: filter)
        // Each read binds its source's kind and key here.
        let kindParameter = values.count
        values += [.null, .null]
        conditions += ["kind = ?\(kindParameter + 1)", "key = ?\(kindParameter + 2)"]
        let sql =
            "SELECT day, page, entries FROM rollup_times WHERE " + conditions.joined(separator: " AND ")
        let range = (filter.from?.millisecondsSince1970 ?? .min)..<(filter.to?.millisecondsSince1970 ?? .max)
        let merges = try read { database in try Self.personMerges(projectId: projectId, database: database) }
        // Read after the merges, so that every number they name is counted.
        let largest = try read { database in
            try database.prepare("SELECT max(number) FROM person_numbers WHERE project_id = ?1").rows([
                .integer(projectId)
            ]) { $0.isNull(at: 0) ? nil : $0.int64(at: 0) }.first ?? nil
        }
        guard let merges else {
            throw ServerError(
                code: .storage,
                message:
                    "its people are still being numbered (after an upgrade); open it for writing once (footprint serve) and let it finish"
            )
        }
        // Every number a member may hold: one past the project's largest (none without people).
        let people = largest.map { Int(clamping: max(0, $0)) &+ 1 } ?? 0
        let bound = values
        return SourceHits.runs(
            try concurrently(
                Array(sources.sources),
                { read throws(ServerError) -> SourceHits in
                    var values = bound
                    values[kindParameter] = .integer(read.key.kind.rawValue)
                    values[kindParameter + 1] = .text(read.key.key)
                    return try sourceHits(
                        sql: sql, values: values, steps: read.value, in: range, merges: merges, people: people
                    )
                }),
            people: people)
    }

    /// One source's hits in the order read, each with its person's number.
    private struct SourceHits: Sendable {
        var hits: [FunnelHit] = []
        /// The person number of each of ``hits``.
        var persons: [UInt32] = []
        /// The runs of ``hits`` by day, in the order read: each day and the index of its first
        /// hit (a run ends where the next begins).
        var days: [(day: Int64, start: Int)] = []

        /// Appends a hit of `day`'s row.
        mutating func append(_ hit: FunnelHit, of person: UInt32, day: Int64) {
            if days.last?.day != day { days.append((day, hits.count)) }
            hits.append(hit)
            persons.append(person)
        }

        /// The hits of `reads` in one run per person number below `people`, in the order of the
        /// numbers (a counting sort). Each person's hits come day by day (the reads' runs merged
        /// by day), so that the walk's sort finds them nearly in order.
        static func runs(_ reads: [SourceHits], people: Int) -> (hits: [FunnelHit], starts: [Int]) {
            var starts = [Int](repeating: 0, count: people + 1)
            for read in reads {
                for person in read.persons { starts[Int(person) + 1] += 1 }
            }
            for index in starts.indices.dropFirst() { starts[index] += starts[index - 1] }
            var next = starts
            var hits = [FunnelHit](repeating: FunnelHit(time: 0, steps: 0), count: starts[people])
            // The next run of each read, taken earliest day first.
            var cursors = [Int](repeating: 0, count: reads.count)
            while let index = reads.indices.filter({ cursors[$0] < reads[$0].days.count }).min(by: {
                reads[$0].days[cursors[$0]].day < reads[$1].days[cursors[$1]].day
            }) {
                let read = reads[index]
                let run = cursors[index]
                let end = run + 1 < read.days.count ? read.days[run + 1].start : read.hits.count
                for position in read.days[run].start..<end {
                    let person = Int(read.persons[position])
                    hits[next[person]] = read.hits[position]
                    next[person] += 1
                }
                cursors[index] += 1
            }
            return (hits, starts)
        }
    }

    /// The hits of one source's rows (`values` binds its kind and key): each entry within `range`
    /// completing the steps its row's page completes, with its person (links applied by
    /// `merges`); an entry whose number is not below `people` (not written by this code) is
    /// left out, as is a row from its damage on.
    private func sourceHits(
        sql: String, values: [SQLiteValue], steps: FunnelSources.Steps, in range: Range<Int64>,
        merges: PersonMerges, people: Int
    ) throws(ServerError) -> SourceHits {
        var hits = SourceHits()
        try read { database in
            let statement = try database.prepare(sql)
            try statement.bind(values)
            while try statement.step() {
                let completed =
                    steps.onPage.isEmpty
                    ? steps.onAnyPage : steps.completed(onPage: statement.text(at: 1) ?? "")
                guard completed != 0 else { continue }
                let day = statement.int64(at: 0)
                _ = statement.withBlob(at: 2) { bytes in
                    PersonTimes.decode(bytes, day: day) { entry in
                        let number = entry.member >> 1
                        guard range.contains(entry.time), number < UInt64(people) else { return }
                        let person =
                            entry.member & 1 == 1
                            ? merges.person(ofAnonymous: UInt32(number)) : UInt32(number)
                        guard Int(person) < people else { return }
                        hits.append(FunnelHit(time: entry.time, steps: completed), of: person, day: day)
                    }
                }
            }
        }
        return hits
    }

    /// The WHERE conditions and values that select a project's events passing `filter`.
    static func eventConditions(projectId: Int64, filter: ReportFilter) -> (
        conditions: [String], values: [SQLiteValue]
    ) {
        var conditions = ["project_id = ?1"]
        var values: [SQLiteValue] = [.integer(projectId)]
        func add(_ condition: String, _ value: SQLiteValue) {
            values.append(value)
            conditions.append(condition.replacingOccurrences(of: "?", with: "?\(values.count)"))
        }
        if let from = filter.from { add("time >= ?", .integer(from.millisecondsSince1970)) }
        if let to = filter.to { add("time < ?", .integer(to.millisecondsSince1970)) }
        if let version = filter.appVersion { add("app_version = ?", .text(version)) }
        if let os = filter.os { add("os = ?", .text(os)) }
        if let page = filter.page { add("page = ?", .text(page)) }
        return (conditions, values)
    }

    private func events(projectId: Int64, filter: ReportFilter, properties: AnalyticsEvent.Properties)
        throws(ServerError) -> [AnalyticsEvent]
    {
        let (conditions, values) = Self.eventConditions(projectId: projectId, filter: filter)
        let sql = """
            SELECT type, name, time, anonymous_id, user_id, session_id, page, element_path, \(SQLiteSchema.similarPath),
                element_text, item_id, duration_ms, app_version, os,
                \(properties == .included ? StoredPayload.columns : "NULL")
            FROM events WHERE \(conditions.joined(separator: " AND "))
            LIMIT \(configuration.maximumReportEvents + 1)
            """
        let events = try read { database in
            try database.prepare(sql).rows(values) { row in
                var event = AnalyticsEvent(
                    type: MessageType(rawValue: row.text(at: 0) ?? "") ?? .track, name: row.text(at: 1),
                    time: Timestamp(millisecondsSince1970: row.int64(at: 2)), anonymousId: row.text(at: 3),
                    userId: row.text(at: 4), sessionId: row.text(at: 5), page: row.text(at: 6),
                    elementPath: row.text(at: 7), similarPath: row.text(at: 8), elementText: row.text(at: 9),
                    itemId: row.text(at: 10),
                    durationMilliseconds: row.isNull(at: 11) ? nil : row.int64(at: 11),
                    appVersion: row.text(at: 12), os: row.text(at: 13))
                // A payload that cannot be read adds no properties, as JSON that does not parse.
                if properties == .included, !row.isNull(at: 14),
                    let text = try? StoredPayload.json(row, at: 14),
                    let object = try? JSONParser().parse(Array(text.utf8))["properties"]?.objectValue
                {
                    event.properties = object
                }
                return event
            }
        }
        guard events.count <= configuration.maximumReportEvents else {
            throw ServerError(
                code: .invalidQuery,
                message:
                    "the range holds more than \(configuration.maximumReportEvents) events; choose fewer days or add a filter"
            )
        }
        return events
    }

    public func identityLinks(projectId: Int64) throws(ServerError) -> [String: String] {
        try read { database in
            let pairs = try database.prepare(SQLiteSchema.selectIdentityLinks).rows([.integer(projectId)]) {
                ($0.text(at: 0) ?? "", $0.text(at: 1) ?? "")
            }
            return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
        }
    }

    public func recentEvents(projectId: Int64, limit: Int, after: Int64?) throws(ServerError) -> [RecentEvent]
    {
        try read { database in
            try database.prepare(
                """
                SELECT id, type, name, time, \(SQLiteSchema.receivedAt), coalesce(user_id, anonymous_id), page,
                    \(StoredPayload.columns)
                FROM events WHERE project_id = ?1 AND id > ?2 ORDER BY id DESC LIMIT ?3
                """
            ).rows([.integer(projectId), .integer(after ?? 0), .integer(Int64(max(0, limit)))]) { row in
                RecentEvent(
                    sequence: row.int64(at: 0), type: MessageType(rawValue: row.text(at: 1) ?? "") ?? .track,
                    name: row.text(at: 2), time: Timestamp(millisecondsSince1970: row.int64(at: 3)),
                    receivedAt: Timestamp(millisecondsSince1970: row.int64(at: 4)), person: row.text(at: 5),
                    page: row.text(at: 6), payload: (try? StoredPayload.json(row, at: 7)) ?? "{}")
            }
        }
    }

    public func configVersions(projectId: Int64) throws(ServerError) -> [RemoteConfigVersion] {
        try read { database in
            try database.prepare(
                """
                SELECT version, document, published_at FROM config_versions WHERE project_id = ?1
                ORDER BY version DESC
                """
            ).rows([.integer(projectId)]) { row in
                RemoteConfigVersion(
                    version: row.int64(at: 0), document: row.text(at: 1) ?? "{}",
                    publishedAt: Timestamp(millisecondsSince1970: row.int64(at: 2)))
            }
        }
    }

    public func eventDefinitions(projectId: Int64) throws(ServerError) -> [EventDefinition] {
        try read { database in
            try database.prepare(
                "SELECT document FROM event_definitions WHERE project_id = ?1 ORDER BY id"
            ).rows([.integer(projectId)]) { row in
                try EventDefinition(json: try JSONParser().parse(Array((row.text(at: 0) ?? "").utf8)))
            }
        }
    }

    public func saveEventDefinition(_ definition: EventDefinition, projectId: Int64, at time: Timestamp)
        throws(ServerError)
    {
        try requireWriter().perform { database in
            try database.prepare(
                "INSERT OR REPLACE INTO event_definitions(project_id, id, document, updated_at) VALUES (?1, ?2, ?3, ?4)"
            ).run([
                .integer(projectId), .text(definition.id), .text(JSONWriter.string(definition.jsonValue)),
                .integer(time.millisecondsSince1970),
            ])
        }
    }

    @discardableResult
    public func deleteEventDefinition(id: String, projectId: Int64) throws(ServerError) -> Bool {
        try requireWriter().perform { database in
            try database.prepare("DELETE FROM event_definitions WHERE project_id = ?1 AND id = ?2").run([
                .integer(projectId), .text(id),
            ])
            return database.changes > 0
        }
    }
}
