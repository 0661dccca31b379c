#if canImport(SwiftUI) && canImport(UIKit) && !os(watchOS)
    import SwiftUI

    extension View {
        /// Reports this view as a page named `name` while it is on screen (a `screen` message when
        /// it appears, `$screen_leave` with its duration when it disappears), through the same
        /// capture core as UIKit controllers. In the plan's configured page mode, the plan lists
        /// the page under this name. Elements inside it report it as their page.
        /// - Parameters:
        ///   - name: the page name.
        ///   - isIgnored: opts the page out. Default false.
        public func footprintScreen(_ name: String, isIgnored: Bool = false) -> some View {
            modifier(FootprintScreenModifier(name: name, isIgnored: isIgnored))
        }

        /// Reports taps on this view as `$element_click`, named `name`, without taking the tap
        /// from buttons or links inside it.
        /// - Parameters:
        ///   - name: the element's name, written in its path (`#tap#SwiftUI#buy#Home`).
        ///   - itemID: the business id of what it shows, sent as `$item_id`. Default none.
        ///   - properties: business properties for its events. Default none.
        public func footprintTap(_ name: String, itemID: String? = nil, properties: JSONObject = [:])
            -> some View
        {
            modifier(FootprintTapModifier(name: name, itemID: itemID, properties: properties))
        }

        /// Watches the exposure of the items of this scroll view (put it on the `ScrollView` or
        /// `List`; mark each item with ``footprintExposure(id:position:properties:)``).
        /// - Parameter listID: which list of the page, sent as `$list_id`. Default none.
        @available(iOS 18.0, *)
        public func footprintExposureList(_ listID: String? = nil) -> some View {
            modifier(FootprintExposureListModifier(listID: listID))
        }

        /// Marks this view as one item of the enclosing ``footprintExposureList(_:)``: exposure and
        /// skip events carry `id` as `$item_id`.
        /// - Parameters:
        ///   - id: the business id of what the item shows.
        ///   - position: its place in the list. Default: section 0, row 0.
        ///   - properties: business properties for its events. Default none.
        @available(iOS 18.0, *)
        public func footprintExposure(
            id: String, position: ListIndexPath = ListIndexPath(section: 0, row: 0),
            properties: JSONObject = [:]
        ) -> some View {
            modifier(FootprintExposureItemModifier(id: id, position: position, properties: properties))
        }
    }

    extension EnvironmentValues {
        /// The name of the SwiftUI page (``SwiftUI/View/footprintScreen(_:isIgnored:)``) around a view.
        @Entry var footprintScreenName: String? = nil
    }
#endif
