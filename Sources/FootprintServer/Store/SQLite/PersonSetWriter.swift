import FootprintSQLite

/// Keeps the people tables of the SQLite store inside the writer's transactions:
/// `person_numbers` (a dense number per project for each id, anonymous or user, given on first
/// sight and never reused; the id kept only as its salted digest, ``PersonIdDigest``, so a
/// deleted person's ids are not left in it), `person_merges` (the identity links as numbers,
/// ``PersonMerges``) and `person_sets` (per project, kind, key and day, the people as
/// ``PersonSet``s: role 0 the user ids of events that carried one, role 1 the anonymous ids of
/// events that carried none; split by the number's high bits, `chunk`, so a write rewrites at
/// most 65,536 members of one set).
///
/// It also appends the funnels' event times to `rollup_times` (``PersonTimes``), each event as
/// its member's number, so that no id is stored there.
///
/// The sets are the `rollup_person_days` rows without their page, app version and OS, and each
/// write derives them from the same ``RollupDelta``; every change that removes rows (a person's
/// deletion) rebuilds the sets of the blocks it touched from those rows, so both always hold
/// the same people.
struct PersonSetWriter {
    /// The number's bits below the chunk.
    static let chunkBits: UInt32 = 16

    /// One stored set's key.
    struct SetKey: Hashable {
        var project: Int64, kind: RollupKind, key: String, day: Int64, role: Int64, chunk: Int64
    }

    /// A group of `rollup_person_days` rows: one project, kind, key and 64-day block.
    struct BlockKey: Hashable {
        var project: Int64, kind: RollupKind, key: String, block: Int64
    }

    let database: SQLiteDatabase
    let salt: [UInt8]
    private let selectNumber: SQLiteStatement
    private let insertNumber: SQLiteStatement
    private let selectSet: SQLiteStatement
    private let upsertSet: SQLiteStatement
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
        selectSet = try database.prepare(
            """
            SELECT members FROM person_sets
            WHERE project_id = ?1 AND kind = ?2 AND key = ?3 AND day = ?4 AND role = ?5 AND chunk = ?6
            """)
        upsertSet = try database.prepare(
            """
            INSERT OR REPLACE INTO person_sets(project_id, kind, key, day, role, chunk, members)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
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

    /// The set role and id of a `rollup_person_days` row's person: its user id, else its
    /// anonymous id.
    static func member(anonymousId: String, userId: String) -> (role: Int64, id: String) {
        userId.isEmpty ? (1, anonymousId) : (0, userId)
    }

    /// Adds the people of a transaction's new person-day bits to the day sets.
    func add(_ personDays: [RollupDelta.PersonDaysKey: Int64], numbers: inout Numbers) throws(SQLiteError) {
        var added: [SetKey: [UInt32]] = [:]
        for (row, days) in personDays {
            try gather(
                BlockKey(project: row.project, kind: row.kind, key: row.key, block: row.block),
                anonymousId: row.anonymousId, userId: row.userId, days: days, into: &added, numbers: &numbers)
        }
        var unreadable: Set<BlockKey> = []
        for (key, numbers) in added {
            let values = key.values
            try selectSet.bind(values)
            var stored: PersonSet? = PersonSet()
            if try selectSet.step() {
                stored = selectSet.withBlob(at: 0) { PersonSet(encoded: $0) }
            }
            selectSet.reset()
            guard let stored else {
                // Not written by this code: rebuilt whole below, from the person rows.
                unreadable.insert(
                    BlockKey(project: key.project, kind: key.kind, key: key.key, block: key.day >> 6))
                continue
            }
            try upsertSet.run(values + [.blob(stored.union(PersonSet(numbers)).encoded())])
        }
        for block in unreadable { try rebuild(block, numbers: &numbers) }
    }

    /// Adds the person of a `rollup_person_days` row of `block` to the members of each of its
    /// days.
    private func gather(
        _ block: BlockKey, anonymousId: String, userId: String, days: Int64,
        into sets: inout [SetKey: [UInt32]],
        numbers: inout Numbers
    ) throws(SQLiteError) {
        guard days != 0 else { return }
        let (role, id) = Self.member(anonymousId: anonymousId, userId: userId)
        guard let number = try number(of: id, project: block.project, numbers: &numbers) else { return }
        var bits = UInt64(bitPattern: days)
        while bits != 0 {
            let day = block.block &* 64 &+ Int64(bits.trailingZeroBitCount)
            bits &= bits - 1
            sets[
                SetKey(
                    project: block.project, kind: block.kind, key: block.key, day: day, role: role,
                    chunk: Int64(number >> Self.chunkBits)), default: []
            ].append(number)
        }
    }

    /// Replaces the day sets of one block by those of its `rollup_person_days` rows.
    func rebuild(_ block: BlockKey, numbers: inout Numbers) throws(SQLiteError) {
        let blockValues: [SQLiteValue] = [
            .integer(block.project), .integer(block.kind.rawValue), .text(block.key), .integer(block.block),
        ]
        let rows = try database.prepare(
            """
            SELECT anonymous_id, user_id, days FROM rollup_person_days
            WHERE project_id = ?1 AND kind = ?2 AND key = ?3 AND block = ?4
            """
        ).rowsOrThrow(blockValues) { ($0.text(at: 0) ?? "", $0.text(at: 1) ?? "", $0.int64(at: 2)) }
        var sets: [SetKey: [UInt32]] = [:]
        for (anonymousId, userId, days) in rows {
            try gather(
                block, anonymousId: anonymousId, userId: userId, days: days, into: &sets, numbers: &numbers)
        }
        try database.prepare(
            """
            DELETE FROM person_sets
            WHERE project_id = ?1 AND kind = ?2 AND key = ?3 AND day >= ?4 * 64 AND day < ?4 * 64 + 64
            """
        ).run(blockValues)
        for (key, members) in sets {
            try upsertSet.run(key.values + [.blob(PersonSet(members).encoded())])
        }
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

    /// Builds every set and merge again from `rollup_person_days` and `identities` (after a
    /// migration or a rebuild of the rollups), then clears ``SQLiteSchema/personSetsKey``.
    func rebuildAll() throws(SQLiteError) {
        var numbers: Numbers = [:]
        try database.execute("DELETE FROM person_sets")
        try database.execute("DELETE FROM person_merges")
        let blocks = try database.prepare(
            "SELECT DISTINCT project_id, kind, key, block FROM rollup_person_days"
        ).rowsOrThrow([]) {
            BlockKey(
                project: $0.int64(at: 0), kind: RollupKind(rawValue: $0.int64(at: 1)) ?? .anyEvent,
                key: $0.text(at: 2) ?? "", block: $0.int64(at: 3))
        }
        for block in blocks { try rebuild(block, numbers: &numbers) }
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
    /// The key's values as `?1`…`?6` of a `person_sets` statement.
    var values: [SQLiteValue] {
        [
            .integer(project), .integer(kind.rawValue), .text(key), .integer(day), .integer(role),
            .integer(chunk),
        ]
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
