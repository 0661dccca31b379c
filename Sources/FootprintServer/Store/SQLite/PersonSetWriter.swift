import FootprintSQLite

/// Keeps the people tables of the SQLite store inside the writer's transactions:
/// `person_numbers` (a dense number per project for each id, anonymous or user, given on first
/// sight and never reused; the id kept only as its salted digest, ``PersonIdDigest``, so a
/// deleted person's ids are not left in it), `person_merges` (the identity links as numbers,
/// ``PersonMerges``), and the people per day as ``PersonSet``s: `person_label_sets` per project,
/// kind, key, day, page, app version and OS, and `person_sets` the same without page, app
/// version and OS. In both, role 0 holds the user ids of events that carried one, role 1 the
/// anonymous ids of events that carried none; a set is split by the number's high bits,
/// `chunk`, so a write rewrites at most 65,536 members of one set.
///
/// It also appends the funnels' event times to `rollup_times` (``PersonTimes``), each event as
/// its member's number, so that no id is stored there.
///
/// Both set tables are written from the same ``RollupDelta/personDays``, so `person_sets` is
/// always the union of `person_label_sets` over page, app version and OS. A member is all the
/// events of one user id, or of one anonymous id without a user id: a person's deletion takes
/// the person's members off every set its events were in, exactly. A stored set that cannot be
/// decoded (not written by this code) is made again when a write touches it: a `person_sets`
/// one from the `person_label_sets` of its day, a `person_label_sets` one from its day's events.
struct PersonSetWriter {
    /// The number's bits below the chunk.
    static let chunkBits: UInt32 = 16

    /// One stored set's key: in `person_label_sets` with its labels, in `person_sets` without.
    struct SetKey: Hashable {
        var project: Int64, kind: RollupKind, key: String, day: Int64
        var labels: Labels?
        var role: Int64, chunk: Int64
    }

    /// The page, app version and OS of a `person_label_sets` row.
    struct Labels: Hashable {
        var page: String, appVersion: String, os: String
    }

    /// The statements on one table of sets, each with a ``SetKey``'s ``SetKey/values`` first.
    struct SetTable {
        let select: SQLiteStatement, upsert: SQLiteStatement, delete: SQLiteStatement

        init(_ database: SQLiteDatabase, labelled: Bool) throws(SQLiteError) {
            let table = labelled ? "person_label_sets" : "person_sets"
            let columns =
                ["project_id", "kind", "key", "day"] + (labelled ? ["page", "app_version", "os"] : [])
                + ["role", "chunk"]
            let row = columns.enumerated().map { "\($1) = ?\($0 + 1)" }.joined(separator: " AND ")
            select = try database.prepare("SELECT members FROM \(table) WHERE \(row)")
            upsert = try database.prepare(
                """
                INSERT OR REPLACE INTO \(table)(\(columns.joined(separator: ", ")), members)
                VALUES (\((1...columns.count + 1).map { "?\($0)" }.joined(separator: ", ")))
                """)
            delete = try database.prepare("DELETE FROM \(table) WHERE \(row)")
        }
    }

    let database: SQLiteDatabase
    let salt: [UInt8]
    private let selectNumber: SQLiteStatement
    private let insertNumber: SQLiteStatement
    private let plainSets: SetTable
    private let labelSets: SetTable
    private let labelSetsOfDay: SQLiteStatement
    private let labelSetsOfDayDeleted: SQLiteStatement
    private let eventsOfDay: SQLiteStatement
    private let selectLink: SQLiteStatement
    private let upsertMerge: SQLiteStatement
    private let deleteMerge: SQLiteStatement
    private let lastTimes: SQLiteStatement
    private let appendTimes: SQLiteStatement
    private let insertTimes: SQLiteStatement
    private let selectTimes: SQLiteStatement
    private let deleteTimes: SQLiteStatement

