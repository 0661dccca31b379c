import FootprintWire

/// One write key of a project as the store lists it. A project has one or more; SDKs send any
/// of them, and ingest refuses a key once it is revoked
/// (``MetadataStore/revokeWriteKey(_:)``), on every collector within its metadata cache's
/// interval.
public struct WriteKey: Sendable, Hashable, Codable {
    /// The key (`fp_` and 32 hexadecimal digits). It can only write, so the store keeps it as
    /// it is (apps ship it).
    public var key: String
    /// The project it writes to.
    public var projectId: Int64
    /// When it was made.
    public var createdAt: Timestamp

    /// Creates a key description.
    public init(key: String, projectId: Int64, createdAt: Timestamp) {
        self.key = key
        self.projectId = projectId
        self.createdAt = createdAt
    }
}
