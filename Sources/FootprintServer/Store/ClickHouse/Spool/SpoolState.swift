/// What a collector's spool holds and what happens next, without I/O (``ClickHouseSpool`` does
/// the files): which segment a group's record goes in, whether the bound in bytes refuses it,
/// when the open segment is sealed, which segment ships next and what a shipped one frees.
///
/// Times are seconds on any clock the caller keeps (the tests pass their own).
struct SpoolState: Sendable {
    /// One segment file: records of groups, shipped together.
    struct Segment: Sendable, Equatable {
        /// Its number, which names its file; segments ship in this order.
        let id: UInt64
        /// The bytes of its records, framed.
        var bytes: Int
        /// The rows of its records (events, links and evicted counts).
        var rows: Int
        /// When its first record was appended.
        let opened: Double
        /// Whether it may have been shipped in part (found at start, or a shipping failed), so
        /// that its shipping first reads which of its events are stored.
        var mayBeStored: Bool
    }

    /// Where a group's record goes.
    enum Append: Sendable, Equatable {
        /// Into segment `id`; `opensSegment` when its file is new.
        case write(segment: UInt64, opensSegment: Bool)
        /// Nowhere: the spool holds its bound.
        case refuse
    }

    /// The most bytes the spool holds (sealed and open segments).
    let maximumBytes: Int
    /// The rows at which the open segment is sealed.
    let sealRows: Int
    /// The seconds after its first record at which the open segment is sealed.
    let sealInterval: Double
    /// The segment being appended to.
    private(set) var open: Segment?
    /// The sealed segments, oldest first, waiting to be shipped.
    private(set) var sealed: [Segment] = []
    /// The number of the next segment.
    private(set) var nextId: UInt64
    /// The bytes held, sealed and open.
    private(set) var heldBytes = 0

    /// An empty spool, or one holding `recovered` (sealed, each possibly stored in part).
    init(maximumBytes: Int, sealRows: Int, sealInterval: Double, recovered: [Segment] = []) {
        self.maximumBytes = maximumBytes
        self.sealRows = max(1, sealRows)
        self.sealInterval = sealInterval
        self.sealed = recovered.sorted { $0.id < $1.id }.map {
            var segment = $0
            segment.mayBeStored = true
            return segment
        }
        self.nextId = (recovered.map(\.id).max() ?? 0) + 1
        self.heldBytes = recovered.reduce(0) { $0 + $1.bytes }
    }

    /// Whether nothing is held.
    var isEmpty: Bool { open == nil && sealed.isEmpty }

    /// A record of `bytes` (framed) holding `rows` rows, appended at `now`: in the open segment,
    /// or in a new one; refused when it would take the spool past ``maximumBytes``.
    mutating func append(bytes: Int, rows: Int, now: Double) -> Append {
        guard heldBytes + bytes <= maximumBytes else { return .refuse }
        heldBytes += bytes
        if var segment = open {
            segment.bytes += bytes
            segment.rows += rows
            open = segment
            return .write(segment: segment.id, opensSegment: false)
        }
        let segment = Segment(id: nextId, bytes: bytes, rows: rows, opened: now, mayBeStored: false)
        nextId += 1
        open = segment
        return .write(segment: segment.id, opensSegment: true)
    }

    /// Takes back an ``append(bytes:rows:now:)`` whose write failed (the file was cut back to
    /// where it was).
    mutating func appendFailed(bytes: Int, rows: Int) {
        guard var segment = open else { return }
        heldBytes -= bytes
        segment.bytes -= bytes
        segment.rows -= rows
        open = segment.bytes > 0 ? segment : nil
    }

    /// Seals the open segment if it holds ``sealRows`` rows or is ``sealInterval`` old at `now`,
    /// or whatever its age when `force`.
    /// - Returns: the segment sealed, if any.
    @discardableResult
    mutating func seal(now: Double, force: Bool = false) -> Segment? {
        guard let segment = open,
            force || segment.rows >= sealRows || now - segment.opened >= sealInterval
        else { return nil }
        open = nil
        sealed.append(segment)
        return segment
    }

    /// When the open segment is due to be sealed by age; `nil` when none is open.
    var sealDeadline: Double? { open.map { $0.opened + sealInterval } }

    /// The segment to ship next, the oldest sealed.
    var nextToShip: Segment? { sealed.first }

    /// Segment `id` failed to ship: it may be stored in part, and its next shipping reads first.
    mutating func shippingFailed(_ id: UInt64) {
        guard let index = sealed.firstIndex(where: { $0.id == id }) else { return }
        sealed[index].mayBeStored = true
    }

    /// Segment `id` is shipped and marked: its bytes are free.
    mutating func shipped(_ id: UInt64) {
        guard let index = sealed.firstIndex(where: { $0.id == id }) else { return }
        heldBytes -= sealed[index].bytes
        sealed.remove(at: index)
    }
}
