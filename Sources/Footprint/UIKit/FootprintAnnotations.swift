#if canImport(UIKit) && !os(watchOS)
    import ObjectiveC
    import UIKit

    /// What the app tells Footprint about one view or controller, stored on it as associated
    /// objects: `button.footprint.properties = ["slot": "top"]`, `cell.footprint.itemID = sku`,
    /// `debugView.footprint.isIgnored = true`.
    @MainActor
    public struct FootprintAnnotations {
        /// The annotated view or controller.
        public let responder: UIResponder

        /// Business properties put on every event of this element and of the elements inside it
        /// (the nearest wins). Default none.
        public var properties: JSONObject {
            get {
                AssociationKey.value(of: responder, PropertiesKey.self, as: Box<JSONObject>.self)?.value
                    ?? [:]
            }
            nonmutating set {
                AssociationKey.set(newValue.isEmpty ? nil : Box(newValue), on: responder, PropertiesKey.self)
            }
        }

        /// The business id of what this view or cell shows (a product SKU), sent as `$item_id`.
        /// Default none.
        public var itemID: String? {
            get { AssociationKey.value(of: responder, ItemIDKey.self, as: String.self) }
            nonmutating set { AssociationKey.set(newValue, on: responder, ItemIDKey.self) }
        }

        /// Whether this view or controller, and everything inside it, is never captured (no
        /// element events, no page views, no list exposure). Default false.
        public var isIgnored: Bool {
            get { AssociationKey.value(of: responder, IgnoredKey.self, as: Bool.self) ?? false }
            nonmutating set { AssociationKey.set(newValue ? true : nil, on: responder, IgnoredKey.self) }
        }

        /// Table and collection views: the business id and properties of the item at an index
        /// path, used for exposure, skip and selection events (cells are reused, so a list knows
        /// its items better than its cells do). Default none: items are known by `section:row`.
        public var listItems: (@MainActor (IndexPath) -> ListItemIdentity?)? {
            get {
                AssociationKey.value(of: responder, ListItemsKey.self, as: Box<ListItemProvider>.self)?.value
            }
            nonmutating set { AssociationKey.set(newValue.map { Box($0) }, on: responder, ListItemsKey.self) }
        }

        /// Table and collection views: which list of the page this is, sent as `$list_id` on
        /// exposure events when a page has several lists. Default none.
        public var listID: String? {
            get { AssociationKey.value(of: responder, ListIDKey.self, as: String.self) }
            nonmutating set { AssociationKey.set(newValue, on: responder, ListIDKey.self) }
        }

        private typealias ListItemProvider = @MainActor (IndexPath) -> ListItemIdentity?
        private enum PropertiesKey {}
        private enum ItemIDKey {}
        private enum IgnoredKey {}
        private enum ListItemsKey {}
        private enum ListIDKey {}
    }

    /// Holds a Swift value as an associated object.
    final class Box<Value> {
        let value: Value
        init(_ value: Value) {
            self.value = value
        }
    }

    extension UIResponder {
        /// What the app tells Footprint about this view or controller (business properties,
        /// item id, opt-out).
        @MainActor
        public var footprint: FootprintAnnotations { FootprintAnnotations(responder: self) }
    }
#endif
