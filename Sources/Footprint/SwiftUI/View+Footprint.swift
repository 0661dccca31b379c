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
        ///
        /// From iOS 18 (built with Xcode 16 or later) the scroll view's geometry and scroll phases
        /// are read: exposures at rest, skips of flings, as for UIKit lists. On iOS 15–17 the items'
        /// frames alone are read: exposures once the list has been still for the exposure
        /// configuration's `settleMilliseconds`, and no skips.
        /// - Parameters:
        ///   - listID: which list of the page, sent as `$list_id`. Default none.
        ///   - axis: the direction it scrolls in (`.horizontal` for a carousel). Default vertical.
        public func footprintExposureList(_ listID: String? = nil, axis: ListAxis = .vertical) -> some View {
            modifier(FootprintExposureListModifier(listID: listID, axis: axis))
        }

        /// Marks this view as one item of the enclosing ``footprintExposureList(_:)``: exposure and
        /// skip events carry `id` as `$item_id`.
        /// - Parameters:
        ///   - id: the business id of what the item shows.
        ///   - position: its place in the list. Default: section 0, row 0.
        ///   - properties: business properties for its events. Default none.
        public func footprintExposure(
            id: String, position: ListIndexPath = ListIndexPath(section: 0, row: 0),
            properties: JSONObject = [:]
        ) -> some View {
            modifier(FootprintExposureItemModifier(id: id, position: position, properties: properties))
        }
    }

    extension EnvironmentValues {
        /// The name of the SwiftUI page (``SwiftUI/View/footprintScreen(_:isIgnored:)``) around a view.
        var footprintScreenName: String? {
            get { self[FootprintScreenNameKey.self] }
            set { self[FootprintScreenNameKey.self] = newValue }
        }

        /// The watched list (``SwiftUI/View/footprintExposureList(_:axis:)``) around a view.
        var footprintExposureList: SwiftUIListExposureDriver? {
            get { self[FootprintExposureListKey.self] }
            set { self[FootprintExposureListKey.self] = newValue }
        }
    }

    /// The key of ``SwiftUI/EnvironmentValues/footprintScreenName``.
    private struct FootprintScreenNameKey: EnvironmentKey {
        static var defaultValue: String? { nil }
    }

    /// The key of ``SwiftUI/EnvironmentValues/footprintExposureList``.
    private struct FootprintExposureListKey: EnvironmentKey {
        static var defaultValue: SwiftUIListExposureDriver? { nil }
    }
#endif
