/// The business identity of one list item: its id and the properties for its events.
public struct ListItemIdentity: Sendable, Hashable {
    /// The business id (a product SKU), sent as `$item_id`.
    public var id: String
    /// Business properties copied onto the item's exposure and skip events. Default none.
    public var properties: JSONObject

    /// Creates an identity.
    public init(id: String, properties: JSONObject = [:]) {
        self.id = id
        self.properties = properties
    }
}
