extension ScreenSnapshot {
    /// The snapshot as a JSON value, snake_case keys, absent optionals left out.
    public var jsonValue: JSONValue {
        var root: JSONObject = [
            "connect_token": .string(connectToken), "snapshot_id": .string(snapshotID),
            "anonymous_id": .string(anonymousID), "page": .string(page), "app_version": .string(appVersion),
            "build": .string(build), "os_version": .string(osVersion), "device_model": .string(deviceModel),
            "screen": [
                "width": .double(screen.width), "height": .double(screen.height),
                "scale": .double(screen.scale),
            ],
            "taken_at": .string(takenAt.iso8601), "trigger": .string(trigger.rawValue),
            "elements": .array(elements.map(\.jsonValue)),
        ]
        if let userID { root["user_id"] = .string(userID) }
        if let pagePath { root["page_path"] = .string(pagePath) }
        if let image {
            root["image"] = [
                "format": .string(image.format.rawValue), "width": .int(Int64(image.width)),
                "height": .int(Int64(image.height)), "data": .string(Base64.encode(image.data)),
            ]
        }
        return .object(root)
    }

    /// The JSON text that `POST /v1/snapshots` carries.
    public var jsonBytes: [UInt8] { JSONWriter.bytes(jsonValue) }
}

extension ScreenSnapshot.Element {
    /// The element as a JSON value.
    public var jsonValue: JSONValue {
        var element: JSONObject = [
            "path": .string(path), "similar_path": .string(similarPath), "kind": .string(kind),
            "frame": [
                "x": .double(frame.x), "y": .double(frame.y), "width": .double(frame.width),
                "height": .double(frame.height),
            ],
            "ignored": .bool(ignored), "planned": .bool(planned),
        ]
        if let text { element["text"] = .string(text) }
        if let planEntry { element["plan_entry"] = .string(planEntry) }
        return .object(element)
    }
}
