/// What `GET /metrics` shows of a collector's metadata cache (``MetadataCache/reading()``).
public struct MetadataCacheReading: Sendable, Hashable {
    /// Whether the last refresh reached the metadata store.
    public var reachable: Bool
    /// Seconds since the start of the last refresh that reached the store; `nil` before the first.
    public var secondsSinceRefresh: Double?
    /// The metadata revision of the copy held; `nil` before the first refresh.
    public var revision: Int64?

    /// Creates a reading.
    public init(reachable: Bool, secondsSinceRefresh: Double?, revision: Int64?) {
        self.reachable = reachable
        self.secondsSinceRefresh = secondsSinceRefresh
        self.revision = revision
    }
}
