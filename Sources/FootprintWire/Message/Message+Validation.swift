/// Why an event was refused: a stable code and a message for people naming the field at fault.
public struct MessageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of fault.
    public var code: Code
    /// Names the field and what is wrong with it.
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The kinds of fault; new codes may be added.
    public typealias Code = ErrorCode<MessageError>

    public var description: String { "\(code.name): \(message)" }
}

extension ErrorCode where Domain == MessageError {
    /// A field the message type requires is missing or empty.
    public static var missingField: Self { Self("missing_field") }
    /// A field has the wrong JSON type or an unknown value.
    public static var invalidField: Self { Self("invalid_field") }
    /// A timestamp is not ISO-8601.
    public static var invalidTimestamp: Self { Self("invalid_timestamp") }
    /// A number is NaN or infinite.
    public static var invalidNumber: Self { Self("invalid_number") }
    /// A string is longer than ``MessageLimits/maximumStringBytes``.
    public static var stringTooLong: Self { Self("string_too_long") }
    /// The encoded event is larger than ``MessageLimits/maximumEventBytes``.
    public static var eventTooLarge: Self { Self("event_too_large") }
}

extension Message {
    /// Checks what the SDK must never queue: non-finite numbers, strings over 8 KB and an
    /// encoding over 32 KB.
    /// - Returns: the encoded bytes, so the caller need not encode again.
    /// - Parameter encodedContext: `context` already encoded and validated by the caller (see
    ///   ``jsonBytes(encodedContext:)``); its checks are then skipped.
    public func validatedBytes(encodedContext: [UInt8]? = nil) throws(MessageError) -> [UInt8] {
        var fields = [("properties", properties), ("traits", traits)]
        if encodedContext == nil { fields.append(("context", context)) }
        for (field, object) in fields {
            let value = JSONValue.object(object)
            if let path = value.firstInvalidNumberPath(prefix: field) {
                throw MessageError(code: .invalidNumber, message: "\(path) is not a finite number")
            }
            if value.longestStringByteCount > MessageLimits.maximumStringBytes {
                throw MessageError(
                    code: .stringTooLong,
                    message: "\(field) holds a string over \(MessageLimits.maximumStringBytes) bytes")
            }
        }
        let bytes = jsonBytes(encodedContext: encodedContext)
        if bytes.count > MessageLimits.maximumEventBytes {
            throw MessageError(
                code: .eventTooLarge,
                message: "event encodes to \(bytes.count) bytes, over \(MessageLimits.maximumEventBytes)")
        }
        return bytes
    }

    /// Reads and validates one event from its JSON form, as the server receives it.
    ///
    /// - Parameters:
    ///   - value: the event's JSON object.
    ///   - impliedType: the type given by the endpoint (`/v1/track`), used when the body has none.
    ///   - receivedAt: used as `timestamp` when the body has none.
    ///   - makeMessageId: makes a `messageId` when the body has none (Segment servers accept
    ///     such events; retries of them cannot be deduplicated).
    public init(
        validating value: JSONValue, impliedType: MessageType? = nil, receivedAt: Timestamp,
        makeMessageId: () -> String
    ) throws(MessageError) {
        var encoded: [UInt8] = []
        try self.init(
            validating: value, impliedType: impliedType, receivedAt: receivedAt, makeMessageId: makeMessageId,
            encoded: &encoded)
    }

    /// Reads and validates one event like ``init(validating:impliedType:receivedAt:makeMessageId:)``
    /// and hands back its encoded bytes (``jsonBytes``), so that the caller need not encode again.
    public init(
        validating value: JSONValue, impliedType: MessageType? = nil, receivedAt: Timestamp,
        makeMessageId: () -> String, encoded: inout [UInt8]
    ) throws(MessageError) {
        guard case .object(let object) = value else {
            throw MessageError(code: .invalidField, message: "event is not a JSON object")
        }
        func optionalString(_ key: String) throws(MessageError) -> String? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let text)?:
                if text.utf8.count > MessageLimits.maximumIdBytes, key != "event", key != "name" {
                    throw MessageError(
                        code: .stringTooLong,
                        message: "\(key) is longer than \(MessageLimits.maximumIdBytes) bytes")
                }
                return text.isEmpty ? nil : text
            case .int(let number)? where key.hasSuffix("Id"): return String(number)
            default: throw MessageError(code: .invalidField, message: "\(key) must be a string")
            }
        }
        func optionalObject(_ key: String) throws(MessageError) -> JSONObject {
            switch object[key] {
            case nil, .null?: return [:]
            case .object(let members)?: return members
            default: throw MessageError(code: .invalidField, message: "\(key) must be an object")
            }
        }
        func optionalTimestamp(_ key: String) throws(MessageError) -> Timestamp? {
            guard let text = try optionalString(key) else { return nil }
            guard let time = Timestamp(iso8601: text) else {
                throw MessageError(
                    code: .invalidTimestamp, message: "\(key) is not an ISO-8601 time: \(text.prefix(64))")
            }
            return time
        }

        let type: MessageType
        if let text = try optionalString("type") {
            guard let parsed = MessageType(rawValue: text) else {
                throw MessageError(
                    code: .invalidField,
                    message:
                        "type \"\(text.prefix(32))\" is not one of track, screen, page, identify, alias, group"
                )
            }
            type = parsed
        } else if let impliedType {
            type = impliedType
        } else {
            throw MessageError(code: .missingField, message: "type is missing")
        }

        let anonymousId = try optionalString("anonymousId")
        let userId = try optionalString("userId")
        guard anonymousId != nil || userId != nil else {
            throw MessageError(code: .missingField, message: "anonymousId or userId is required")
        }
        let event = try optionalString("event")
        let name = try optionalString("name")
        let previousId = try optionalString("previousId")
        let groupId = try optionalString("groupId")
        switch type {
        case .track where event == nil:
            throw MessageError(code: .missingField, message: "event is required for track")
        case .alias where previousId == nil || userId == nil:
            throw MessageError(code: .missingField, message: "previousId and userId are required for alias")
        case .group where groupId == nil:
            throw MessageError(code: .missingField, message: "groupId is required for group")
        default: break
        }

        self.init(
            type: type,
            messageId: try optionalString("messageId") ?? makeMessageId(),
            anonymousId: anonymousId, userId: userId, event: event, name: name,
            previousId: previousId, groupId: groupId,
            timestamp: try optionalTimestamp("timestamp") ?? receivedAt,
            sentAt: try optionalTimestamp("sentAt"),
            context: try optionalObject("context"),
            properties: try optionalObject("properties"),
            traits: try optionalObject("traits"))
        encoded = try validatedBytes()
    }
}
