extension TrackingPlan {
    /// Reads and validates a plan from JSON text.
    /// - Throws: ``PlanError`` naming the key at fault; code ``PlanError/Code/unreadable`` when
    ///   the bytes are not JSON.
    public init(jsonBytes: some Collection<UInt8>) throws(PlanError) {
        let value: JSONValue
        do {
            value = try JSONParser().parse(jsonBytes)
        } catch {
            throw PlanError(code: .unreadable, keyPath: "", message: "not JSON: \(error)")
        }
        try self.init(json: value)
    }

    /// Reads and validates a plan from its JSON value (a property list converted to JSON values
    /// reads the same way).
    /// - Throws: ``PlanError`` naming the key at fault, e.g. `events[3].triggers[0].path`.
    public init(json: JSONValue) throws(PlanError) {
        let root = try PlanReader.object(json, at: "")
        try PlanReader.rejectUnknownKeys(
            root, at: "",
            known: [
                "version", "uploadMode", "pageMode", "sampleRate", "blockedEvents", "capture", "ignoredPages",
                "pages", "events", "exposureLists",
            ])
        guard let versionValue = root["version"] else {
            throw PlanError(
                code: .missingKey, keyPath: "version", message: "the plan format version is required")
        }
        let version = try PlanReader.integer(versionValue, at: "version")
        guard version >= 1 else {
            throw PlanError(
                code: .invalidValue, keyPath: "version", message: "must be 1 or more, got \(version)")
        }
        guard version <= TrackingPlan.currentVersion else {
            throw PlanError(
                code: .unsupportedVersion, keyPath: "version",
                message: "format \(version) is newer than this SDK reads (\(TrackingPlan.currentVersion))")
        }
        var plan = TrackingPlan(version: version)
        if let value = root["uploadMode"] {
            plan.uploadMode = try PlanReader.choice(value, at: "uploadMode")
        }
        if let value = root["pageMode"] {
            plan.pageMode = try PlanReader.choice(value, at: "pageMode")
        }
        if let value = root["exposureLists"] {
            plan.exposureLists = try PlanReader.choice(value, at: "exposureLists")
        }
        if let value = root["sampleRate"] {
            guard let rate = value.doubleValue, rate >= 0, rate <= 1 else {
                throw PlanError(
                    code: .invalidValue, keyPath: "sampleRate",
                    message: "must be a number from 0 to 1, got \(value)")
            }
            plan.sampleRate = rate
        }
        if let value = root["blockedEvents"] {
            plan.blockedEvents = Set(try PlanReader.stringArray(value, at: "blockedEvents"))
        }
        if let value = root["ignoredPages"] {
            plan.ignoredPages = Set(try PlanReader.stringArray(value, at: "ignoredPages"))
        }
        if let value = root["capture"] {
            plan.capture = try CaptureSwitches(json: value, at: "capture")
        }
        if let value = root["pages"] {
            let pages = try PlanReader.object(value, at: "pages")
            for (type, rule) in pages {
                let keyPath = "pages.\(type)"
                guard PlanReader.isTypeName(type) else {
                    throw PlanError(code: .invalidValue, keyPath: keyPath, message: "not a type name")
                }
                plan.pages[type] = try PageRule(json: rule, at: keyPath)
            }
        }
        if let value = root["events"] {
            guard case .array(let items) = value else {
                throw PlanError(code: .invalidValue, keyPath: "events", message: "must be an array")
            }
            var seenIDs: [String: Int] = [:]
            for (index, item) in items.enumerated() {
                let event = try PlanEvent(json: item, at: "events[\(index)]")
                if let first = seenIDs[event.id] {
                    throw PlanError(
                        code: .duplicateId, keyPath: "events[\(index)].id",
                        message: "id \"\(event.id)\" is already used by events[\(first)]")
                }
                seenIDs[event.id] = index
                plan.events.append(event)
            }
        }
        self = plan
    }
}

