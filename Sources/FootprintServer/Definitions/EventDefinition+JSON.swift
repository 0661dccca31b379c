import FootprintWire

extension EventDefinition {
    /// The largest number of matchers in one definition.
    public static let maximumMatchers = 50

    /// Reads a definition: `{"id": "buy", "name": "Buy", "matchers": [{"event": "…", "path":
    /// "…", "match": "exact|similar|pattern", "attributes": {…}, "page": "…"}]}`.
    /// - Throws: ``ServerError`` with code `invalidDefinition`, naming the key at fault.
    public init(json: JSONValue) throws(ServerError) {
        func fail(_ message: String) -> ServerError {
            ServerError(code: .invalidDefinition, message: message)
        }
        guard let object = json.objectValue else { throw fail("a definition is a JSON object") }
        guard let id = object["id"]?.stringValue?.trimmingSpaces, Self.isValidId(id) else {
            throw fail("id: 1 to 64 letters, digits, '-', '_' or '.'")
        }
        guard let name = object["name"]?.stringValue?.trimmingSpaces, !name.isEmpty, name.utf8.count <= 200
        else {
            throw fail("name: 1 to 200 characters")
        }
        guard let list = object["matchers"]?.arrayValue, !list.isEmpty, list.count <= Self.maximumMatchers
        else {
            throw fail("matchers: 1 to \(Self.maximumMatchers) matchers")
        }
        var matchers: [EventMatcher] = []
        for (index, item) in list.enumerated() {
            let key = "matchers[\(index)]"
            guard let fields = item.objectValue else { throw fail("\(key): an object") }
            for field in fields.keys where !["event", "path", "match", "attributes", "page"].contains(field) {
                throw fail("\(key).\(field): unknown key")
            }
            func text(_ field: String) throws(ServerError) -> String? {
                guard let value = fields[field], !value.isNull else { return nil }
                guard let string = value.stringValue?.trimmingSpaces, !string.isEmpty else {
                    throw fail("\(key).\(field): a non-empty string")
                }
                return string
            }
            var rule: ElementRule?
            if let path = try text("path") {
                let matchText = try text("match") ?? "exact"
                guard let match = ElementRule.Match(rawValue: matchText) else {
                    throw fail("\(key).match: exact, similar or pattern")
                }
                if match == .pattern {
                    do { _ = try PathPattern(path) } catch { throw fail("\(key).path: \(error.message)") }
                }
                var attributes: [String: String] = [:]
                if let given = fields["attributes"], !given.isNull {
                    guard let pairs = given.objectValue else { throw fail("\(key).attributes: an object") }
                    for (name, value) in pairs {
                        guard let string = value.stringValue else {
                            throw fail("\(key).attributes.\(name): a string")
                        }
                        attributes[name] = string
                    }
                }
                rule = ElementRule(match: match, path: path, attributes: attributes)
            } else if fields["match"] != nil || fields["attributes"] != nil {
                throw fail("\(key): match and attributes need a path")
            }
            let matcher = EventMatcher(event: try text("event"), path: rule, page: try text("page"))
            guard matcher.event != nil || matcher.path != nil || matcher.page != nil else {
                throw fail("\(key): give an event, a path or a page")
            }
            matchers.append(matcher)
        }
        self.init(id: id, name: name, matchers: matchers)
    }

    /// The definition as JSON (the format ``init(json:)`` reads).
    public var jsonValue: JSONValue {
        .object([
            "id": .string(id), "name": .string(name),
            "matchers": .array(
                matchers.map { matcher in
                    var fields: JSONObject = [:]
                    if let event = matcher.event { fields["event"] = .string(event) }
                    if let page = matcher.page { fields["page"] = .string(page) }
                    if let rule = matcher.path {
                        fields["path"] = .string(rule.path)
                        fields["match"] = .string(rule.match.rawValue)
                        if !rule.attributes.isEmpty {
                            fields["attributes"] = .object(rule.attributes.mapValues(JSONValue.string))
                        }
                    }
                    return .object(fields)
                }),
        ])
    }

    /// Whether `id` is 1 to 64 letters, digits, `-`, `_` or `.`.
    public static func isValidId(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.utf8.allSatisfy { byte in
                (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                    || byte == 45 || byte == 95 || byte == 46
            }
    }
}
