#if canImport(SwiftUI) && canImport(UIKit) && !os(watchOS)
    import SwiftUI

    /// One exposure item's frame in its scroll view's coordinate space, reported up the view tree.
    struct ExposureItemFrame: Equatable, Sendable {
        let id: String
        let position: ListIndexPath
        let frame: CGRect
        let properties: JSONObject
    }

    /// Collects the frames of the items inside a scroll view.
    struct ExposureItemFramesKey: PreferenceKey {
        static var defaultValue: [ExposureItemFrame] { [] }

        static func reduce(value: inout [ExposureItemFrame], nextValue: () -> [ExposureItemFrame]) {
            value.append(contentsOf: nextValue())
        }
    }

    /// An item: reports its frame in the innermost scroll view's coordinate space.
    @available(iOS 18.0, *)
    struct FootprintExposureItemModifier: ViewModifier {
        let id: String
        let position: ListIndexPath
        let properties: JSONObject

        func body(content: Content) -> some View {
            content.background {
                GeometryReader { proxy in
                    Color.clear.preference(
                        key: ExposureItemFramesKey.self,
                        value: [
                            ExposureItemFrame(
                                id: id, position: position, frame: proxy.frame(in: .scrollView),
                                properties: properties)
                        ])
                }
            }
        }
    }

    /// A scroll view whose items' exposure is watched: its geometry and scroll phases, and its
    /// items' frames, go to a ``SwiftUIListExposureDriver``.
    @available(iOS 18.0, *)
    struct FootprintExposureListModifier: ViewModifier {
        let listID: String?
        @State private var driver = SwiftUIListExposureDriver()
        @Environment(\.footprintScreenName) private var screenName

        func body(content: Content) -> some View {
            // Closures capture only these values, never the modifier itself.
            let driver = driver
            let listID = listID
            let screenName = screenName
            return
                content
                .onScrollGeometryChange(for: ScrollGeometry.self, of: { $0 }) { _, geometry in
                    MainActor.assumeIsolated { driver.geometryChanged(geometry) }
                }
                .onScrollPhaseChange { oldPhase, newPhase in
                    MainActor.assumeIsolated { driver.phaseChanged(from: oldPhase, to: newPhase) }
                }
                .onPreferenceChange(ExposureItemFramesKey.self) { frames in
                    MainActor.assumeIsolated { driver.framesChanged(frames) }
                }
                .onAppear { driver.appeared(listID: listID, pageName: screenName) }
                .onDisappear { driver.disappeared() }
        }
    }
#endif
