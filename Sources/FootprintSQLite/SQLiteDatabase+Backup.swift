import CSQLite

extension SQLiteDatabase {
    /// How far a backup has come.
    public struct BackupProgress: Sendable, Hashable {
        /// Pages still to copy.
        public var remainingPages: Int
        /// Pages the database has.
        public var totalPages: Int
    }

    /// Copies this database into the new file `path` with SQLite's online backup API,
    /// `pagesPerStep` pages per step.
    ///
    /// The copy is one consistent moment: a read transaction is held on this connection from
    /// the first step to the last, so every step copies the same snapshot. On a write-ahead-log
    /// database, writers (another connection or process) keep committing meanwhile; their
    /// commits go to the log and are not in the copy.
    /// - Parameters:
    ///   - path: the file to create; it must not hold a database yet.
    ///   - pagesPerStep: pages copied per `sqlite3_backup_step` (default 1,024: 4 MB of 4 KB pages).
    ///   - progress: called after each step.
    public func backup(
        to path: String, pagesPerStep: Int32 = 1024, progress: (BackupProgress) -> Void = { _ in }
    ) throws(SQLiteError) {
        let destination = try SQLiteDatabase(path: path, options: Self.backupDestinationOptions)
        try execute("BEGIN")
        defer { try? execute("COMMIT") }
        // The first read takes the snapshot that every step below copies.
        try execute("SELECT count(*) FROM sqlite_master")
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw SQLiteError(
                code: sqlite3_extended_errcode(destination.handle),
                message: "cannot start the backup to \(path): \(destination.lastErrorMessage)")
        }
        var status = SQLITE_OK
        while status == SQLITE_OK || status == SQLITE_BUSY || status == SQLITE_LOCKED {
            status = sqlite3_backup_step(backup, pagesPerStep)
            progress(
                BackupProgress(
                    remainingPages: Int(sqlite3_backup_remaining(backup)),
                    totalPages: Int(sqlite3_backup_pagecount(backup))))
            if status == SQLITE_BUSY || status == SQLITE_LOCKED { sqlite3_sleep(10) }
        }
        let finished = sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE, finished == SQLITE_OK else {
            throw SQLiteError(
                code: status == SQLITE_DONE ? finished : status,
                message: "the backup to \(path) failed: \(destination.lastErrorMessage)")
        }
    }

    /// The destination is written only by the backup, which sets its journal mode and pages.
    private static var backupDestinationOptions: Options {
        var options = Options()
        options.writeAheadLog = false
        return options
    }
}
