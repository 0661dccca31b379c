extension ScreenSnapshot {
    /// Reads and validates a snapshot from JSON text.
    /// - Parameters:
    ///   - jsonBytes: the request body.
    ///   - limits: the bounds to enforce. Default ``Limits/init()``.
    /// - Throws: ``SnapshotError`` naming the field at fault; ``SnapshotError/Code/unreadable``
    ///   when the bytes are not a JSON object, ``SnapshotError/Code/documentTooLarge`` before
    ///   parsing when there are too many of them.
    public init(jsonBytes: some Collection<UInt8>, limits: Limits = Limits()) throws(SnapshotError) {
        guard jsonBytes.count <= limits.maximumDocumentBytes else {
            throw SnapshotError(
                code: .documentTooLarge, field: "",
                message: "\(jsonBytes.count) bytes, over \(limits.maximumDocumentBytes)")
        }
        let value: JSONValue
        do {
            // The document nests four levels deep (root, elements, element, frame).
            value = try JSONParser(maximumDepth: 8).parse(jsonBytes)
        } catch {
            throw SnapshotError(code: .unreadable, field: "", message: "not JSON: \(error)")
        }
        try self.init(json: value, limits: limits)
    }

    /// Reads and validates a snapshot from its JSON value.
    /// - Parameters:
    ///   - json: the parsed document.
    ///   - limits: the bounds to enforce. Default ``Limits/init()``.
    /// - Throws: ``SnapshotError`` naming the field at fault, e.g. `elements[3].frame.x`.
    public init(json: JSONValue, limits: Limits = Limits()) throws(SnapshotError) {
        let reader = SnapshotReader(limits: limits)
        guard case .object(let root) = json else {
            throw SnapshotError(code: .unreadable, field: "", message: "the snapshot must be a JSON object")
        }
        let token = try reader.string(root, "connect_token", at: "", maximumBytes: limits.maximumFieldBytes)
        guard token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw SnapshotError(
                code: .invalidField, field: "connect_token", message: "must be printable ASCII without spaces"
            )
        }
        let snapshotID = try reader.string(root, "snapshot_id", at: "", maximumBytes: 36)
        guard Self.isUUID(snapshotID) else {
            throw SnapshotError(
                code: .invalidField, field: "snapshot_id", message: "must be a UUID, got \"\(snapshotID)\"")
        }
        let screenObject = try reader.object(root, "screen", at: "")
        let screenRange = 1...limits.maximumScreenPoints
        let screen = Screen(
            width: try reader.number(screenObject, "width", at: "screen", in: screenRange),
            height: try reader.number(screenObject, "height", at: "screen", in: screenRange),
            scale: try reader.number(screenObject, "scale", at: "screen", in: limits.scaleRange))
        let takenAtText = try reader.string(root, "taken_at", at: "", maximumBytes: 64)
        guard let takenAt = Timestamp(iso8601: takenAtText) else {
            throw SnapshotError(
                code: .invalidField, field: "taken_at",
                message: "must be an ISO-8601 time, got \"\(takenAtText)\"")
        }
        let triggerText = try reader.string(root, "trigger", at: "", maximumBytes: limits.maximumFieldBytes)
        guard let trigger = Trigger(rawValue: triggerText) else {
            throw SnapshotError(
                code: .invalidField, field: "trigger",
                message: "must be \"page_appear\" or \"on_demand\", got \"\(triggerText)\"")
        }
        guard let elementsValue = root["elements"] else {
            throw SnapshotError(code: .missingField, field: "elements", message: "required (may be empty)")
        }
        guard case .array(let items) = elementsValue else {
            throw SnapshotError(code: .invalidField, field: "elements", message: "must be an array")
        }
        guard items.count <= limits.maximumElements else {
            throw SnapshotError(
                code: .tooManyElements, field: "elements",
                message: "\(items.count) elements, over \(limits.maximumElements)")
        }
        var elements: [Element] = []
        elements.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            elements.append(try Element(json: item, at: "elements[\(index)]", reader: reader))
        }
        var image: Image?
        if let value = root["image"], !value.isNull {
            image = try Image(json: value, reader: reader)
        }
        self.init(
            connectToken: token, snapshotID: snapshotID,
            anonymousID: try reader.string(
                root, "anonymous_id", at: "", maximumBytes: limits.maximumFieldBytes),
            userID: try reader.optionalString(
                root, "user_id", at: "", maximumBytes: limits.maximumFieldBytes),
            page: try reader.string(root, "page", at: "", maximumBytes: limits.maximumFieldBytes),
            pagePath: try reader.optionalString(
                root, "page_path", at: "", maximumBytes: limits.maximumPathBytes),
            appVersion: try reader.string(
                root, "app_version", at: "", maximumBytes: limits.maximumFieldBytes, allowsEmpty: true),
            build: try reader.string(
                root, "build", at: "", maximumBytes: limits.maximumFieldBytes, allowsEmpty: true),
            osVersion: try reader.string(
                root, "os_version", at: "", maximumBytes: limits.maximumFieldBytes, allowsEmpty: true),
            deviceModel: try reader.string(
                root, "device_model", at: "", maximumBytes: limits.maximumFieldBytes, allowsEmpty: true),
            screen: screen, takenAt: takenAt, trigger: trigger, elements: elements, image: image)
    }

    /// Whether `text` has the 8-4-4-4-12 hexadecimal shape of a UUID.
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard UUIDv7.hexValue(byte) != nil else { return false }
            }
        }
        return true
    }
}

