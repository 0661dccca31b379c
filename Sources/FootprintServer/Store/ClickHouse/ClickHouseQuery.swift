/// A read and the type of its rows: the SQL, how many fields each row of its answer has, and how
/// those fields become a `Row`. A row of another shape, or with a field that cannot be read as
/// its type, is an error (``ServerError/Code/storage``), never a row left out.
struct ClickHouseQuery<Row>: Sendable {
    /// The statement, without its `FORMAT`.
    var sql: String
    /// Which read it is, named in its errors.
    var name: String
    /// The fields of each row.
    var fieldCount: Int
    /// Tables of rows sent along with the statement, which it reads by their names (none by
    /// default).
    var external: [ClickHouseExternalTable] = []
    /// A row of the right shape as a `Row`.
    private let decodeRow: @Sendable (ClickHouseRow) throws(ServerError) -> Row

    /// A read of `sql` whose rows have `fields` fields, each decoded by `decode`.
    /// - Parameter name: which read it is (default: the function that makes it).
    init(
        _ sql: String, name: String = #function, fields: Int,
        decode: @escaping @Sendable (ClickHouseRow) throws(ServerError) -> Row
    ) {
        self.sql = sql
        self.name = name
        self.fieldCount = fields
        self.decodeRow = decode
    }

    /// The row of `fields`, one row of the answer in ClickHouse's `TabSeparated` format.
    /// - Throws: ``ServerError/Code/storage`` for a row of another number of fields or a field
    ///   that is not of its type.
    func decode(_ fields: [Substring]) throws(ServerError) -> Row {
        guard fields.count == fieldCount else {
            throw ServerError(
                code: .storage,
                message:
                    "ClickHouse answered a row of \(fields.count) fields where \(fieldCount) were expected, to \(name)"
            )
        }
        return try decodeRow(ClickHouseRow(fields: fields, query: name))
    }
}

extension ClickHouseQuery where Row == Int64 {
    /// A read of one number (a count): rows of one whole number.
    /// - Parameter name: which read it is (default: the function that makes it).
    static func number(_ sql: String, name: String = #function) -> Self {
        Self(sql, name: name, fields: 1) { row throws(ServerError) in try row.int64(0) }
    }
}
