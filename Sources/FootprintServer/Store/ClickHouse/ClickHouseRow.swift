/// One row of a ClickHouse answer in its `TabSeparated` format, its fields read by position as
/// the types of a ``ClickHouseQuery``'s row: a field that is not one throws.
struct ClickHouseRow {
    /// The fields, escaped as they came.
    let fields: [Substring]
    /// The read the row answers, named in errors.
    let query: String

    /// Field `index` as it came (escapes kept): a key to match with another read's rows.
    subscript(index: Int) -> Substring { fields[index] }

    /// Field `index` as text, escapes undone; `nil` for `\N`.
    func text(_ index: Int) -> String? { ClickHouseFormat.text(fields[index]) }

    /// Field `index` as text, `""` for `\N`.
    func string(_ index: Int) -> String { text(index) ?? "" }

    /// Field `index` as a whole number; a floating-point one is held within `Int64`.
    /// - Throws: ``ServerError/Code/storage`` when it is not a number.
    func int64(_ index: Int) throws(ServerError) -> Int64 {
        let field = fields[index]
        if let value = Int64(field) { return value }
        guard let value = Double(field) else { throw unreadable(index, as: "a number") }
        return Int64(Int(saturating: value))
    }

    /// Field `index` as a whole number within `Int`.
    func int(_ index: Int) throws(ServerError) -> Int { Int(try int64(index)) }

    /// Field `index` as a `Nullable` whole number: `nil` for `\N`.
    func optionalInt64(_ index: Int) throws(ServerError) -> Int64? {
        fields[index] == "\\N" ? nil : try int64(index)
    }

    /// Field `index` as an unsigned 64-bit number (a mask).
    func uint64(_ index: Int) throws(ServerError) -> UInt64 {
        guard let value = UInt64(fields[index]) else { throw unreadable(index, as: "an unsigned number") }
        return value
    }

    /// Field `index` as a rollup kind.
    func kind(_ index: Int) throws(ServerError) -> RollupKind {
        guard let kind = RollupKind(rawValue: try int64(index)) else {
            throw unreadable(index, as: "a rollup kind")
        }
        return kind
    }

    /// A sum read both as an integer (field `exact`) and as a double (field `approximate`): the
    /// integer when the double says it did not wrap, else the double held within `Int64`.
    func sum(exact: Int, approximate: Int) throws(ServerError) -> Int64 {
        guard let double = Double(fields[approximate]) else { throw unreadable(approximate, as: "a number") }
        if abs(double) < 0x1p62 { return try int64(exact) }
        return Int64(Int(saturating: double))
    }

    /// The error for field `index` that is not `what`.
    func unreadable(_ index: Int, as what: String) -> ServerError {
        let shown = fields[index].count > 40 ? fields[index].prefix(40) + "…" : fields[index]
        return ServerError(
            code: .storage,
            message:
                "ClickHouse answered field \(index + 1) as '\(shown)' where \(what) was expected, to \(query)"
        )
    }
}
