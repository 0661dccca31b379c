/// Rows a read sends along with its statement, which the statement reads as a table by ``name``
/// for that one query (ClickHouse's external data; on a `Distributed` table it is sent on to
/// every shard). A set of thousands of values costs a form part, not thousands of literals in
/// the statement for ClickHouse to parse (18.16 spends over a second on a copy check of 12,000
/// messages written as literals, about a tenth of that on the same rows sent this way).
struct ClickHouseExternalTable: Sendable, Equatable {
    /// The table's name in the statement: letters, digits and `_`, not starting with a digit.
    var name: String
    /// Its columns, as `name Type, …`.
    var structure: String
    /// Its rows, in `RowBinary`.
    var rows: ClickHouseRowBinary

    /// The body of a `multipart/form-data` request holding the statement `query` as the field
    /// named `query` (when given) and the rows as the part named ``name``, and its boundary
    /// (``formData(_:query:)``).
    func formData(query: String? = nil) -> (body: [UInt8], boundary: String) {
        Self.formData([self], query: query)
    }

    /// The body of a `multipart/form-data` request holding the statement `query` as the field
    /// named `query` (when given) and each of `tables`' rows as the part of its name, and its
    /// boundary: one that occurs nowhere in the rows or the statement (a longer one is tried
    /// while it does). ClickHouse reads the statement from that field as from the URL, whose
    /// length it limits (16 KB on 18.16): a statement sent with rows can be as long as one sent
    /// alone.
    static func formData(_ tables: [ClickHouseExternalTable], query: String? = nil) -> (
        body: [UInt8], boundary: String
    ) {
        let statement = query.map { Array($0.utf8) } ?? []
        var boundary = "footprint-rows"
        var counter: UInt64 = 0
        while tables.contains(where: { contains($0.rows.bytes, Array(boundary.utf8)) })
            || contains(statement, Array(boundary.utf8))
        {
            counter &+= 1
            boundary = "footprint-rows-\(counter)-\(UInt64.random(in: 0...UInt64.max))"
        }
        var body: [UInt8] = []
        body.reserveCapacity(
            statement.count + tables.reduce(0) { $0 + $1.rows.bytes.count + 256 } + 4 * boundary.utf8.count
                + 256)
        if query != nil {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"query\"\r\n\r\n".utf8)
            body += statement
            body += Array("\r\n".utf8)
        }
        for table in tables {
            body += Array(
                ("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(table.name)\"; filename=\"\(table.name)\"\r\n"
                    + "Content-Type: application/octet-stream\r\n\r\n").utf8)
            body += table.rows.bytes
            body += Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return (body, boundary)
    }

    /// Whether `pattern` (not empty) occurs in `bytes`.
    static func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
        guard let first = pattern.first, pattern.count <= bytes.count else { return false }
        var index = bytes.startIndex
        let last = bytes.count - pattern.count
        while index <= last {
            guard let start = bytes[index...last].firstIndex(of: first) else { return false }
            if bytes[start..<start + pattern.count].elementsEqual(pattern) { return true }
            index = start + 1
        }
        return false
    }
}
