import FootprintWire

/// Turns a parsed request body into the events to store and the ones refused, one by one.
/// Pure: no I/O, the time is passed in. Every value the server computes with is checked here
/// against ``IngestLimits`` (and `Message(validating:)`'s checks); an event past one is refused
/// alone.
public struct IngestDecoder: Sendable {
    /// One refused event and why.
    public struct Rejection: Sendable, Hashable, Codable {
        /// Its position in the batch (0 for single-message endpoints).
        public var index: Int
        /// Its `messageId`, when it had a readable one.
        public var messageId: String?
        /// The stable reason code (`missing_field`, `invalid_timestamp`, ...).
        public var code: String
        /// What is wrong, for people.
        public var reason: String
    }

    /// What a body holds.
    public struct Decoded: Sendable, Hashable {
        /// The valid events, ready to store.
        public var events: [EventRecord] = []
        /// Identity links from identify (anonymousId + userId) and alias (previousId → userId).
        public var identityLinks: [IdentityLink] = []
        /// The refused events.
        public var rejections: [Rejection] = []
        /// `context.footprint.evicted` of the batch (0 when absent).
        public var evictedCount = 0
        /// A key that is the same for a resent batch (a hash of its `messageId`s).
        public var batchKey = ""
        /// The batch's or message's `writeKey`, when the body carries one.
        public var writeKey: String?
    }

    /// A body whose shape is wrong as a whole (not an object, `batch` not an array).
    public struct ShapeError: Error, Sendable, Hashable {
        /// What is wrong.
        public var message: String
    }

    /// Decodes a batch body (`type` = `nil`, the `/v1/batch` shape) or a single message (the
    /// type its endpoint implies).
    /// - Parameters:
    ///   - body: the parsed JSON body.
    ///   - impliedType: `nil` for `/v1/batch`, else the endpoint's type.
    ///   - receivedAt: when the request arrived.
    public static func decode(
        _ body: JSONValue, impliedType: MessageType?, receivedAt: Timestamp
    ) throws(ShapeError) -> Decoded {
        guard case .object(let envelope) = body else {
            throw ShapeError(message: "the body must be a JSON object")
        }
        var decoded = Decoded()
        decoded.writeKey = envelope["writeKey"]?.stringValue
        let items: [JSONValue]
        var sharedContext: JSONObject = [:]
        var batchSentAt: Timestamp?
        if impliedType == nil {
            guard case .array(let batch)? = envelope["batch"] else {
                throw ShapeError(message: "the body must have a \"batch\" array")
            }
            items = batch
            if case .object(var context)? = envelope["context"] {
                decoded.evictedCount = IngestLimits.evictedCount(context["footprint"]?["evicted"])
                context["footprint"] = nil
                sharedContext = context
            }
            batchSentAt = envelope["sentAt"]?.stringValue.flatMap { Timestamp(iso8601: $0) }
        } else {
            items = [body]
        }

        var keyHash: UInt64 = 0xcbf2_9ce4_8422_2325
        for (index, item) in items.enumerated() {
            var item = item
            if !sharedContext.isEmpty, case .object(var object) = item {
                var context = object["context"]?.objectValue ?? [:]
                context.merge(sharedContext) { own, _ in own }
                object["context"] = .object(context)
                item = .object(object)
            }
            do {
                var encoded: [UInt8] = []
                let message = try Message(
                    validating: item, impliedType: impliedType, receivedAt: receivedAt,
                    makeMessageId: { UUIDv7.make(at: receivedAt) }, encoded: &encoded)
                let sentTimestamp = item["timestamp"]?.stringValue.map { _ in message.timestamp }
                let time = ClockCorrection.eventTime(
                    timestamp: sentTimestamp, sentAt: message.sentAt ?? batchSentAt, receivedAt: receivedAt)
                try IngestLimits.check(message, time: time)
                var record = EventRecord(
                    message: message, time: time, receivedAt: receivedAt, encoded: encoded)
                if record.sentAt == nil { record.sentAt = batchSentAt }
                decoded.events.append(record)
                decoded.identityLinks += links(of: message)
                for byte in message.messageId.utf8 { keyHash = (keyHash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            } catch {
                decoded.rejections.append(
                    Rejection(
                        index: index,
                        messageId: item["messageId"]?.stringValue.map { String($0.prefix(256)) },
                        code: error.code.name, reason: error.message))
            }
        }
        decoded.batchKey = String(keyHash, radix: 16) + "-\(decoded.events.count)"
        return decoded
    }

    private static func links(of message: Message) -> [IdentityLink] {
        switch message.type {
        case .identify:
            guard let anonymousId = message.anonymousId, let userId = message.userId else { return [] }
            return [IdentityLink(anonymousId: anonymousId, userId: userId)]
        case .alias:
            guard let previousId = message.previousId, let userId = message.userId else { return [] }
            return [IdentityLink(anonymousId: previousId, userId: userId)]
        default:
            return []
        }
    }
}
