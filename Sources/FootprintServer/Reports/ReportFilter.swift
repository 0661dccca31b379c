import FootprintWire

/// What every report covers: a time range and optional filters on the stored columns.
public struct ReportFilter: Sendable, Hashable {
    /// The first instant included; `nil`: from the first event.
    public var from: Timestamp?
    /// The first instant excluded; `nil`: up to the newest event.
    public var to: Timestamp?
    /// Only events of this app version (`context.app.version`).
    public var appVersion: String?
    /// Only events of this OS (`context.os.name` and version, e.g. `iOS 17.2`).
    public var os: String?
    /// Only events on this page (`name` of views, `$page_name` of other events).
    public var page: String?

    /// Creates a filter; the default covers every event.
    public init(
        from: Timestamp? = nil, to: Timestamp? = nil, appVersion: String? = nil, os: String? = nil,
        page: String? = nil
    ) {
        self.from = from
        self.to = to
        self.appVersion = appVersion
        self.os = os
        self.page = page
    }

    /// The filter over the `days` UTC days ending with the day of `now` (included).
    public static func lastDays(_ days: Int, now: Timestamp) -> ReportFilter {
        let end = (now.dayNumber + 1) * 86_400_000
        return ReportFilter(
            from: Timestamp(millisecondsSince1970: end - Int64(max(1, days)) * 86_400_000),
            to: Timestamp(millisecondsSince1970: end))
    }

    /// Whether it names a page, app version or OS: what the stores' sums over every page,
    /// version and OS cannot answer.
    public var namesPageVersionOrOS: Bool { page != nil || appVersion != nil || os != nil }

    /// Whether `event` passes the filter.
    public func includes(_ event: AnalyticsEvent) -> Bool {
        if let from, event.time < from { return false }
        if let to, !(event.time < to) { return false }
        if let appVersion, event.appVersion != appVersion { return false }
        if let os, event.os != os { return false }
        if let page, event.page != page { return false }
        return true
    }
}
