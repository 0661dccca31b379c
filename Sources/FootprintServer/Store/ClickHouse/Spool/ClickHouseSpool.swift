import Foundation

/// A collector's write-ahead spool: a directory of segment files of framed records
/// (``SpoolFrame``, one ``SpoolRecord`` per group), written with one `write` and one
/// `fdatasync` per group before the group is answered, and shipped to ClickHouse in bulk by the
/// store's shipper (``ClickHouseEventStore``), a sealed segment at a time.
///
/// Files in the directory: `NNNNNNNNNNNNNNNNNNNN.segment` (the segment's number, 20 digits),
/// `shipped` (the numbers of shipped segments, a line each, fsynced before the segment is
/// deleted) and `lock` (held with `flock` while a collector runs on the spool: one at a time).
///
/// Opening the spool recovers it: segments named in `shipped` are deleted; in each other one, a
/// record whose length or checksum does not check ends the segment (a write cut short by a
/// crash, never acknowledged) and is cut off; the rest wait to be shipped, each marked as
/// possibly stored already (``SpoolState/Segment/mayBeStored``).
///
/// What it holds and decides is a ``SpoolState``; this class does the files, under one lock,
/// which the shipper waits on.
final class ClickHouseSpool: @unchecked Sendable {
    /// Spool settings.
    struct Configuration: Sendable {
        /// The spool's directory (created, with its parents, when missing).
        var directory: String
        /// The most bytes the spool holds; a group that would take it past this is refused
        /// (503 with `Retry-After`). Default 1 GiB.
        var maximumBytes = 1 << 30
        /// The rows at which the open segment is sealed for shipping. Default 10,000.
        var sealRows = 10_000
        /// The seconds after its first record at which the open segment is sealed. Default 1.
        var sealInterval = 1.0
    }

    let configuration: Configuration
    /// Guards everything below; signalled when a segment may be ready and when one is shipped.
    private let condition = NSCondition()
    private var state: SpoolState
    /// The open segment's file, or -1.
    private var openFile: Int32 = -1
    private var closed = false
    /// The `lock` file, held with `flock` until ``close()``.
    private let lockFile: Int32

    /// Opens (and recovers) the spool in ``Configuration/directory``.
    /// - Throws: ``ServerError`` `store_in_use` when another collector runs on it, `storage`
    ///   when its files cannot be read or written.
    init(configuration: Configuration) throws(ServerError) {
        self.configuration = configuration
        let directory = configuration.directory
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ServerError(
                code: .storage,
                message: "cannot create the spool directory \(directory): \(error.localizedDescription)")
        }
        lockFile = open(directory + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lockFile >= 0 else { throw Self.failure("cannot open \(directory)/lock") }
        guard flock(lockFile, LOCK_EX | LOCK_NB) == 0 else {
            Foundation.close(lockFile)
            throw ServerError(
                code: .storeInUse, message: "the spool \(directory) is in use by another collector")
        }
        do {
            let recovered = try Self.recover(directory)
            state = SpoolState(
                maximumBytes: configuration.maximumBytes, sealRows: configuration.sealRows,
                sealInterval: configuration.sealInterval, recovered: recovered)
        } catch {
            Foundation.close(lockFile)
            throw error
        }
    }

    deinit {
        close()
    }

    /// The bytes held, shipped or not yet.
    var heldBytes: Int { locked { $0.state.heldBytes } }

    /// Whether nothing waits to be shipped.
    var isEmpty: Bool { locked { $0.state.isEmpty } }

    /// Appends `payload` (a ``SpoolRecord`` of `rows` rows) to the open segment, a new one when
    /// none is open, with one `write` and one `fdatasync`: once this returns the record is
    /// durable.
    /// - Throws: ``ServerError`` `unavailable` when the spool holds its bound (or is closed),
    ///   `storage` when the write fails (the file is cut back; nothing was appended).
    func append(_ payload: [UInt8], rows: Int) throws(ServerError) {
        let frame = SpoolFrame.frame(payload)
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { throw ServerError(code: .unavailable, message: "the spool is closed") }
        switch state.append(bytes: frame.count, rows: rows, now: Self.now()) {
        case .refuse:
            throw ServerError(
                code: .unavailable,
                message:
                    "the spool \(configuration.directory) holds its bound of \(configuration.maximumBytes) bytes "
                    + "until ClickHouse takes its rows")
        case .write(let id, let opensSegment):
            let before = (state.open?.bytes ?? frame.count) - frame.count
            do throws(ServerError) {
                if opensSegment { openFile = try openSegment(id) }
                try Self.writeAll(frame, to: openFile)
                guard fdatasync(openFile) == 0 else { throw Self.failure("cannot sync \(path(of: id))") }
            } catch {
                state.appendFailed(bytes: frame.count, rows: rows)
                if before == 0 {
                    Foundation.close(openFile)
                    openFile = -1
                    unlink(path(of: id))
                } else {
                    ftruncate(openFile, off_t(before))
                }
                throw error
            }
            if let open = state.open, open.rows >= state.sealRows { condition.broadcast() }
        }
    }

