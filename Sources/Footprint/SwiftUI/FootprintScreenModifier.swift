#if canImport(SwiftUI) && canImport(UIKit) && !os(watchOS)
    import SwiftUI

    /// A SwiftUI page: enters on appear, leaves on disappear.
    struct FootprintScreenModifier: ViewModifier {
        let name: String
        let isIgnored: Bool
        /// Tells this page's visits apart from another view's with the same name.
        @State private var identity = PageIdentity()

        func body(content: Content) -> some View {
            content
                .environment(\.footprintScreenName, name)
                .onAppear { UIKitCapture.installed?.capture.pageAppeared(page) }
                .onDisappear { UIKitCapture.installed?.capture.pageDisappeared(page) }
        }

        /// The page as the capture core sees it: a screen whose type is its name.
        private var page: PageDescription {
            PageDescription(
                controllerType: name, instanceID: UInt64(UInt(bitPattern: ObjectIdentifier(identity))),
                ignoresTracking: isIgnored)
        }
    }

    /// An object whose identity stands for one SwiftUI page instance.
    final class PageIdentity: Sendable {}
#endif
