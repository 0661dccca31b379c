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
        // Built as UTF-8 bytes and turned into strings once: this runs on the main thread at
        // every tap.
        var exact: [UInt8] = []
        exact.reserveCapacity(64 + element.chain.count * 24)
        exact.append(Self.separator)
        exact.append(contentsOf: action.selector.utf8)
        exact.append(Self.separator)
        exact.append(contentsOf: action.senderType.utf8)
        var similar: [UInt8]?
        var position: CellIndexPath?
        for responder in element.chain {
            if let cell = responder.cellIndexPath {
                if similar == nil { similar = exact }
                if position == nil { position = cell }
                Self.appendCell(responder.typeName, section: cell.section, row: cell.row, to: &exact)
                Self.appendCell(responder.typeName, section: cell.section, row: nil, to: &similar!)
                continue
            }
            let segmentStart = exact.count
            exact.append(Self.separator)
            exact.append(contentsOf: responder.typeName.utf8)
            if responder.role == .view, let index = responder.siblingIndex {
                exact.append(UInt8(ascii: "["))
                Self.appendDecimal(index, to: &exact)
                exact.append(UInt8(ascii: "]"))
            }
            similar?.append(contentsOf: exact[segmentStart...])
        }
        for (key, value) in element.pathAttributes {
            let start = exact.count
            exact.append(Self.separator)
            exact.append(contentsOf: key.utf8)
            exact.append(UInt8(ascii: "="))
            Self.appendEscaped(value, to: &exact)
            similar?.append(contentsOf: exact[start...])
        }
        self.exact = String(decoding: exact, as: UTF8.self)
        self.similar = similar.map { String(decoding: $0, as: UTF8.self) } ?? self.exact
        self.position = position
    }

    private static let separator = UInt8(ascii: "#")

    /// Appends `#Type[section:row]`, or `#Type[section:*]` when `row` is `nil`.
    private static func appendCell(_ typeName: String, section: Int, row: Int?, to bytes: inout [UInt8]) {
        bytes.append(separator)
        bytes.append(contentsOf: typeName.utf8)
        bytes.append(UInt8(ascii: "["))
        appendDecimal(section, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        if let row { appendDecimal(row, to: &bytes) } else { bytes.append(UInt8(ascii: "*")) }
        bytes.append(UInt8(ascii: "]"))
    }

    private static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            appendDecimal(value == .min ? .max : -value, to: &bytes)
            return
        }
        if value >= 10 { appendDecimal(value / 10, to: &bytes) }
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// Appends `value` with `%` and `#` percent-escaped, so attribute values cannot break a path.
    private static func appendEscaped(_ value: String, to bytes: inout [UInt8]) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "%"): bytes.append(contentsOf: "%25".utf8)
            case UInt8(ascii: "#"): bytes.append(contentsOf: "%23".utf8)
            default: bytes.append(byte)
            }
        }
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
        case .slider, .datePicker, .pageControl, .textInput, .cell, .alertAction, .other:
            break
        }
        return result
    }

    /// The text of an attribute for plan conditions: a path attribute of this element's kind,
    /// else a business property of the chain (the nearest wins).
    public func conditionValue(named name: String) -> String? {
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
