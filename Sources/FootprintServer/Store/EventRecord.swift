import FootprintWire

/// One accepted event as the store keeps it: the columns reports filter and group by, and the
/// whole message as JSON.
public struct EventRecord: Sendable, Hashable {
    /// The client-made id; unique within a project.
    public var messageId: String
    /// The message type.
    public var type: MessageType
    /// `event` for track, `name` for screen and page, else `nil`.
    public var name: String?
    /// The corrected event time (see ``ClockCorrection``).
    public var time: Timestamp
    /// The client's `timestamp`, as sent.
    public var clientTimestamp: Timestamp
    /// The client's `sentAt`, when sent.
    public var sentAt: Timestamp?
    /// When the server received the request.
    public var receivedAt: Timestamp
    /// The device-scoped id.
    public var anonymousId: String?
    /// The app's user id.
    public var userId: String?
    /// `context.sessionId`.
    public var sessionId: String?
    /// `name` for screen and page, else `properties.$page_name`.
    public var page: String?
    /// `properties.$element_path`.
    public var elementPath: String?
    /// `context.app.version`.
    public var appVersion: String?
    /// `context.os.name` and `context.os.version`, joined by a space.
    public var os: String?
    /// The whole message, as compact JSON.
    public var payload: String
    /// `properties.$element_similar_path` (cells: row wildcarded), else `properties.$element_path`.
    public var similarPath: String?
    /// `properties.$element_text`.
    public var elementText: String?
    /// `properties.$item_id`.
    public var itemId: String?
    /// `properties.duration_ms`, when an integer.
    public var durationMilliseconds: Int64?
    /// `properties.$event_name` of an `$element_click`: the tracking plan's name for the action.
    public var planEventName: String?

    /// Creates a record.
    public init(
        messageId: String, type: MessageType, name: String?, time: Timestamp, clientTimestamp: Timestamp,
        sentAt: Timestamp?, receivedAt: Timestamp, anonymousId: String?, userId: String?,
        sessionId: String?, page: String?, elementPath: String?, appVersion: String?, os: String?,
        payload: String, similarPath: String? = nil, elementText: String? = nil, itemId: String? = nil,
        durationMilliseconds: Int64? = nil, planEventName: String? = nil
    ) {
        self.messageId = messageId
        self.type = type
        self.name = name
        self.time = time
        self.clientTimestamp = clientTimestamp
        self.sentAt = sentAt
        self.receivedAt = receivedAt
        self.anonymousId = anonymousId
        self.userId = userId
        self.sessionId = sessionId
        self.page = page
        self.elementPath = elementPath
        self.appVersion = appVersion
        self.os = os
        self.payload = payload
        self.similarPath = similarPath
        self.elementText = elementText
        self.itemId = itemId
        self.durationMilliseconds = durationMilliseconds
        self.planEventName = planEventName
    }
}

extension EventRecord {
    /// The record for a validated message.
    /// - Parameters:
    ///   - message: the validated message.
    ///   - time: its corrected time.
    ///   - receivedAt: when the server received it.
    ///   - encoded: its `jsonBytes`, when already at hand.
    public init(message: Message, time: Timestamp, receivedAt: Timestamp, encoded: [UInt8]? = nil) {
        let isView = message.type == .screen || message.type == .page
        let os: String? = message.context["os"].flatMap { os in
            let parts = [os["name"]?.stringValue, os["version"]?.stringValue].compactMap { $0 }
            return parts.isEmpty ? nil : parts.joined(separator: " ")
        }
        self.init(
            messageId: message.messageId, type: message.type,
            name: message.type == .track ? message.event : (isView ? message.name : nil),
            time: time, clientTimestamp: message.timestamp, sentAt: message.sentAt, receivedAt: receivedAt,
            anonymousId: message.anonymousId, userId: message.userId,
            sessionId: message.context["sessionId"]?.stringValue,
            page: isView ? message.name : message.properties["$page_name"]?.stringValue,
            elementPath: message.properties["$element_path"]?.stringValue,
            appVersion: message.context["app"]?["version"]?.stringValue, os: os,
            payload: String(decoding: encoded ?? message.jsonBytes, as: UTF8.self),
            // An element without a similar path is its own (a button, not a cell).
            similarPath: message.properties["$element_similar_path"]?.stringValue
                ?? message.properties["$element_path"]?.stringValue,
            elementText: message.properties["$element_text"]?.stringValue,
            itemId: message.properties["$item_id"]?.stringValue,
            durationMilliseconds: message.properties["duration_ms"]?.int64Value,
            planEventName: message.type == .track && message.event == "$element_click"
                ? message.properties["$event_name"]?.stringValue : nil)
    }
}
