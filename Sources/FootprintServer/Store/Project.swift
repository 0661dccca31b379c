import FootprintWire

/// A project: one app (or environment) whose events are kept apart from others'.
public struct Project: Sendable, Hashable, Codable {
    /// The store's id.
    public var id: Int64
    /// The unique name.
    public var name: String
    /// The write key SDKs send (HTTP Basic username or `writeKey` in the body). It can only write.
    public var writeKey: String
    /// When it was created.
    public var createdAt: Timestamp

    /// Creates a project value.
    public init(id: Int64, name: String, writeKey: String, createdAt: Timestamp) {
        self.id = id
        self.name = name
        self.writeKey = writeKey
        self.createdAt = createdAt
    }

    /// A new random write key: `fp_` and 32 hexadecimal digits.
    public static func makeWriteKey() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = (0..<2).map { _ -> String in
            let text = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return "fp_" + digits.joined()
    }
}