extension CaptureSwitches {
    fileprivate init(json: JSONValue, at keyPath: String) throws(PlanError) {
        let object = try PlanReader.object(json, at: keyPath)
        let keys: [(String, WritableKeyPath<CaptureSwitches, Bool>)] = [
            ("pages", \.pages), ("controls", \.controls), ("cells", \.cells), ("gestures", \.gestures),
            ("alerts", \.alerts), ("methods", \.methods), ("exposures", \.exposures),
        ]
        try PlanReader.rejectUnknownKeys(object, at: keyPath, known: Set(keys.map(\.0)))
        self.init()
        for (key, property) in keys {
            guard let value = object[key] else { continue }
            guard let flag = value.boolValue else {
                throw PlanError(
                    code: .invalidValue, keyPath: "\(keyPath).\(key)", message: "must be true or false")
            }
            self[keyPath: property] = flag
        }
    }
}

extension PageRule {
    fileprivate init(json: JSONValue, at keyPath: String) throws(PlanError) {
        let object = try PlanReader.object(json, at: keyPath)
        try PlanReader.rejectUnknownKeys(object, at: keyPath, known: ["name", "properties"])
        let name = try PlanReader.requiredString(object, "name", at: keyPath)
        var properties: JSONObject = [:]
        if let value = object["properties"] {
            properties = try PlanReader.object(value, at: "\(keyPath).properties")
        }
        self.init(name: name, properties: properties)
    }
}

extension PlanEvent {
    fileprivate init(json: JSONValue, at keyPath: String) throws(PlanError) {
        let object = try PlanReader.object(json, at: keyPath)
        try PlanReader.rejectUnknownKeys(
            object, at: keyPath, known: ["id", "name", "triggers", "properties"])
        let id: String
        switch object["id"] {
        case nil:
            throw PlanError(code: .missingKey, keyPath: "\(keyPath).id", message: "every event needs an id")
        case .int(let number)?:
            id = String(number)
        case .string(let text)? where !text.isEmpty:
            id = text
        case let other?:
            throw PlanError(
                code: .invalidValue, keyPath: "\(keyPath).id",
                message: "must be a non-empty string or an integer, got \(other)")
        }
        let name = try PlanReader.requiredString(object, "name", at: keyPath)
        guard case .array(let items)? = object["triggers"] else {
            throw PlanError(
                code: object["triggers"] == nil ? .missingKey : .invalidValue, keyPath: "\(keyPath).triggers",
                message: "must be an array of at least one trigger")
        }
        guard !items.isEmpty else {
            throw PlanError(
                code: .invalidValue, keyPath: "\(keyPath).triggers", message: "must hold at least one trigger"
            )
        }
        var triggers: [PlanTrigger] = []
        for (index, item) in items.enumerated() {
            triggers.append(try PlanTrigger(json: item, at: "\(keyPath).triggers[\(index)]"))
        }
        var properties: [String: PropertyKeyPath] = [:]
        if let value = object["properties"] {
            let members = try PlanReader.object(value, at: "\(keyPath).properties")
            for (property, pathValue) in members {
                let propertyPath = "\(keyPath).properties.\(property)"
                guard !property.isEmpty else {
                    throw PlanError(
                        code: .invalidValue, keyPath: propertyPath, message: "empty property name")
                }
                guard let text = pathValue.stringValue, let path = PropertyKeyPath(text) else {
                    throw PlanError(
                        code: .invalidValue, keyPath: propertyPath,
                        message: "must be a key path such as \"viewController.banner.url\", got \(pathValue)")
                }
                properties[property] = path
            }
        }
        self.init(id: id, name: name, triggers: triggers, properties: properties)
    }
}