    /// The next segment to ship: a sealed one, or the open one once it is due (sealed then). Waits
    /// for one at most `timeout` seconds; `force` seals the open one whatever its size or age.
    /// - Returns: `nil` when none is ready in time, or the spool is closed.
    func nextSegment(waiting timeout: Double, force: Bool = false) -> SpoolState.Segment? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !closed {
            if state.seal(now: Self.now(), force: force) != nil {
                Foundation.close(openFile)
                openFile = -1
            }
            if let segment = state.nextToShip { return segment }
            let wake = state.sealDeadline.map { Date(timeIntervalSinceNow: max(0, $0 - Self.now())) }
            guard Date() < deadline else { return nil }
            _ = condition.wait(until: min(deadline, wake ?? deadline))
        }
        return nil
    }

    /// The records of segment `id`, in order (a torn tail left out).
    func payloads(of id: UInt64) throws(ServerError) -> [[UInt8]] {
        SpoolFrame.records(in: try Self.read(path(of: id))).payloads
    }

    /// Segment `id` as it stands, when it is sealed and not yet shipped.
    func sealedSegment(_ id: UInt64) -> SpoolState.Segment? {
        locked { $0.state.sealed.first { $0.id == id } }
    }

    /// Segment `id` failed to ship: its next shipping reads which of its events are stored first.
    func shippingFailed(_ id: UInt64) {
        locked { $0.state.shippingFailed(id) }
    }

    /// Marks segment `id` shipped: its number appended to `shipped` and fsynced, then the
    /// segment deleted (and the directory synced, after which `shipped` is emptied: no file it
    /// names is left).
    func markShipped(_ id: UInt64) throws(ServerError) {
        let directory = configuration.directory
        let shipped = open(directory + "/shipped", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard shipped >= 0 else { throw Self.failure("cannot open \(directory)/shipped") }
        defer { Foundation.close(shipped) }
        try Self.writeAll(Array("\(id)\n".utf8), to: shipped)
        guard fsync(shipped) == 0 else { throw Self.failure("cannot sync \(directory)/shipped") }
        guard unlink(path(of: id)) == 0 || errno == ENOENT else {
            throw Self.failure("cannot delete \(path(of: id))")
        }
        try Self.syncDirectory(directory)
        ftruncate(shipped, 0)
        condition.lock()
        state.shipped(id)
        condition.broadcast()
        condition.unlock()
    }

    /// Stops handing out segments and closes the files (what is held stays on disk).
    func close() {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return }
        closed = true
        if openFile >= 0 { Foundation.close(openFile) }
        openFile = -1
        Foundation.close(lockFile)
        condition.broadcast()
    }

    // MARK: Files

    /// The file of segment `id`.
    func path(of id: UInt64) -> String {
        configuration.directory + "/" + Self.fileName(of: id)
    }

    static func fileName(of id: UInt64) -> String {
        let digits = String(id)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".segment"
    }

    private func openSegment(_ id: UInt64) throws(ServerError) -> Int32 {
        let file = open(path(of: id), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw Self.failure("cannot create \(path(of: id))") }
        do {
            try Self.syncDirectory(configuration.directory)
        } catch {
            Foundation.close(file)
            throw error
        }
        return file
    }

    /// Deletes the shipped segments, cuts torn tails off the others and empties `shipped`.
    /// - Returns: the segments left to ship.
    private static func recover(_ directory: String) throws(ServerError) -> [SpoolState.Segment] {
        let shippedPath = directory + "/shipped"
        let shipped = Set(
            String(decoding: (try? read(shippedPath)) ?? [], as: UTF8.self).split(separator: "\n")
                .compactMap { UInt64($0) })
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw failure("cannot list the spool directory \(directory)")
        }
        var segments: [SpoolState.Segment] = []
        for name in names where name.hasSuffix(".segment") {
            guard let id = UInt64(name.dropLast(".segment".count)) else { continue }
            let path = directory + "/" + name
            let frames = SpoolFrame.records(in: try read(path))
            if shipped.contains(id) || frames.validBytes == 0 {
                unlink(path)
                continue
            }
            guard truncate(path, off_t(frames.validBytes)) == 0 else { throw failure("cannot cut \(path)") }
            segments.append(
                SpoolState.Segment(
                    id: id, bytes: frames.validBytes, rows: frames.payloads.count, opened: 0,
                    mayBeStored: true))
        }
        try syncDirectory(directory)
        if truncate(shippedPath, 0) != 0 && errno != ENOENT { throw failure("cannot empty \(shippedPath)") }
        return segments
    }

    private static func read(_ path: String) throws(ServerError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw failure("cannot read \(path)")
        }
        return [UInt8](data)
    }

    private static func writeAll(_ bytes: [UInt8], to file: Int32) throws(ServerError) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { write(file, $0.baseAddress! + written, $0.count - written) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { throw failure("cannot write to the spool") }
            written += result
        }
    }

    private static func syncDirectory(_ directory: String) throws(ServerError) {
        let file = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard file >= 0 else { throw failure("cannot open \(directory)") }
        defer { Foundation.close(file) }
        guard fsync(file) == 0 else { throw failure("cannot sync \(directory)") }
    }

    private static func failure(_ what: String) -> ServerError {
        ServerError(code: .storage, message: "\(what): \(String(cString: strerror(errno)))")
    }

    /// Seconds on a clock that never goes back.
    private static func now() -> Double { ProcessInfo.processInfo.systemUptime }

    private func locked<T>(_ body: (ClickHouseSpool) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(self)
    }
}
