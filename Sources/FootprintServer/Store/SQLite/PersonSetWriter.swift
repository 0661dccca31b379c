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
