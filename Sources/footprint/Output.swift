import FootprintServer
import Foundation

/// Printing for people and for scripts (`--json`).
enum Output {
    /// Prints `value` as pretty, key-sorted JSON.
    static func json(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// Prints `values` as JSON when `json`, else as a table under `headers`, a row each.
    static func list<Value: Encodable>(
        _ values: [Value], json: Bool, headers: [String], row: (Value) throws -> [String]
    ) throws {
        if json {
            try Output.json(values)
        } else {
            table(headers, try values.map(row))
        }
    }

    /// Prints rows as an aligned table under `headers` (``TextTable``).
    static func table(_ headers: [String], _ rows: [[String]]) {
        print(TextTable(headers: headers, rows: rows).text)
    }

    /// Writes `message` to standard error.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