extension ScreenSnapshot.Element {
    fileprivate init(json: JSONValue, at field: String, reader: SnapshotReader) throws(SnapshotError) {
        guard case .object(let object) = json else {
            throw SnapshotError(code: .invalidField, field: field, message: "must be an object")
        }
        let limits = reader.limits
        let path = try reader.elementPath(object, "path", at: field)
        let similarPath = try reader.elementPath(object, "similar_path", at: field)
        let kind = try reader.string(object, "kind", at: field, maximumBytes: limits.maximumKindBytes)
        guard
            kind.utf8.allSatisfy({
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || $0 == UInt8(ascii: "_")
            })
        else {
            throw SnapshotError(
                code: .invalidField, field: "\(field).kind", message: "must be lower-case letters and \"_\"")
        }
        let frameObject = try reader.object(object, "frame", at: field)
        let frameField = "\(field).frame"
        let edge = -limits.maximumCoordinate...limits.maximumCoordinate
        let size = 0...limits.maximumCoordinate
        let frame = ScreenSnapshot.Frame(
            x: try reader.number(frameObject, "x", at: frameField, in: edge),
            y: try reader.number(frameObject, "y", at: frameField, in: edge),
            width: try reader.number(frameObject, "width", at: frameField, in: size),
            height: try reader.number(frameObject, "height", at: frameField, in: size))
        let ignored = try reader.flag(object, "ignored", at: field)
        let text = try reader.optionalString(object, "text", at: field, maximumBytes: limits.maximumTextBytes)
        if ignored, text != nil {
            throw SnapshotError(
                code: .ignoredWithText, field: "\(field).text",
                message: "an ignored element never carries text")
        }
        self.init(
            path: path, similarPath: similarPath, kind: kind, frame: frame, text: text, ignored: ignored,
            planned: try reader.flag(object, "planned", at: field),
            planEntry: try reader.optionalString(
                object, "plan_entry", at: field, maximumBytes: limits.maximumFieldBytes))
    }
}

extension ScreenSnapshot.Image {
    fileprivate init(json: JSONValue, reader: SnapshotReader) throws(SnapshotError) {
        guard case .object(let object) = json else {
            throw SnapshotError(code: .invalidField, field: "image", message: "must be an object")
        }
        let limits = reader.limits
        let formatText = try reader.string(
            object, "format", at: "image", maximumBytes: limits.maximumFieldBytes)
        guard let format = Format(rawValue: formatText) else {
            throw SnapshotError(
                code: .invalidField, field: "image.format",
                message: "must be \"jpeg\" or \"png\", got \"\(formatText)\"")
        }
        let pixels = 1...Double(limits.maximumImagePixels)
        let width = try reader.number(object, "width", at: "image", in: pixels, integral: true)
        let height = try reader.number(object, "height", at: "image", in: pixels, integral: true)
        guard case .string(let encoded)? = object["data"] else {
            throw SnapshotError(
                code: object["data"] == nil ? .missingField : .invalidField, field: "image.data",
                message: "must be Base64 text")
        }
        // Checked before decoding, so an oversized image costs no decoding work.
        guard Base64.maximumDecodedCount(ofLength: encoded.utf8.count) <= limits.maximumImageBytes + 2 else {
            throw SnapshotError(
                code: .imageTooLarge, field: "image.data", message: "over \(limits.maximumImageBytes) bytes")
        }
        guard let data = Base64.decode(encoded) else {
            throw SnapshotError(code: .invalidImage, field: "image.data", message: "not canonical Base64")
        }
        guard data.count <= limits.maximumImageBytes else {
            throw SnapshotError(
                code: .imageTooLarge, field: "image.data",
                message: "\(data.count) bytes, over \(limits.maximumImageBytes)")
        }
        guard format.hasSignature(data) else {
            throw SnapshotError(
                code: .invalidImage, field: "image.data", message: "the bytes are not \(format.rawValue)")
        }
        self.init(format: format, width: Int(width), height: Int(height), data: data)
    }
}

