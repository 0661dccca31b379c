import Foundation

extension TrackingPlan {
    /// Reads and validates a plan from a property list with the same keys as the JSON format
    /// (XML or binary).
    /// - Throws: ``PlanError``: ``PlanError/Code/unreadable`` when the data is not a property
    ///   list or holds dates or data, otherwise the key at fault.
    public init(propertyList data: Data) throws(PlanError) {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw PlanError(
                code: .unreadable, keyPath: "", message: "not a property list: \(error.localizedDescription)")
        }
        try self.init(json: try Self.jsonValue(propertyListObject: object, at: ""))
    }

    /// Reads a plan file from disk: `.plist` as a property list, anything else as JSON.
    /// - Throws: ``PlanError`` (``PlanError/Code/unreadable`` when the file cannot be read).
    public init(contentsOf url: URL) throws(PlanError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw PlanError(
                code: .unreadable, keyPath: "",
                message: "cannot read \(url.path): \(error.localizedDescription)")
        }
        if url.pathExtension.lowercased() == "plist" {
            try self.init(propertyList: data)
        } else {
            try self.init(jsonBytes: [UInt8](data))
        }
    }

    /// Reads the plan an app bundles as `<name>.json` or `<name>.plist`.
    /// - Returns: `nil` when the bundle holds neither.
    /// - Throws: ``PlanError`` when the file is invalid.
    public static func bundled(named name: String, in bundle: Bundle = .main) throws(PlanError)
        -> TrackingPlan?
    {
        for fileExtension in ["json", "plist"] {
            if let url = bundle.url(forResource: name, withExtension: fileExtension) {
                return try TrackingPlan(contentsOf: url)
            }
        }
        return nil
    }

    /// Converts what `PropertyListSerialization` returns into JSON values.
    static func jsonValue(propertyListObject object: Any, at keyPath: String) throws(PlanError) -> JSONValue {
        switch object {
        case let text as String:
            return .string(text)
        case let number as NSNumber:
            return jsonValue(number)
        case let dictionary as [String: Any]:
            var members: JSONObject = [:]
            for (key, value) in dictionary {
                members[key] = try jsonValue(
                    propertyListObject: value, at: keyPath.isEmpty ? key : "\(keyPath).\(key)")
            }
            return .object(members)
        case let array as [Any]:
            var items: [JSONValue] = []
            for (index, value) in array.enumerated() {
                items.append(try jsonValue(propertyListObject: value, at: "\(keyPath)[\(index)]"))
            }
            return .array(items)
        default:
            throw PlanError(
                code: .invalidValue, keyPath: keyPath,
                message: "\(type(of: object)) values have no meaning in a tracking plan")
        }
    }

    /// Booleans stay Booleans, integers stay exact, other numbers become doubles. Property
    /// lists make Booleans as `char`/`BOOL` numbers and integers as `long long`, so the
    /// Objective-C type tells them apart on every platform.
    private static func jsonValue(_ number: NSNumber) -> JSONValue {
        switch String(cString: number.objCType) {
        case "c", "B": return .bool(number.boolValue)
        case "f", "d": return .double(number.doubleValue)
        default: return .int(number.int64Value)
        }
    }
}
