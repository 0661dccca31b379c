/// One event in the Segment HTTP tracking spec's shape: what the SDK creates, queues and sends,
/// and what the server validates and stores.
public struct Message: Sendable, Hashable {
    /// The kind of message.
    public var type: MessageType
    /// Made once on the device (a UUIDv7) and never changed on retry: the server's dedupe key.
    public var messageId: String
    /// The device-scoped id of a person not yet identified.
    public var anonymousId: String?
    /// The app's own id for the person, after `identify`.
    public var userId: String?
    /// The event name, for `track`.
    public var event: String?
    /// The screen or page name, for `screen` and `page`.
    public var name: String?
    /// The earlier id, for `alias`.
    public var previousId: String?
    /// The group, for `group`.
    public var groupId: String?
    /// When the event happened, by the device's clock.
    public var timestamp: Timestamp
    /// When the device sent the batch holding it, by the device's clock; set on every attempt.
    public var sentAt: Timestamp?
    /// Library, app, OS, device, locale, session and the like.
    public var context: JSONObject
    /// The event's properties (`track`, `screen`, `page`).
    public var properties: JSONObject
    /// The person's or group's traits (`identify`, `group`).
    public var traits: JSONObject

    /// Creates a message; fields that the type does not use stay `nil` or empty.
    public init(
        type: MessageType, messageId: String, anonymousId: String? = nil, userId: String? = nil,
        event: String? = nil, name: String? = nil, previousId: String? = nil, groupId: String? = nil,
        timestamp: Timestamp, sentAt: Timestamp? = nil, context: JSONObject = [:],
        properties: JSONObject = [:], traits: JSONObject = [:]
    ) {
        self.type = type
        self.messageId = messageId
        self.anonymousId = anonymousId
        self.userId = userId
        self.event = event
        self.name = name
        self.previousId = previousId
        self.groupId = groupId
        self.timestamp = timestamp
        self.sentAt = sentAt
        self.context = context
        self.properties = properties
        self.traits = traits
    }
}

extension Message {
    /// The message as a JSON object in the Segment wire format.
    public var json: JSONValue {
        var object: JSONObject = [
            "type": .string(type.rawValue),
            "messageId": .string(messageId),
            "timestamp": .string(timestamp.iso8601),
        ]
        if let anonymousId { object["anonymousId"] = .string(anonymousId) }
        if let userId { object["userId"] = .string(userId) }
        if let event { object["event"] = .string(event) }
        if let name { object["name"] = .string(name) }
        if let previousId { object["previousId"] = .string(previousId) }
        if let groupId { object["groupId"] = .string(groupId) }
        if let sentAt { object["sentAt"] = .string(sentAt.iso8601) }
        if !context.isEmpty { object["context"] = .object(context) }
        switch type {
        case .track, .screen, .page: object["properties"] = .object(properties)
        case .identify, .group: object["traits"] = .object(traits)
        case .alias: break
        }
        return .object(object)
    }

    /// The compact JSON bytes of ``json``, written directly (keys in the same sorted order) since
    /// this runs for every event.
    public var jsonBytes: [UInt8] { jsonBytes(encodedContext: nil) }

    /// The compact JSON bytes of ``json``, taking `context` from `encodedContext` when given: the
    /// bytes of `JSONWriter.bytes(.object(context))`, encoded once by a caller that sends the same
    /// context with many events.
    public func jsonBytes(encodedContext: [UInt8]?) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(512)
        var first = true
        func key(_ name: StaticString) {
            output.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            first = false
            output.append(UInt8(ascii: "\""))
            output.append(
                contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            output.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        }
        func string(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            key(name)
            JSONWriter.writeString(value, into: &output)
        }
        let hasProperties = type == .track || type == .screen || type == .page
        let hasTraits = type == .identify || type == .group
        string("anonymousId", anonymousId)
        if !context.isEmpty {
            key("context")
            if let encodedContext {
                output.append(contentsOf: encodedContext)
            } else {
                JSONWriter.writeObject(context, into: &output)
            }
        }
        string("event", event)
        string("groupId", groupId)
        string("messageId", messageId)
        string("name", name)
        string("previousId", previousId)
        if hasProperties {
            key("properties")
            JSONWriter.writeObject(properties, into: &output)
        }
        string("sentAt", sentAt?.iso8601)
        string("timestamp", timestamp.iso8601)
        if hasTraits {
            key("traits")
            JSONWriter.writeObject(traits, into: &output)
        }
        string("type", type.rawValue)
        string("userId", userId)
        output.append(UInt8(ascii: "}"))
        return output
    }
}
