#if canImport(SwiftUI) && canImport(UIKit) && !os(watchOS)
    import SwiftUI

    /// An item of a watched list: reports its frame in the list's coordinate space when it
    /// appears and whenever it changes, and its disappearance (iOS 15 and later).
    struct FootprintExposureItemModifier: ViewModifier {
        let id: String
        let position: ListIndexPath
        let properties: JSONObject
        @Environment(\.footprintExposureList) private var list

        func body(content: Content) -> some View {
            content.background {
                if let list {
                    GeometryReader { proxy in
                        let frame = proxy.frame(in: CoordinateSpace.named(list.coordinateSpaceName))
                        Color.clear
                            .onAppear { list.itemReported(report(frame)) }
                            .onChange(of: frame, perform: { list.itemReported(report($0)) })
                            .onDisappear { list.itemDisappeared(id: id) }
                    }
                }
            }
        }

        private func report(_ frame: CGRect) -> DeclarativeListFeed.ItemFrame {
            DeclarativeListFeed.ItemFrame(id: id, position: position, frame: frame, properties: properties)
        }
    }

    /// A scroll view whose items' exposure is watched: its items' frames, its geometry and (from
    /// iOS 18) its scroll phases go to a ``SwiftUIListExposureDriver``.
    struct FootprintExposureListModifier: ViewModifier {
        let listID: String?
        @State private var driver: SwiftUIListExposureDriver
        @Environment(\.footprintScreenName) private var screenName

        init(listID: String?, axis: ListAxis) {
            self.listID = listID
            _driver = State(initialValue: SwiftUIListExposureDriver(axis: axis))
        }

        func body(content: Content) -> some View {
            // Closures capture only these values, never the modifier itself.
            let driver = driver
            let listID = listID
            let screenName = screenName
            return
                content
                .coordinateSpace(name: driver.coordinateSpaceName)
                .modifier(ScrollObservationModifier(driver: driver))
                .environment(\.footprintExposureList, driver)
                .onAppear { driver.appeared(listID: listID, pageName: screenName) }
                .onDisappear { driver.disappeared() }
        }
    }

    /// What the scroll view itself tells: its size, and with the iOS 18 SDK and on iOS 18 its
    /// geometry and scroll phases (without them the offset is estimated from the items; the size
    /// also stands in until the first geometry report).
    struct ScrollObservationModifier: ViewModifier {
        let driver: SwiftUIListExposureDriver

        func body(content: Content) -> some View {
            #if canImport(SwiftUI, _version: 6.0)
                // Built with the iOS 18 SDK (SwiftUI 6), where these APIs exist.
                if #available(iOS 18.0, *) {
                    observingSize(observingScrollGeometry(content))
                } else {
                    observingSize(content)
                }
            #else
                observingSize(content)
            #endif
        }

        @MainActor
        private func observingSize(_ view: some View) -> some View {
            let driver = driver
            return view.background {
                GeometryReader { proxy in
                    Color.clear
                        .onAppear { driver.sizeChanged(proxy.size) }
                        .onChange(of: proxy.size, perform: { driver.sizeChanged($0) })
                }
            }
        }

        #if canImport(SwiftUI, _version: 6.0)
            @available(iOS 18.0, *)
            @MainActor
            private func observingScrollGeometry(_ content: Content) -> some View {
                let driver = driver
                return
                    content
                    .onScrollGeometryChange(for: ScrollViewGeometry.self, of: { ScrollViewGeometry($0) }) {
                        _, geometry in
                        MainActor.assumeIsolated {
                            driver.geometryChanged(viewport: geometry.viewport, offset: geometry.offset)
                        }
                    }
                    .onScrollPhaseChange { _, phase in
                        MainActor.assumeIsolated {
                            driver.activityChanged(to: ScrollViewGeometry.activity(phase))
                        }
                    }
            }
        #endif
    }

    #if canImport(SwiftUI, _version: 6.0)
        /// The parts of an iOS 18 `ScrollGeometry` that list exposure reads.
        @available(iOS 18.0, *)
        struct ScrollViewGeometry: Equatable, Sendable {
            let viewport: ListViewport
            let offset: CGPoint

            init(_ geometry: ScrollGeometry) {
                let insets = geometry.contentInsets
                viewport = ListViewport(
                    size: geometry.containerSize,
                    insets: ListInsets(
                        top: insets.top, left: insets.leading, bottom: insets.bottom, right: insets.trailing))
                offset = geometry.contentOffset
            }

            static func activity(_ phase: ScrollPhase) -> DeclarativeListFeed.Activity {
                switch phase {
                case .idle: .idle
                case .tracking: .tracking
                case .interacting: .interacting
                case .decelerating: .decelerating
                case .animating: .animating
                @unknown default: .idle
                }
            }
        }
    #endif
#endif
