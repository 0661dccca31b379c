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
    private var starts: [CGFloat]
    /// The longest item along the axis.
    private var longestItem: CGFloat

    /// Creates a layout from the items the adapter has laid out, in any order.
    public init(axis: ListAxis, items: [ListItem]) {
        self.axis = axis
        // The positions are sorted, not the items (each a few words with references): one move
        // per item in the end.
        let unsortedStarts = items.map { axis.start(of: $0.frame) }
        let order = items.indices.sorted { lhs, rhs in
            let (left, right) = (unsortedStarts[lhs], unsortedStarts[rhs])
            return left != right ? left < right : items[lhs].indexPath < items[rhs].indexPath
        }
        let sorted = order.map { items[$0] }
        self.items = sorted
        self.starts = order.map { unsortedStarts[$0] }
        self.longestItem = sorted.reduce(0) { max($0, Self.length(of: $1.frame, along: axis)) }
    }

    /// Adds one item where it belongs in the order: a binary search and one move of the items
    /// after it, O(log n + n) memory moves instead of sorting the whole layout again.
    public mutating func insert(_ item: ListItem) {
        let start = axis.start(of: item.frame)
        var index = firstIndex(startingAtOrAfter: start)
        while index < items.count, starts[index] == start, items[index].indexPath < item.indexPath {
            index += 1
        }
        items.insert(item, at: index)
        starts.insert(start, at: index)
        longestItem = max(longestItem, Self.length(of: item.frame, along: axis))
    }

    /// An empty layout.
    public static func empty(_ axis: ListAxis) -> ListLayout { ListLayout(axis: axis, items: []) }

    /// Calls `body` with the index (in ``items``) of every item whose frame overlaps `rect` along
    /// the axis, in order. Allocates nothing.
    @inline(__always)
    func forEachIndex(overlapping rect: CGRect, _ body: (Int) -> Void) {
        let rectStart = axis.start(of: rect)
        for index in candidates(overlapping: rect) where axis.end(of: items[index].frame) > rectStart {
            body(index)
        }
    }

    /// The indices of the items that may overlap `rect` along the axis: those that start before
    /// its end and no more than the longest item before its start.
    private func candidates(overlapping rect: CGRect) -> Range<Int> {
        let first = firstIndex(startingAtOrAfter: axis.start(of: rect) - longestItem)
        var end = first
        let rectEnd = axis.end(of: rect)
        while end < items.count, starts[end] < rectEnd { end += 1 }
        return first..<end
    }

    /// Gives every item overlapping `rect` the identity `identify` reads for its index path now
    /// (an item it knows nothing about keeps its own). Frames, and so the order, do not change.
    /// - Returns: whether any item's id changed.
    mutating func reidentify(overlapping rect: CGRect, _ identify: (ListIndexPath) -> ListItemIdentity?)
        -> Bool
    {
        // The indices first, then the writes: writing from inside ``forEachIndex``'s closure
        // would copy the whole item array (the closure's `self` is a second reference to it).
        var changed = false
        let rectStart = axis.start(of: rect)
        for index in candidates(overlapping: rect) where axis.end(of: items[index].frame) > rectStart {
            guard let identity = identify(items[index].indexPath) else { continue }
            if items[index].itemId != identity.id { changed = true }
            items[index].take(identity)
        }
        return changed
    }

    private static func length(of frame: CGRect, along axis: ListAxis) -> CGFloat {
        axis == .vertical ? frame.height : frame.width
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
