/// A table for a terminal: a header, a rule under it, and rows, each column as wide as its widest
/// cell, text aligned left and numbers right. `footprint report`, the demo's report and the
/// command line's lists all print through it.
///
/// ```
/// page      PV  avg dwell
/// ------  ----  ---------
/// /home  1,204      3.2 s
/// ```
public struct TextTable: Sendable, Hashable {
    /// Which side of its column a cell keeps to.
    public enum Alignment: Sendable, Hashable {
        /// Text: names, paths, days.
        case left
        /// Numbers: counts, rates, durations.
        case right
    }

    /// A column: its title and how its cells align.
    public struct Column: Sendable, Hashable {
        /// The title, in the header.
        public var title: String
        /// The alignment of the title and the cells.
        public var alignment: Alignment

        /// Creates a column.
        /// - Parameters:
        ///   - title: the header.
        ///   - alignment: default ``Alignment/left``.
        public init(_ title: String, _ alignment: Alignment = .left) {
            self.title = title
            self.alignment = alignment
        }
    }

    /// The columns.
    public var columns: [Column]
    /// The rows, a cell per column (missing cells are empty, extra ones are dropped).
    public var rows: [[String]]

    /// Creates a table.
    public init(_ columns: [Column], rows: [[String]]) {
        self.columns = columns
        self.rows = rows
    }

    /// Creates a table whose columns are all text.
    public init(headers: [String], rows: [[String]]) {
        self.init(headers.map { Column($0) }, rows: rows)
    }

    /// The table's lines: the header, the rule, then a line per row; two spaces between columns
    /// and none after the last.
    public var lines: [String] {
        let cells = rows.map { row in columns.indices.map { $0 < row.count ? row[$0] : "" } }
        let widths = columns.indices.map { index in
            cells.reduce(columns[index].title.count) { max($0, $1[index].count) }
        }
        func line(_ values: [String]) -> String {
            let padded = values.enumerated().map { index, value in
                let padding = String(repeating: " ", count: widths[index] - value.count)
                return columns[index].alignment == .right ? padding + value : value + padding
            }
            return String(padded.joined(separator: "  ").reversed().drop { $0 == " " }.reversed())
        }
        return [line(columns.map(\.title)), line(widths.map { String(repeating: "-", count: $0) })]
            + cells.map(line)
    }

    /// ``lines`` joined by newlines.
    public var text: String { lines.joined(separator: "\n") }
}
