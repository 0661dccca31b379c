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
        // Parsed timestamps lie within years 0...9999, so none of this overflows; the checks
        // keep it defined for any `Timestamp` a caller passes.
        if let sentAt, sentAt >= timestamp {
            let (gap, gapOverflows) = sentAt.millisecondsSince1970.subtractingReportingOverflow(
                timestamp.millisecondsSince1970)
            let (time, timeOverflows) = receivedAt.millisecondsSince1970.subtractingReportingOverflow(gap)
            return gapOverflows || timeOverflows ? receivedAt : Timestamp(millisecondsSince1970: time)
        }
        let (ahead, overflows) = timestamp.millisecondsSince1970.subtractingReportingOverflow(
            receivedAt.millisecondsSince1970)
        if overflows || ahead > maximumFutureMilliseconds {
            return receivedAt
        }
        return timestamp
    }
}
