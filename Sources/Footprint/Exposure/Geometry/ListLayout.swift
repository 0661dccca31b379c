import Foundation

/// The laid-out items of a list, ordered along the scroll axis so that the items inside any
/// rect are found by binary search: O(log n + k), whatever the number of items.
///
/// Works for tables, grids and waterfall layouts with any number of sections: items are sorted
/// by where they start along the axis, and the longest item bounds how far back an item that
/// still reaches into a rect can start.
public struct ListLayout: Sendable, Hashable {
    /// The axis the list scrolls along.
    public let axis: ListAxis
    /// The items, sorted by their start along ``axis``.
    public private(set) var items: [ListItem]
    /// The item starts along the axis, parallel to ``items`` (kept apart for a cache-friendly
    /// binary search).
    private let starts: [CGFloat]
    /// The longest item along the axis.
    private let longestItem: CGFloat

    /// Creates a layout from the items the adapter has laid out, in any order.
    public init(axis: ListAxis, items: [ListItem]) {
        self.axis = axis
        let sorted = items.sorted {
            let (lhs, rhs) = (axis.start(of: $0.frame), axis.start(of: $1.frame))
            return lhs != rhs ? lhs < rhs : $0.indexPath < $1.indexPath
        }
        self.items = sorted
        self.starts = sorted.map { axis.start(of: $0.frame) }
        self.longestItem = sorted.reduce(0) {
            max($0, axis == .vertical ? $1.frame.height : $1.frame.width)
        }
    }

    /// An empty layout.
    public static func empty(_ axis: ListAxis) -> ListLayout { ListLayout(axis: axis, items: []) }

    /// Calls `body` with the index (in ``items``) of every item whose frame overlaps `rect` along
    /// the axis, in order. Allocates nothing.
    @inline(__always)
    func forEachIndex(overlapping rect: CGRect, _ body: (Int) -> Void) {
        let rectStart = axis.start(of: rect)
        let rectEnd = axis.end(of: rect)
        var index = firstIndex(startingAtOrAfter: rectStart - longestItem)
        while index < items.count, starts[index] < rectEnd {
            if axis.end(of: items[index].frame) > rectStart { body(index) }
            index += 1
        }
    }

    /// Gives every item overlapping `rect` the identity `identify` reads for its index path now
    /// (an item it knows nothing about keeps its own). Frames, and so the order, do not change.
    /// - Returns: whether any item's id changed.
    mutating func reidentify(overlapping rect: CGRect, _ identify: (ListIndexPath) -> ListItemIdentity?)
        -> Bool
    {
        var changed = false
        forEachIndex(overlapping: rect) { index in
            guard let identity = identify(items[index].indexPath) else { return }
            if items[index].itemId != identity.id { changed = true }
            items[index].take(identity)
        }
        return changed
    }

    /// The index of the first item that starts at or after `coordinate`.
    private func firstIndex(startingAtOrAfter coordinate: CGFloat) -> Int {
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] < coordinate { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
