import FootprintWire

/// When a collector may answer write-key and remote-config lookups from its cached copy of the
/// metadata, and when it must first ask the store whether the metadata changed. No I/O: the
/// store calls it with the time of its (injected) clock and does what it answers.
///
/// The store confirms the copy by reading one revision number, which every change of projects,
/// write keys and published configs bumps in its own transaction; a changed revision loads a
/// new copy. The phases:
/// - `empty`: no copy yet; the next lookup refreshes.
/// - `fresh`: confirmed at most `interval` ago; the copy answers. A key it lacks costs one
///   revision read (``missed()``), so a new key works at once on every collector.
/// - `stale`: confirmed longer ago, or a write of this process made it old; the next lookup
///   refreshes (one at a time), then answers.
/// - `refreshing`: one lookup is refreshing; the others answer from the copy meanwhile.
/// - `unreachable`: the last refresh could not reach the store. The copy still answers for the
///   keys it holds (ingest goes on); a key it lacks may exist, so it is answered "unavailable";
///   a lookup tries again once `interval` has passed since the last try.
///
/// A change made anywhere (a revoked key, a published config) is seen by every lookup that starts
/// `interval` after its commit, while the store can be reached (a lookup that comes while another
/// one refreshes answers from the copy confirmed before, so add that refresh's time).
struct MetadataCacheState: Sendable {
    /// What a lookup does.
    enum Decision: Equatable, Sendable {
        /// Answer from the copy: it is current (a key it lacks is checked once more, ``missed()``).
        case answer
        /// Refresh first, then report ``refreshed(_:revision:startedAt:)``,
        /// ``refreshFailed(_:startedAt:)`` or ``refreshAbandoned(_:)`` with this ticket.
        case refresh(Ticket)
        /// Answer from the copy for what it holds; anything else is unavailable (retry later).
        case answerHeld
    }

    /// The phase a lookup at some time finds, for logs, metrics and tests.
    enum Phase: Equatable, Sendable {
        case empty, fresh, stale, refreshing, unreachable
    }

    /// Identifies one refresh: a write of this process while it ran makes its result old at once.
    struct Ticket: Equatable, Sendable {
        fileprivate let generation: Int
    }

    /// How long a confirmed copy answers before it is checked again, in milliseconds (at least 0).
    let intervalMilliseconds: Int64
    /// The revision of the copy held, or `nil` before the first refresh.
    private(set) var revision: Int64?
    /// When the store last confirmed the copy.
    private var confirmedAt: Timestamp?
    /// When the last refresh that reached the store started (a write of this process meanwhile
    /// makes the copy stale, not the store unreachable), `nil` before the first.
    private(set) var lastRefreshedAt: Timestamp?
    /// When the last refresh that failed to reach the store started, while it is unreachable.
    private var unreachableTriedAt: Timestamp?
    /// Bumped by every write of this process: a refresh that started before it proves nothing.
    private var generation = 0
    /// The refresh under way, if any.
    private var running: Ticket?

    /// Creates the state of an empty cache.
    /// - Parameter intervalMilliseconds: how long a confirmed copy answers (negative counts as 0).
    init(intervalMilliseconds: Int64) {
        self.intervalMilliseconds = max(0, intervalMilliseconds)
    }

    /// The phase at `now`.
    func phase(at now: Timestamp) -> Phase {
        if running != nil { return .refreshing }
        if unreachableTriedAt != nil { return .unreachable }
        guard revision != nil else { return .empty }
        return isConfirmed(at: now) ? .fresh : .stale
    }

    /// Decides a lookup at `now`.
    mutating func lookup(at now: Timestamp) -> Decision {
        if let running {
            // Another lookup refreshes: answer from the copy (a first one must wait for it).
            if revision == nil { return .refresh(running) }
            return unreachableTriedAt == nil ? .answer : .answerHeld
        }
        if let tried = unreachableTriedAt {
            guard now.millisecondsSince1970 - tried.millisecondsSince1970 >= intervalMilliseconds else {
                return .answerHeld
            }
            return .refresh(start())
        }
        if revision != nil, isConfirmed(at: now) { return .answer }
        return .refresh(start())
    }

    /// The copy answered a lookup decided ``Decision/answer`` with "unknown": refresh first, even
    /// while another lookup refreshes (that one may have read before the key was made, and a
    /// client does not send a batch refused `401` again).
    mutating func missed() -> Decision {
        unreachableTriedAt == nil ? .refresh(start()) : .answerHeld
    }

    /// The refresh with `ticket`, started at `started`, read `revision`: the copy is that
    /// revision's, confirmed as of `started` (unless a write of this process came meanwhile).
    mutating func refreshed(_ ticket: Ticket, revision: Int64, startedAt started: Timestamp) {
        if running == ticket { running = nil }
        self.revision = revision
        lastRefreshedAt = started
        unreachableTriedAt = nil
        confirmedAt = ticket.generation == generation ? started : nil
    }

    /// The refresh with `ticket`, started at `started`, could not reach the store.
    mutating func refreshFailed(_ ticket: Ticket, startedAt started: Timestamp) {
        if running == ticket { running = nil }
        unreachableTriedAt = started
    }

    /// The refresh with `ticket` failed for another reason than reaching the store (the lookup
    /// fails with it): the phase stays as it was.
    mutating func refreshAbandoned(_ ticket: Ticket) {
        if running == ticket { running = nil }
    }

    /// This process changed the metadata: the next lookup refreshes.
    mutating func invalidate() {
        generation += 1
        confirmedAt = nil
    }

    private func isConfirmed(at now: Timestamp) -> Bool {
        guard let confirmedAt else { return false }
        return now.millisecondsSince1970 - confirmedAt.millisecondsSince1970 <= intervalMilliseconds
    }

    private mutating func start() -> Ticket {
        let ticket = Ticket(generation: generation)
        running = ticket
        return ticket
    }
}
