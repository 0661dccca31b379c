import Foundation

/// An advisory lock on a database file, so that one file is served by one kind of server only:
/// `flock` on `PATH.lock` beside it, held until ``release()`` (or the process ends).
///
/// A server whose events are in the SQLite file holds it ``Mode/exclusive``: a second server on
/// the file is refused. The collectors of a ClickHouse store, which share the file for projects,
/// keys and tokens, hold it ``Mode/shared``: they start beside each other, and none starts beside
/// a SQLite server on the file (nor one beside them). Tools that only read or manage the file
/// (`backup`, `report`, `projects`, `tokens`) take no lock and work while servers run.
public final class StoreLock: Sendable {
    /// How the file is held.
    public enum Mode: Sendable, Hashable {
        /// By one server alone: its events are in the file.
        case exclusive
        /// By any number of servers, each of which keeps its events elsewhere (ClickHouse).
        case shared
    }

    /// The lock file (`PATH.lock`).
    public let path: String
    /// How it is held.
    public let mode: Mode
    private let descriptor: LockedValue<Int32>

    /// Takes the lock of the database at `databasePath`, or fails at once when it is taken.
    /// - Parameters:
    ///   - databasePath: the database file.
    ///   - mode: exclusive (a SQLite server) or shared (collectors of a ClickHouse store).
    /// - Throws: ``ServerError`` `store_in_use` naming who holds it (the process id of an
    ///   exclusive holder), or `storage` when the lock file cannot be opened.
    public init(databasePath: String, mode: Mode) throws(ServerError) {
        path = databasePath + ".lock"
        self.mode = mode
        if let problem = SQLiteEventStore.pathProblem(databasePath) {
            throw ServerError(code: .storage, message: "cannot open the database \(databasePath): \(problem)")
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ServerError(
                code: .storage,
                message: "cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, (mode == .exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 else {
            let holder = Self.holder(descriptor)
            close(descriptor)
            throw ServerError(
                code: .storeInUse,
                message: Self.refusal(databasePath: databasePath, wanted: mode, exclusiveHolder: holder))
        }
        // An exclusive holder writes its process id for the refusal of the next one; a shared
        // holder clears the file (no exclusive holder can be there while it holds the lock).
        ftruncate(descriptor, 0)
        if mode == .exclusive {
            let note = Array("\(getpid())\n".utf8)
            _ = note.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        self.descriptor = LockedValue(descriptor)
    }

    deinit {
        release()
    }

    /// Lets the file go. Safe to call twice.
    public func release() {
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            close(descriptor)
            descriptor = -1
        }
    }

    /// The process id an exclusive holder wrote, `nil` when none (shared holders).
    private static func holder(_ descriptor: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(
            String(decoding: bytes[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Why the lock was refused, and what to do.
    static func refusal(databasePath: String, wanted: Mode, exclusiveHolder: Int32?) -> String {
        let server = "footprint serve" + (exclusiveHolder.map { " (process \($0))" } ?? "")
        switch (wanted, exclusiveHolder) {
        case (.exclusive, nil):
            return
                "\(databasePath) is the metadata file of running ClickHouse collectors (footprint serve --store); "
                + "its events are in ClickHouse: stop them, or serve with their --store"
        case (.exclusive, _?):
            return "\(server) already serves \(databasePath); stop it first, or give this one another --db"
        case (.shared, _):
            return
                "\(server) serves \(databasePath) with its events in SQLite; stop it first "
                + "(the events it takes would stay in SQLite, apart from those in ClickHouse)"
        }
    }
}
