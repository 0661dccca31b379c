/// The position of an item in a list: section and row (table) or item (collection).
///
/// A plain pair rather than Foundation's `IndexPath` so that comparing and hashing it on the
/// scrolling path costs nothing (the adapter copies `indexPath.section` and `.row`/`.item`).
public struct ListIndexPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The section.
    public var section: Int
    /// The row (table) or item (collection) inside the section.
    public var row: Int

    /// Creates an index path.
    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    public static func < (lhs: ListIndexPath, rhs: ListIndexPath) -> Bool {
        (lhs.section, lhs.row) < (rhs.section, rhs.row)
    }

    /// `"section:row"`, the form used on the wire (`$item_position`, and `$item_id` when the
    /// app gave no business id).
    public var description: String { "\(section):\(row)" }
}
