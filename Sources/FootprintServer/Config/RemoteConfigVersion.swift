import FootprintWire

/// One published remote config of a project, as SDKs fetch it from `GET /v1/config`.
public struct RemoteConfigVersion: Sendable, Hashable, Codable {
    /// The revision: 1 for a project's first publication, one more for each later one (a
    /// roll-back publishes an earlier document again as a new revision).
    public var version: Int64
    /// The document, as compact JSON.
    public var document: String
    /// When it was published.
    public var publishedAt: Timestamp

    /// Creates a version.
    public init(version: Int64, document: String, publishedAt: Timestamp) {
        self.version = version
        self.document = document
        self.publishedAt = publishedAt
    }

    /// The strong HTTP entity tag: the version and a hash of the document.
    public var etag: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in document.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "\"v\(version)-\(String(repeating: "0", count: 16 - hex.count))\(hex)\""
    }
}
