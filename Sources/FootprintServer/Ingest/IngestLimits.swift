import FootprintWire

/// The ranges of the values the server computes with, checked where an event enters
/// (``IngestDecoder``). An event past one is refused on its own, with a code and a reason; its
/// neighbours in the batch are stored. What the SDK shares (sizes, finite numbers) is in
/// `MessageLimits`; these are the server's own.
public enum IngestLimits {
    /// The largest `properties.duration_ms` accepted: 366 days in milliseconds
    /// (31,622,400,000). The smallest is 0.
    ///
    /// A `$screen_leave` duration is summed into the dwell rollups: with this bound no sum of
    /// fewer than 2^28 dwells can pass `Int64.max`, and the sums saturate beyond that.
    public static let maximumDurationMilliseconds: Int64 = 366 * 86_400_000

    /// The earliest event time (after clock correction) accepted: 1970-01-01T00:00:00Z.
    public static let earliestEventTime = Timestamp(millisecondsSince1970: 0)

    /// The most events one batch may report as evicted unsent (`context.footprint.evicted`):
    /// `Int32.max`; a larger count is taken as this, a negative one as 0.
    public static let maximumEvictedCount: Int64 = Int64(Int32.max)
}

extension ErrorCode where Domain == MessageError {
    /// An id or name (`messageId`, `anonymousId`, `userId`, `previousId`, `groupId`, `event`,
    /// `name`: stored as keys, compared and grouped by) holds a NUL character. A NUL inside
    /// `properties`, `traits` or `context` is stored intact.
    public static var invalidCharacter: Self { Self("invalid_character") }
    /// A number is outside its documented range (``IngestLimits``).
    public static var numberOutOfRange: Self { Self("number_out_of_range") }
    /// The event time is before ``IngestLimits/earliestEventTime``.
    public static var timestampOutOfRange: Self { Self("timestamp_out_of_range") }
}

extension IngestLimits {
    /// Checks an event's ids, names and numbers against the limits.
    /// - Parameters:
    ///   - message: the validated message.
    ///   - time: its corrected time.
    /// - Throws: `MessageError` with ``ErrorCode/invalidCharacter``, ``ErrorCode/numberOutOfRange``
    ///   or ``ErrorCode/timestampOutOfRange``.
    static func check(_ message: Message, time: Timestamp) throws(MessageError) {
        let texts: [(String, String?)] = [
            ("messageId", message.messageId), ("anonymousId", message.anonymousId),
            ("userId", message.userId),
            ("previousId", message.previousId), ("groupId", message.groupId), ("event", message.event),
            ("name", message.name),
        ]
        for case (let field, let text?) in texts where text.utf8.contains(0) {
            throw MessageError(code: .invalidCharacter, message: "\(field) holds a NUL character")
        }
        if let duration = message.properties["duration_ms"], let value = duration.doubleValue,
            !(0...Double(maximumDurationMilliseconds)).contains(value)
        {
            throw MessageError(
                code: .numberOutOfRange,
                message:
                    "properties.duration_ms is \(duration.int64Value.map(String.init) ?? String(value)), "
                    + "outside 0...\(maximumDurationMilliseconds)")
        }
        if time < earliestEventTime {
            throw MessageError(
                code: .timestampOutOfRange,
                message: "the event time \(time.iso8601) is before \(earliestEventTime.iso8601)")
        }
    }

    /// A batch's `context.footprint.evicted` held within 0...``maximumEvictedCount``.
    static func evictedCount(_ value: JSONValue?) -> Int {
        guard let number = value?.doubleValue, number > 0 else { return 0 }
        return Int(min(number, Double(maximumEvictedCount)).rounded(.down))
    }
}