extension PlanTrigger {
    fileprivate init(json: JSONValue, at keyPath: String) throws(PlanError) {
        let object = try PlanReader.object(json, at: keyPath)
        if object["target"] != nil || object["method"] != nil {
            try PlanReader.rejectUnknownKeys(object, at: keyPath, known: ["target", "method"])
            let target = try PlanReader.requiredString(object, "target", at: keyPath)
            guard PlanReader.isTypeName(target) else {
                throw PlanError(
                    code: .invalidValue, keyPath: "\(keyPath).target", message: "not a type name: \(target)")
            }
            let method = try PlanReader.requiredString(object, "method", at: keyPath)
            self = .method(target: target, method: method)
            return
        }
        try PlanReader.rejectUnknownKeys(object, at: keyPath, known: ["path", "match", "attributes"])
        guard object["path"] != nil else {
            throw PlanError(
                code: .missingKey, keyPath: "\(keyPath).path",
                message: "a trigger needs either \"target\" and \"method\", or \"path\"")
        }
        var match = ElementRule.Match.exact
        if let value = object["match"] {
            match = try PlanReader.choice(value, at: "\(keyPath).match")
        }
        let path = try PlanReader.requiredString(object, "path", at: keyPath)
        switch match {
        case .exact, .similar:
            guard path.hasPrefix("#") else {
                throw PlanError(
                    code: .invalidValue, keyPath: "\(keyPath).path",
                    message: "an element path starts with \"#\"")
            }
        case .pattern:
            do {
                _ = try PathPattern(path)
            } catch {
                throw PlanError(code: .invalidValue, keyPath: "\(keyPath).path", message: error.message)
            }
        }
        var attributes: [String: String] = [:]
        if let value = object["attributes"] {
            for (key, condition) in try PlanReader.object(value, at: "\(keyPath).attributes") {
                switch condition {
                case .string(let text): attributes[key] = text
                case .int(let number): attributes[key] = String(number)
                case .bool(let flag): attributes[key] = flag ? "1" : "0"
                default:
                    throw PlanError(
                        code: .invalidValue, keyPath: "\(keyPath).attributes.\(key)",
                        message: "must be a string, an integer or a Boolean")
                }
            }
        }
        self = .element(ElementRule(match: match, path: path, attributes: attributes))
    }
}

/// The checks shared by every part of plan decoding.
enum PlanReader {
    static func object(_ value: JSONValue, at keyPath: String) throws(PlanError) -> JSONObject {
        guard case .object(let object) = value else {
            throw PlanError(
                code: .invalidValue, keyPath: keyPath,
                message: keyPath.isEmpty ? "the plan must be a JSON object" : "must be an object")
        }
        return object
    }

    static func rejectUnknownKeys(_ object: JSONObject, at keyPath: String, known: Set<String>)
        throws(PlanError)
    {
        for key in object.keys.sorted() where !known.contains(key) {
            throw PlanError(
                code: .unknownKey, keyPath: keyPath.isEmpty ? key : "\(keyPath).\(key)",
                message: "unknown key; expected one of \(known.sorted().joined(separator: ", "))")
        }
    }

    static func integer(_ value: JSONValue, at keyPath: String) throws(PlanError) -> Int64 {
        guard let number = value.int64Value else {
            throw PlanError(
                code: .invalidValue, keyPath: keyPath, message: "must be an integer, got \(value)")
        }
        return number
    }

    static func requiredString(_ object: JSONObject, _ key: String, at keyPath: String) throws(PlanError)
        -> String
    {
        let path = "\(keyPath).\(key)"
        guard let value = object[key] else {
            throw PlanError(code: .missingKey, keyPath: path, message: "required")
        }
        guard let text = value.stringValue, !text.isEmpty else {
            throw PlanError(
                code: .invalidValue, keyPath: path, message: "must be a non-empty string, got \(value)")
        }
        return text
    }

    static func stringArray(_ value: JSONValue, at keyPath: String) throws(PlanError) -> [String] {
        guard case .array(let items) = value else {
            throw PlanError(code: .invalidValue, keyPath: keyPath, message: "must be an array of strings")
        }
        var result: [String] = []
        for (index, item) in items.enumerated() {
            guard let text = item.stringValue, !text.isEmpty else {
                throw PlanError(
                    code: .invalidValue, keyPath: "\(keyPath)[\(index)]",
                    message: "must be a non-empty string")
            }
            result.append(text)
        }
        return result
    }

    static func choice<Choice: RawRepresentable & CaseIterable>(
        _ value: JSONValue, at keyPath: String
    ) throws(PlanError) -> Choice where Choice.RawValue == String {
        guard let text = value.stringValue, let choice = Choice(rawValue: text) else {
            let allowed = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
            throw PlanError(
                code: .invalidValue, keyPath: keyPath, message: "must be \(allowed), got \(value)")
        }
        return choice
    }

    /// A Swift or Objective-C type name, possibly module-qualified or generic
    /// (`Shop.CartViewController`, `ListController<Product>`): no `#`, no line break, not
    /// starting with a digit or a dot.
    static func isTypeName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first != ".", !("0"..."9").contains(first) else {
            return false
        }
        return !text.unicodeScalars.contains { $0 == "#" || $0 == "\n" || $0 == "\r" || $0 == "\t" }
    }
}
