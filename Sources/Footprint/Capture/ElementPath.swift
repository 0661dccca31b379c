/// An element's path: the action, the sender type, each responder of the chain with its index,
/// then the element's attributes.
///
/// `#buttonClick:#UIButton#UIButton[0]#UIView[0]#ViewController#UIApplication#AppDelegate#currentTitle=Button#state=1#enabled=1#selected=0`
///
/// Views are written `Type[i]` (index among same-type siblings), cells `Type[section:row]`,
/// controllers and other responders `Type`. The ``similar`` path writes cell rows as `*`, so one
/// rule can match every row while ``exact`` paths still tell rows apart. Attribute values have
/// `%` and `#` percent-escaped; titles are redacted by ``TextRedactor``.
public struct ElementPath: Sendable, Hashable {
    /// The exact path.
    public var exact: String
    /// The path with cell rows written `*`; equal to ``exact`` outside cells.
    public var similar: String
    /// The index path of the nearest cell on the chain (the element or an ancestor), when any.
    public var position: CellIndexPath?

    /// Builds the path of an action on an element.
    public init(element: ElementDescription, action: ActionDescription) {
        var exact = ""
        exact.reserveCapacity(32 + element.chain.count * 20)
        exact += "#"
        exact += action.selector
        exact += "#"
        exact += action.senderType
        var similar: String?
        var position: CellIndexPath?
        for responder in element.chain {
            if let cell = responder.cellIndexPath {
                if similar == nil { similar = exact }
                if position == nil { position = cell }
                exact += "#\(responder.typeName)[\(cell.section):\(cell.row)]"
                similar! += "#\(responder.typeName)[\(cell.section):*]"
                continue
            }
            var segment = "#"
            segment += responder.typeName
            if responder.role == .view, let index = responder.siblingIndex {
                segment += "["
                segment += String(index)
                segment += "]"
            }
            exact += segment
            similar? += segment
        }
        let attributes = Self.attributeSuffix(element)
        exact += attributes
        similar? += attributes
        self.exact = exact
        self.similar = similar ?? exact
        self.position = position
    }

    /// The `#key=value` attributes of the element's kind, in the fixed order.
    static func attributeSuffix(_ element: ElementDescription) -> String {
        var suffix = ""
        for (key, value) in element.pathAttributes {
            suffix += "#"
            suffix += key
            suffix += "="
            suffix += escaped(value)
        }
        return suffix
    }

    /// Percent-escapes the characters that would break a path: `%` and `#`.
    static func escaped(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "%") }) else {
            return value
        }
        var result = ""
        for character in value {
            switch character {
            case "%": result += "%25"
            case "#": result += "%23"
            default: result.append(character)
            }
        }
        return result
    }
}

extension ElementDescription {
    /// The attributes written into the path for this element's kind, in the fixed order
    /// (absent attributes are skipped).
    var pathAttributes: [(key: String, value: String)] {
        var result: [(key: String, value: String)] = []
        func add(_ key: String, _ value: String?) {
            if let value { result.append((key, value)) }
        }
        switch kind {
        case .button:
            add("currentTitle", isSecureTextEntry ? nil : attributes.title.map(TextRedactor.redact))
            add("state", attributes.state.map(String.init))
            add("enabled", attributes.isEnabled.map(Self.flag))
            add("selected", attributes.isSelected.map(Self.flag))
        case .toggle:
            add("on", attributes.isOn.map(Self.flag))
        case .segmentedControl:
            add("selectedSegmentIndex", attributes.selectedSegmentIndex.map(String.init))
        case .stepper:
            add("value", attributes.value.map(Self.number))
        case .slider, .textInput, .cell, .alertAction, .other:
            break
        }
        return result
    }

    /// The text of an attribute for plan conditions: a path attribute of this element's kind,
    /// else a business property of the chain (the nearest wins).
    func conditionValue(named name: String) -> String? {
        if let attribute = pathAttributes.first(where: { $0.key == name }) { return attribute.value }
        for responder in chain {
            guard let value = responder.properties[name] else { continue }
            switch value {
            case .string(let text): return text
            case .int(let number): return String(number)
            case .bool(let flag): return Self.flag(flag)
            case .double(let number): return Self.number(number)
            default: return value.description
            }
        }
        return nil
    }

    static func flag(_ value: Bool) -> String { value ? "1" : "0" }

    /// Integral values without a fraction (`3`), others as Swift writes them (`2.5`).
    static func number(_ value: Double) -> String {
        if value.isFinite, value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
