/// Size limits shared by the SDK (which refuses to queue an event past them) and the server
/// (which rejects it).
public enum MessageLimits {
    /// The largest encoded event, in bytes: 32 KB.
    public static let maximumEventBytes = 32 * 1024
    /// The longest string value or key inside an event, in UTF-8 bytes: 8 KB.
    public static let maximumStringBytes = 8 * 1024
    /// The largest request body after decompression: 5 MB.
    public static let maximumRequestBytes = 5 * 1024 * 1024
    /// The longest id (`messageId`, `userId`, `anonymousId`, ...): 256 bytes.
    public static let maximumIdBytes = 256
}