    init(database: SQLiteDatabase, salt: [UInt8]) throws(SQLiteError) {
        self.database = database
        self.salt = salt
        selectNumber = try database.prepare(
            "SELECT number FROM person_numbers WHERE project_id = ?1 AND digest = ?2")
        insertNumber = try database.prepare(
            """
            INSERT INTO person_numbers(project_id, digest, number)
            SELECT ?1, ?2, coalesce(max(number) + 1, 0) FROM person_numbers WHERE project_id = ?1
            """)
        plainSets = try SetTable(database, labelled: false)
        labelSets = try SetTable(database, labelled: true)
        // The labelled sets of a `person_sets` key: its day's, over every page, version and OS.
        let ofPlainKey =
            "project_id = ?1 AND kind = ?2 AND key = ?3 AND day = ?4 AND role = ?5 AND chunk = ?6"
        labelSetsOfDay = try database.prepare("SELECT members FROM person_label_sets WHERE \(ofPlainKey)")
        labelSetsOfDayDeleted = try database.prepare("DELETE FROM person_label_sets WHERE \(ofPlainKey)")
        eventsOfDay = try database.prepare(
            """
            SELECT \(GroupCommitWriter.rollupColumns) FROM events INDEXED BY events_by_time
            WHERE project_id = ?1 AND time >= ?2 AND time < ?3
            """)
        selectLink = try database.prepare(
            "SELECT min(user_id) FROM identities WHERE project_id = ?1 AND anonymous_id = ?2")
        upsertMerge = try database.prepare(
            "INSERT OR REPLACE INTO person_merges(project_id, anonymous, person) VALUES (?1, ?2, ?3)")
        deleteMerge = try database.prepare(
            "DELETE FROM person_merges WHERE project_id = ?1 AND anonymous = ?2")
        let timesRow = """
            project_id = ?1 AND kind = ?2 AND key = ?3 AND day = ?4 AND page = ?5 AND app_version = ?6 AND os = ?7
            """
        lastTimes = try database.prepare(
            "SELECT chunk, length(entries) FROM rollup_times WHERE \(timesRow) ORDER BY chunk DESC LIMIT 1")
        appendTimes = try database.prepare(
            "UPDATE rollup_times SET entries = entries || ?9 WHERE \(timesRow) AND chunk = ?8")
        insertTimes = try database.prepare(
            """
            INSERT INTO rollup_times(project_id, kind, key, day, page, app_version, os, chunk, entries)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
        selectTimes = try database.prepare(
            "SELECT entries FROM rollup_times WHERE \(timesRow) ORDER BY chunk")
        deleteTimes = try database.prepare("DELETE FROM rollup_times WHERE \(timesRow)")
    }

    /// The numbers looked up in one transaction.
    typealias Numbers = [NumberKey: UInt32]
    struct NumberKey: Hashable {
        var project: Int64, id: String
    }

    /// The number of `id` in `project`, given now when it has none (or `nil` when `assign` is
    /// false and it has none).
    func number(of id: String, project: Int64, numbers: inout Numbers, assign: Bool = true)
        throws(SQLiteError) -> UInt32?
    {
        let key = NumberKey(project: project, id: id)
        if let known = numbers[key] { return known }
        let values: [SQLiteValue] = [
            .integer(project), .blob(PersonIdDigest(of: id, salt: salt).bytes),
        ]
        func select() throws(SQLiteError) -> Int64? {
            try selectNumber.bind(values)
            defer { selectNumber.reset() }
            return try selectNumber.step() ? selectNumber.int64(at: 0) : nil
        }
        var stored = try select()
        if stored == nil, assign {
            try insertNumber.run(values)
            stored = try select()
        }
        guard let stored else { return nil }
        guard stored >= 0, stored <= Int64(UInt32.max) else {
            throw SQLiteError(
                code: 13 /* SQLITE_FULL */, message: "project \(project) has used every person number (2^32)")
        }
        numbers[key] = UInt32(stored)
        return UInt32(stored)
    }

    /// The set role and id of an event's person: its user id, else its anonymous id.
    static func member(anonymousId: String, userId: String) -> (role: Int64, id: String) {
        userId.isEmpty ? (1, anonymousId) : (0, userId)
    }

    /// Adds the people of a transaction's new person-day bits to the day sets.
    func add(_ personDays: [RollupDelta.PersonDaysKey: Int64], numbers: inout Numbers) throws(SQLiteError) {
        try change(personDays, numbers: &numbers, assign: true) { stored, members in stored.union(members) }
    }

    /// Takes the people of removed events (every event of their members removed: a person's
    /// deletion) off the day sets those events were in; a set left empty goes.
    func remove(_ personDays: [RollupDelta.PersonDaysKey: Int64], numbers: inout Numbers) throws(SQLiteError)
    {
        try change(personDays, numbers: &numbers, assign: false) { stored, members in
            stored.subtracting(members)
        }
    }

    /// Rewrites each set the person-day bits fall in as `update` of its stored members and the
    /// members the bits name (numbered now when `assign`; unnumbered ones left out). The
    /// labelled sets go first, so that a `person_sets` row that cannot be decoded is made from
    /// them, updated.
    private func change(
        _ personDays: [RollupDelta.PersonDaysKey: Int64], numbers: inout Numbers, assign: Bool,
        update: (PersonSet, PersonSet) -> PersonSet
    ) throws(SQLiteError) {
        let changed = try members(of: personDays, numbers: &numbers, assign: assign)
        var undecodable: [SetKey] = []
        for labelled in [true, false] {
            for (key, members) in changed where (key.labels != nil) == labelled {
                guard let stored = try stored(key) else {
                    undecodable.append(key)
                    continue
                }
                try write(update(stored, PersonSet(members)), as: key)
            }
        }
        for key in undecodable {
            try write(key.labels == nil ? try unionOfLabels(key) : try recount(key), as: key)
        }
    }

    /// The members person-day bits give each set they fall in, labelled and not (numbered now
    /// when `assign`; unnumbered ones left out).
    private func members(
        of personDays: [RollupDelta.PersonDaysKey: Int64], numbers: inout Numbers, assign: Bool
    ) throws(SQLiteError) -> [SetKey: [UInt32]] {
        var members: [SetKey: [UInt32]] = [:]
        for (row, days) in personDays where days != 0 {
            let (role, id) = Self.member(anonymousId: row.anonymousId, userId: row.userId)
            guard let number = try number(of: id, project: row.project, numbers: &numbers, assign: assign)
            else { continue }
            var bits = UInt64(bitPattern: days)
            while bits != 0 {
                var key = SetKey(
                    project: row.project, kind: row.kind, key: row.key,
                    day: row.block &* 64 &+ Int64(bits.trailingZeroBitCount),
                    labels: Labels(page: row.page, appVersion: row.appVersion, os: row.os), role: role,
                    chunk: Int64(number >> Self.chunkBits))
                bits &= bits - 1
                members[key, default: []].append(number)
                key.labels = nil
                members[key, default: []].append(number)
            }
        }
        return members
    }

    /// The table `key`'s set is stored in.
    private func table(of key: SetKey) -> SetTable { key.labels == nil ? plainSets : labelSets }

    /// The stored members of `key` (empty when it has no row), or `nil` when they cannot be
    /// decoded.
    private func stored(_ key: SetKey) throws(SQLiteError) -> PersonSet? {
        let table = table(of: key)
        try table.select.bind(key.values)
        defer { table.select.reset() }
        guard try table.select.step() else { return PersonSet() }
        return table.select.withBlob(at: 0) { PersonSet(encoded: $0) }
    }

    /// Stores `members` as the set of `key`, or removes its row when there are none.
    private func write(_ members: PersonSet, as key: SetKey) throws(SQLiteError) {
        let table = table(of: key)
        if members.isEmpty {
            try table.delete.run(key.values)
        } else {
            try table.upsert.run(key.values + [.blob(members.encoded())])
        }
    }

    /// The members of a `person_sets` key as the union of its day's labelled sets (each that
    /// cannot be decoded counted again from the events).
    private func unionOfLabels(_ key: SetKey) throws(SQLiteError) -> PersonSet {
        var sets: [PersonSet] = []
        var undecodable = false
        for set in try labelSetsOfDay.rowsOrThrow(
            key.values, { $0.withBlob(at: 0) { PersonSet(encoded: $0) } })
        {
            guard let set else {
                undecodable = true
                continue
            }
            sets.append(set)
        }
        guard undecodable else { return PersonSet.union(sets) }
        // Every labelled set of the day counted again and stored instead: the union is theirs.
        let counted = try count(dayOf: key)
        try labelSetsOfDayDeleted.run(key.values)
        for (setKey, members) in counted where setKey.labels != nil {
            try write(members, as: setKey)
        }
        return counted[key] ?? PersonSet()
    }

    /// The members of a `person_label_sets` key counted again from its day's stored events.
    private func recount(_ key: SetKey) throws(SQLiteError) -> PersonSet {
        try count(dayOf: key)[key] ?? PersonSet()
    }

    /// Every set of `key`'s day, kind, key, role and chunk (labelled and not), from the day's
    /// stored events; members without a number yet are left out.
    private func count(dayOf key: SetKey) throws(SQLiteError) -> [SetKey: PersonSet] {
        var delta = RollupDelta()
        for row in try eventsOfDay.rowsOrThrow(
            [.integer(key.project), .integer(key.day &* 86_400_000), .integer((key.day &+ 1) &* 86_400_000)],
            GroupCommitWriter.rollupRow)
        {
            delta.addPeople(row.event, project: key.project)
        }
        var numbers: Numbers = [:]
        let counted = try members(
            of: delta.personDays.filter { $0.key.kind == key.kind && $0.key.key == key.key },
            numbers: &numbers,
            assign: false)
        var sets: [SetKey: PersonSet] = [:]
        for (setKey, members) in counted
        where setKey.day == key.day && setKey.role == key.role && setKey.chunk == key.chunk {
            sets[setKey] = PersonSet(members)
        }
        return sets
    }

    /// Sets the merge of each of `anonymousIds` from the links stored now: the smallest linked
    /// user id in byte order, or none.
    func updateMerges(project: Int64, anonymousIds: Set<String>, numbers: inout Numbers) throws(SQLiteError) {
        for anonymousId in anonymousIds {
            try selectLink.bind([.integer(project), .text(anonymousId)])
            let userId = try selectLink.step() ? selectLink.text(at: 0) : nil
            selectLink.reset()
            if let userId {
                guard let anonymous = try number(of: anonymousId, project: project, numbers: &numbers),
                    let person = try number(of: userId, project: project, numbers: &numbers)
                else { continue }
                try upsertMerge.run([.integer(project), .integer(Int64(anonymous)), .integer(Int64(person))])
            } else if let anonymous = try number(
                of: anonymousId, project: project, numbers: &numbers, assign: false)
            {
                try deleteMerge.run([.integer(project), .integer(Int64(anonymous))])
            }
        }
    }

    /// The `rollup_times` entries of `times`, each person numbered (given a number now when
    /// `assign`; without one, and not assigning, an entry is left out).
    private func entries(
        _ times: [RollupDelta.PersonTime], project: Int64, numbers: inout Numbers, assign: Bool
    ) throws(SQLiteError) -> [PersonTimes.Entry] {
        var entries: [PersonTimes.Entry] = []
        entries.reserveCapacity(times.count)
        for time in times {
            let (role, id) = Self.member(anonymousId: time.anonymousId, userId: time.userId)
            guard let number = try number(of: id, project: project, numbers: &numbers, assign: assign) else {
                continue
            }
            entries.append(
                PersonTimes.Entry(
                    member: PersonTimes.member(number: number, anonymous: role == 1), time: time.time))
        }
        return entries
    }

    /// Appends a transaction's event times to `rollup_times`: to each row's last chunk while it
    /// has room, then in new chunks (``PersonTimes/pieces(_:day:room:)``).
    func addTimes(_ times: [RollupDelta.TimesKey: [RollupDelta.PersonTime]], numbers: inout Numbers)
        throws(SQLiteError)
    {
        for (key, added) in times {
            let row = key.values
            try lastTimes.bind(row)
            var last: (chunk: Int64, length: Int)?
            if try lastTimes.step() { last = (lastTimes.int64(at: 0), Int(lastTimes.int64(at: 1))) }
            lastTimes.reset()
            let pieces = PersonTimes.pieces(
                try entries(added, project: key.project, numbers: &numbers, assign: true), day: key.day,
                room: last.map { PersonTimes.chunkBytes - $0.length } ?? 0)
            var chunk = last?.chunk ?? -1
            for (index, piece) in pieces.enumerated() where !piece.isEmpty {
                if index == 0, let last {
                    try appendTimes.run(row + [.integer(last.chunk), .blob(piece)])
                } else {
                    chunk += 1
                    try insertTimes.run(row + [.integer(chunk), .blob(piece)])
                }
            }
        }
    }

    /// Takes the times of removed events off `rollup_times` (each entry once, as many times as
    /// it was removed), rewriting the rows they were in; a row left empty goes.
    func removeTimes(_ times: [RollupDelta.TimesKey: [RollupDelta.PersonTime]], numbers: inout Numbers)
        throws(SQLiteError)
    {
        for (key, removed) in times {
            var left: [PersonTimes.Entry: Int] = [:]
            for entry in try entries(removed, project: key.project, numbers: &numbers, assign: false) {
                left[entry, default: 0] += 1
            }
            guard !left.isEmpty else { continue }
            let row = key.values
            var kept: [PersonTimes.Entry] = []
            for chunk in try selectTimes.rowsOrThrow(row, { $0.blob(at: 0) }) {
                // What cannot be read (not written by this code) is left out from its damage on.
                _ = PersonTimes.decode(chunk, day: key.day) { entry in
                    if let count = left[entry], count > 0 {
                        left[entry] = count - 1
                    } else {
                        kept.append(entry)
                    }
                }
            }
            try deleteTimes.run(row)
            for (chunk, piece) in PersonTimes.pieces(kept, day: key.day, room: 0).dropFirst().enumerated() {
                try insertTimes.run(row + [.integer(Int64(chunk)), .blob(piece)])
            }
        }
    }

    /// Builds every merge again from `identities` (after the migration that adds them, or a
    /// rebuild of the rollups), then clears ``SQLiteSchema/personSetsKey``.
    func rebuildMerges() throws(SQLiteError) {
        var numbers: Numbers = [:]
        try database.execute("DELETE FROM person_merges")
        let links = try database.prepare("SELECT DISTINCT project_id, anonymous_id FROM identities")
            .rowsOrThrow([]) { ($0.int64(at: 0), $0.text(at: 1) ?? "") }
        for (project, ids) in Dictionary(grouping: links, by: \.0) {
            try updateMerges(project: project, anonymousIds: Set(ids.map(\.1)), numbers: &numbers)
        }
        try database.prepare("DELETE FROM store_state WHERE key = ?1").run([.text(SQLiteSchema.personSetsKey)]
        )
    }
}

extension RollupDelta.TimesKey {
    /// The key's values as `?1`…`?7` of a `rollup_times` statement.
    var values: [SQLiteValue] {
        [
            .integer(project), .integer(kind.rawValue), .text(key), .integer(day), .text(page),
            .text(appVersion), .text(os),
        ]
    }
}

extension PersonSetWriter.SetKey {
    /// The key's values as the first parameters of its table's statements
    /// (``PersonSetWriter/SetTable``): `?1`…`?6` of `person_sets`, `?1`…`?9` of
    /// `person_label_sets`.
    var values: [SQLiteValue] {
        var values: [SQLiteValue] = [.integer(project), .integer(kind.rawValue), .text(key), .integer(day)]
        if let labels { values += [.text(labels.page), .text(labels.appVersion), .text(labels.os)] }
        return values + [.integer(role), .integer(chunk)]
    }
}

extension SQLiteStatement {
    /// ``rows(_:_:)`` with a reader that cannot throw, so the only error is SQLite's.
    func rowsOrThrow<T>(_ values: [SQLiteValue], _ read: (SQLiteStatement) -> T) throws(SQLiteError) -> [T] {
        try bind(values)
        defer { reset() }
        var result: [T] = []
        while try step() { result.append(read(self)) }
        return result
    }
}
