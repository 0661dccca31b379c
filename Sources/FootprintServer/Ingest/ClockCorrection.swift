import FootprintWire

/// Decides an event's time from the device's clock and the server's.
///
/// The device clock may be wrong, but the gap between an event and the batch's send is
/// measured on that one clock, so the event time is `receivedAt - (sentAt - timestamp)`.
/// Fallbacks:
/// - no `timestamp` in the event: `receivedAt`;
/// - no `sentAt`, or `sentAt` earlier than `timestamp` (not sane): the client `timestamp`, unless
///   it is more than ``maximumFutureMilliseconds`` after `receivedAt`, then `receivedAt`.
public enum ClockCorrection {
    /// How far in the future (by the server's clock) an uncorrected timestamp may be: one day.
    public static let maximumFutureMilliseconds: Int64 = 86_400_000

    /// The event time.
    /// - Parameters:
    ///   - timestamp: the event's `timestamp`, or `nil` when the client sent none.
    ///   - sentAt: the event's or batch's `sentAt`, when sent.
    ///   - receivedAt: when the server received the request.
    public static func eventTime(timestamp: Timestamp?, sentAt: Timestamp?, receivedAt: Timestamp)
        -> Timestamp
    {
        guard let timestamp else { return receivedAt }
        if let sentAt, sentAt >= timestamp {
            return receivedAt.adding(
                milliseconds: -(sentAt.millisecondsSince1970 - timestamp.millisecondsSince1970))
        }
        if timestamp.millisecondsSince1970 - receivedAt.millisecondsSince1970 > maximumFutureMilliseconds {
            return receivedAt
        }
        return timestamp
    }
}
