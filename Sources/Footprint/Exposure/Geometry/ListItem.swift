import Foundation

/// One laid-out item of a list, as the adapter describes it: where it is, which business object
/// it shows, and the business properties to put on its events.
public struct ListItem: Sendable, Equatable {
    /// Its position in the list.
    public var indexPath: ListIndexPath
    /// Its frame in content coordinates (the scroll view's content, not the screen).
    public var frame: CGRect
    /// The business id of what it shows (a product SKU), when the app gave one. With it, an
    /// item keeps its identity when rows are reordered, inserted or reloaded.
    public var itemId: String?
    /// Business properties copied onto its exposure and skip events (`price`, `category`).
    public var properties: JSONObject

    /// Creates an item.
    /// - Parameters:
    ///   - indexPath: its position in the list.
    ///   - frame: its frame in content coordinates.
    ///   - itemId: the business id of what it shows; default none.
    ///   - properties: business properties for its events; default none.
    public init(indexPath: ListIndexPath, frame: CGRect, itemId: String? = nil, properties: JSONObject = [:])
    {
        self.indexPath = indexPath
        self.frame = frame
        self.itemId = itemId
        self.properties = properties
    }

    /// Takes the business id and properties of `identity`.
    mutating func take(_ identity: ListItemIdentity) {
        itemId = identity.id
        properties = identity.properties
    }

    /// What makes two items the same for counting: the business id when there is one,
    /// otherwise the index path.
    public var identity: Identity {
        if let itemId { return .business(itemId) }
        return .position(indexPath)
    }

    /// The value of `$item_id` on the wire: the business id, else `"section:row"`.
    public var wireItemId: String { itemId ?? indexPath.description }

    /// The fraction (0...1) of this item's area inside `visibleRect`; 0 for an empty frame.
    @inline(__always)
    public func visibleRatio(in visibleRect: CGRect) -> Double {
        let area = frame.width * frame.height
        guard area > 0 else { return 0 }
        let width = min(frame.maxX, visibleRect.maxX) - max(frame.minX, visibleRect.minX)
        let height = min(frame.maxY, visibleRect.maxY) - max(frame.minY, visibleRect.minY)
        guard width > 0, height > 0 else { return 0 }
        return Double(width * height / area)
    }
}

extension ListItem {
    /// The identity an item is counted under.
    public enum Identity: Sendable, Hashable {
        /// The app's business id: survives reordering and reloads.
        case business(String)
        /// The index path, for items without a business id.
        case position(ListIndexPath)
    }
}

// `hash(into:)` written out: the synthesized one needs `CGRect: Hashable`, which Apple systems have
// only from iOS 18.
extension ListItem: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(indexPath)
        hasher.combineGeometry(frame)
        hasher.combine(itemId)
        hasher.combine(properties)
    }
}
