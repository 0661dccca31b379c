import Footprint
import FootprintWire
import Foundation

/// Item layouts as `UITableView` and `UICollectionViewFlowLayout` compute them, for the demo,
/// the tests and the benchmarks.
public enum SimulatedLayout {
    /// A table: sections one after the other, each with a header then rows of equal length.
    /// - Parameters:
    ///   - axis: vertical for a table, horizontal for a carousel.
    ///   - rowsPerSection: how many rows each section has.
    ///   - rowLength: each row's length along the axis.
    ///   - crossLength: each row's length across the axis (the table's width).
    ///   - headerLength: each section header's length along the axis; default 0.
    ///   - itemId: the business id of the item at an index path; default none.
    ///   - properties: the business properties of the item at an index path; default none.
    public static func table(
        axis: ListAxis = .vertical, rowsPerSection: [Int], rowLength: CGFloat, crossLength: CGFloat,
        headerLength: CGFloat = 0, itemId: (ListIndexPath) -> String? = { _ in nil },
        properties: (ListIndexPath) -> JSONObject = { _ in [:] }
    ) -> [ListItem] {
        grid(
            axis: axis, itemsPerSection: rowsPerSection, columns: 1,
            itemSize: axis == .vertical
                ? CGSize(width: crossLength, height: rowLength)
                : CGSize(width: rowLength, height: crossLength),
            spacing: 0, headerLength: headerLength, itemId: itemId, properties: properties)
    }

    /// A grid: sections one after the other, each with a header then lines of `columns` items.
    /// - Parameters:
    ///   - axis: the scroll axis; lines run across it.
    ///   - itemsPerSection: how many items each section has.
    ///   - columns: items per line (across the axis).
    ///   - itemSize: each item's size.
    ///   - spacing: the gap between items, both ways; default 0.
    ///   - headerLength: each section header's length along the axis; default 0.
    ///   - itemId: the business id of the item at an index path; default none.
    ///   - properties: the business properties of the item at an index path; default none.
    public static func grid(
        axis: ListAxis = .vertical, itemsPerSection: [Int], columns: Int, itemSize: CGSize,
        spacing: CGFloat = 0,
        headerLength: CGFloat = 0, itemId: (ListIndexPath) -> String? = { _ in nil },
        properties: (ListIndexPath) -> JSONObject = { _ in [:] }
    ) -> [ListItem] {
        let columns = max(1, columns)
        let along = axis.length(of: itemSize)
        let across = axis == .vertical ? itemSize.width : itemSize.height
        var items: [ListItem] = []
        items.reserveCapacity(itemsPerSection.reduce(0, +))
        var cursor: CGFloat = 0
        for (section, count) in itemsPerSection.enumerated() {
            cursor += headerLength
            for row in 0..<max(0, count) {
                let line = CGFloat(row / columns)
                let column = CGFloat(row % columns)
                let start = cursor + line * (along + spacing)
                let cross = column * (across + spacing)
                let origin = axis == .vertical ? CGPoint(x: cross, y: start) : CGPoint(x: start, y: cross)
                let indexPath = ListIndexPath(section: section, row: row)
                items.append(
                    ListItem(
                        indexPath: indexPath, frame: CGRect(origin: origin, size: itemSize),
                        itemId: itemId(indexPath),
                        properties: properties(indexPath)))
            }
            let lines = CGFloat((max(0, count) + columns - 1) / columns)
            cursor += lines * along + max(0, lines - 1) * spacing
        }
        return items
    }
}
