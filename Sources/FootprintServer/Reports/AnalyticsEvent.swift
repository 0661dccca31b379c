import FootprintWire

/// One stored event as the reports read it: the columns and the few properties they use.
public struct AnalyticsEvent: Sendable, Hashable {
    /// Whether a read of the events takes their properties
    /// (``EventStore/analyticsEvents(projectId:filter:properties:)``).
    public enum Properties: Sendable {
        /// Without properties: what the reports need but attribute conditions.
        case omitted
        /// Every property too (for attribute conditions).
        case included
    }

    /// The message type.
    public var type: MessageType
    /// `event` of track, `name` of screen and page.
    public var name: String?
    /// The corrected event time.
    public var time: Timestamp
    /// The device-scoped id.
    public var anonymousId: String?
    /// The app's user id.
    public var userId: String?
    /// `context.sessionId`.
    public var sessionId: String?
    /// `name` of views, `properties.$page_name` of other events.
    public var page: String?
    /// `properties.$element_path`.
    public var elementPath: String?
    /// `properties.$element_similar_path` (cells: row wildcarded).
    public var similarPath: String?
    /// `properties.$element_text`.
    public var elementText: String?
    /// `properties.$item_id`.
    public var itemId: String?
    /// `properties.duration_ms`.
    public var durationMilliseconds: Int64?
    /// `context.app.version`.
    public var appVersion: String?
    /// `context.os.name` and version.
    public var os: String?
    /// Every property, only when the reader asked for them (attribute conditions of event
    /// definitions); else empty.
    public var properties: JSONObject

    /// Creates an event.
    public init(
        type: MessageType, name: String?, time: Timestamp, anonymousId: String? = nil, userId: String? = nil,
        sessionId: String? = nil, page: String? = nil, elementPath: String? = nil, similarPath: String? = nil,
        elementText: String? = nil, itemId: String? = nil, durationMilliseconds: Int64? = nil,
        appVersion: String? = nil, os: String? = nil, properties: JSONObject = [:]
    ) {
        self.type = type
        self.name = name
        self.time = time
        self.anonymousId = anonymousId
        self.userId = userId
        self.sessionId = sessionId
        self.page = page
        self.elementPath = elementPath
        self.similarPath = similarPath
        self.elementText = elementText
        self.itemId = itemId
        self.durationMilliseconds = durationMilliseconds
        self.appVersion = appVersion
        self.os = os
        self.properties = properties
    }

    /// Whether this is a page view (a screen or page message).
    public var isPageView: Bool { type == .screen || type == .page }

    /// Whether this is the track event `event`.
    public func isTrack(_ event: String) -> Bool { type == .track && name == event }
}
