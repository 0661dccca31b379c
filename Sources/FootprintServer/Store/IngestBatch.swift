import FootprintWire

/// Everything one request writes, committed together.
public struct IngestBatch: Sendable, Hashable {
    /// The project the write key belongs to.
    public var projectId: Int64
    /// The accepted events; ones already stored (same `messageId`) are skipped.
    public var events: [EventRecord]
    /// anonymousId ↔ userId pairs learnt from identify and alias.
    public var identityLinks: [IdentityLink]
    /// Events the device evicted unsent, as reported by the batch (`context.footprint.evicted`).
    public var evictedCount: Int
    /// Identifies the batch for ``evictedCount``, so that a resent batch is not counted twice.
    public var batchKey: String
    /// When the server received the request.
    public var receivedAt: Timestamp

    /// Creates a batch.
    public init(
        projectId: Int64, events: [EventRecord], identityLinks: [IdentityLink] = [], evictedCount: Int = 0,
        batchKey: String = "", receivedAt: Timestamp
    ) {
        self.projectId = projectId
        self.receivedAt = receivedAt
        self.events = events
        self.identityLinks = identityLinks
        self.evictedCount = evictedCount
        self.batchKey = batchKey
    }
}

/// A link between a device-scoped id and the app's user id.
public struct IdentityLink: Sendable, Hashable {
    /// The device-scoped id (for alias: the `previousId`).
    public var anonymousId: String
    /// The app's user id.
    public var userId: String

    /// Creates a link.
    public init(anonymousId: String, userId: String) {
        self.anonymousId = anonymousId
        self.userId = userId
    }
}

/// What a committed ``IngestBatch`` changed.
public struct WriteOutcome: Sendable, Hashable {
    /// Events newly stored.
    public var stored: Int
    /// Events skipped because their `messageId` was already stored.
    public var duplicates: Int
    /// The indexes (in the batch's `events`) of events refused because they carry the id of a
    /// deleted person (see `footprint people delete`).
    public var refused: [Int]

    /// Creates an outcome.
    public init(stored: Int, duplicates: Int, refused: [Int] = []) {
        self.stored = stored
        self.duplicates = duplicates
        self.refused = refused
    }
}