/// The checks shared by every part of snapshot decoding.
struct SnapshotReader {
    let limits: ScreenSnapshot.Limits

    func fieldName(_ key: String, at field: String) -> String { field.isEmpty ? key : "\(field).\(key)" }

    func object(_ object: JSONObject, _ key: String, at field: String) throws(SnapshotError) -> JSONObject {
        let name = fieldName(key, at: field)
        guard let value = object[key] else {
            throw SnapshotError(code: .missingField, field: name, message: "required")
        }
        guard case .object(let members) = value else {
            throw SnapshotError(code: .invalidField, field: name, message: "must be an object")
        }
        return members
    }

    func string(
        _ object: JSONObject, _ key: String, at field: String, maximumBytes: Int, allowsEmpty: Bool = false
    ) throws(SnapshotError) -> String {
        let name = fieldName(key, at: field)
        guard let value = object[key] else {
            throw SnapshotError(code: .missingField, field: name, message: "required")
        }
        return try checked(value, name: name, maximumBytes: maximumBytes, allowsEmpty: allowsEmpty)
    }

    func optionalString(_ object: JSONObject, _ key: String, at field: String, maximumBytes: Int)
        throws(SnapshotError) -> String?
    {
        guard let value = object[key], !value.isNull else { return nil }
        return try checked(
            value, name: fieldName(key, at: field), maximumBytes: maximumBytes, allowsEmpty: false)
    }

    private func checked(_ value: JSONValue, name: String, maximumBytes: Int, allowsEmpty: Bool)
        throws(SnapshotError) -> String
    {
        guard case .string(let text) = value else {
            throw SnapshotError(code: .invalidField, field: name, message: "must be a string")
        }
        guard allowsEmpty || !text.isEmpty else {
            throw SnapshotError(code: .invalidField, field: name, message: "must not be empty")
        }
        guard text.utf8.count <= maximumBytes else {
            throw SnapshotError(
                code: .tooLong, field: name, message: "\(text.utf8.count) bytes, over \(maximumBytes)")
        }
        return text
    }

    func elementPath(_ object: JSONObject, _ key: String, at field: String) throws(SnapshotError) -> String {
        let path = try string(object, key, at: field, maximumBytes: limits.maximumPathBytes)
        guard path.hasPrefix("#") else {
            throw SnapshotError(
                code: .invalidField, field: fieldName(key, at: field),
                message: "an element path starts with \"#\"")
        }
        return path
    }

    func number(
        _ object: JSONObject, _ key: String, at field: String, in range: ClosedRange<Double>,
        integral: Bool = false
    ) throws(SnapshotError) -> Double {
        let name = fieldName(key, at: field)
        guard let value = object[key] else {
            throw SnapshotError(code: .missingField, field: name, message: "required")
        }
        guard let number = value.doubleValue else {
            throw SnapshotError(code: .invalidField, field: name, message: "must be a number")
        }
        guard number.isFinite, range.contains(number), !integral || number.rounded() == number else {
            throw SnapshotError(
                code: .outOfRange, field: name,
                message:
                    "must be \(integral ? "an integer" : "a number") from \(range.lowerBound) to \(range.upperBound)"
            )
        }
        return number
    }

    func flag(_ object: JSONObject, _ key: String, at field: String) throws(SnapshotError) -> Bool {
        guard let value = object[key] else { return false }
        guard case .bool(let flag) = value else {
            throw SnapshotError(
                code: .invalidField, field: fieldName(key, at: field), message: "must be true or false")
        }
        return flag
    }
}
