import FootprintWire

/// A collector's copy of the metadata ingest reads on every request — write keys and the
/// latest remote config of each project — kept current by polling a revision number
/// (``MetadataCacheState`` decides when; this type does the reading). It answers those lookups
/// without a round trip while the copy is confirmed, and goes on answering for the keys it holds
/// while the store cannot be reached.
final class MetadataCache: Sendable {
    /// Reads the metadata when its revision is not `known`; `nil` when it is (nothing changed).
    typealias Read = @Sendable (_ known: Int64?) throws(ServerError) -> MetadataSnapshot?

    private let clock: any Clock
    private let read: Read
    private let box: LockedValue<(state: MetadataCacheState, snapshot: MetadataSnapshot?)>

    /// Creates an empty cache; the first lookup reads the metadata.
    /// - Parameters:
    ///   - intervalMilliseconds: how long a confirmed copy answers before its revision is read again.
    ///   - clock: the time lookups are decided at.
    ///   - read: reads the revision, and the metadata when it changed.
    init(intervalMilliseconds: Int64, clock: any Clock, read: @escaping Read) {
        self.clock = clock
        self.read = read
        box = LockedValue((MetadataCacheState(intervalMilliseconds: intervalMilliseconds), nil))
    }

    /// The cache's phase now.
    var phase: MetadataCacheState.Phase {
        let now = clock.now()
        return box.withLock { $0.state.phase(at: now) }
    }

    /// The cache's state for `GET /metrics`, after confirming the copy as a lookup would (a read
    /// of the revision when the interval has passed since the last one, none otherwise).
    func reading() -> MetadataCacheReading {
        _ = try? answer { _ in () }
        let now = clock.now()
        return box.withLock { cache in
            MetadataCacheReading(
                reachable: cache.state.phase(at: now) != .unreachable,
                secondsSinceRefresh: cache.state.lastRefreshedAt.map {
                    Double(now.millisecondsSince1970 - $0.millisecondsSince1970) / 1000
                },
                revision: cache.state.revision)
        }
    }

    /// The project of a write key, or `nil` when the key is unknown.
    /// - Throws: ``ServerError`` `unavailable` when the store cannot be reached and the copy
    ///   does not hold the key.
    func project(writeKey: String) throws(ServerError) -> Project? {
        try answer { $0.projectsByKey[writeKey] }
    }

    /// The latest remote config of a project, or `nil` when it has none.
    /// - Throws: ``ServerError`` `unavailable` when the store cannot be reached and the copy
    ///   does not hold the project.
    func latestConfig(projectId: Int64) throws(ServerError) -> RemoteConfigVersion? {
        try answer { snapshot -> RemoteConfigVersion?? in
            snapshot.projectIds.contains(projectId) ? .some(snapshot.latestConfigs[projectId]) : nil
        } ?? nil
    }

    /// This process changed the metadata: the next lookup reads the revision again.
    func invalidate() {
        box.withLock { $0.state.invalidate() }
    }

    /// What `find` finds in the copy, refreshed first when the state says so, and once more
    /// when the copy lacks it; `nil` when the current metadata lacks it.
    private func answer<T>(_ find: (MetadataSnapshot) -> T?) throws(ServerError) -> T? {
        let now = clock.now()
        var (decision, snapshot) = box.withLock { ($0.state.lookup(at: now), $0.snapshot) }
        var refreshed = false
        while true {
            if case .refresh(let ticket) = decision {
                refreshed = true
                do {
                    snapshot = try refresh(ticket, held: snapshot, startedAt: now)
                } catch  where error.code == .unavailable {
                    box.withLock { $0.state.refreshFailed(ticket, startedAt: now) }
                    decision = .answerHeld
                }
            }
            if let snapshot, let found = find(snapshot) { return found }
            guard decision != .answerHeld, snapshot != nil else {
                throw ServerError(
                    code: .unavailable,
                    message:
                        "the metadata store cannot be reached and this collector has not cached the answer; "
                        + "retry later")
            }
            if refreshed { return nil }
            decision = box.withLock { $0.state.missed() }
        }
    }

    /// Reads the metadata if it changed since `held`; returns the copy to answer from.
    /// - Throws: what reading throws; a failure other than `unavailable` leaves the state as it was.
    private func refresh(
        _ ticket: MetadataCacheState.Ticket, held: MetadataSnapshot?, startedAt now: Timestamp
    )
        throws(ServerError) -> MetadataSnapshot?
    {
        let read: MetadataSnapshot?
        do {
            read = try self.read(held?.revision)
        } catch  where error.code == .unavailable {
            throw error
        } catch {
            box.withLock { $0.state.refreshAbandoned(ticket) }
            throw error
        }
        return box.withLock { cache in
            if let read, read.revision != cache.snapshot?.revision { cache.snapshot = read }
            if let revision = read?.revision ?? held?.revision {
                cache.state.refreshed(ticket, revision: revision, startedAt: now)
            }
            return cache.snapshot
        }
    }
}

/// A metadata store whose write keys (and, in PostgreSQL, latest configs) a ``MetadataCache``
/// keeps: both stores.
protocol MetadataCaching {
    /// The cache.
    var cache: MetadataCache { get }
}

extension SQLiteEventStore: MetadataCaching {}
extension PostgresMetadataStore: MetadataCaching {}
