#if canImport(SwiftUI) && canImport(UIKit) && !os(watchOS)
    import SwiftUI

    /// A tapped SwiftUI element. The gesture is simultaneous, so buttons and links inside keep
    /// their own taps.
    struct FootprintTapModifier: ViewModifier {
        let name: String
        let itemID: String?
        let properties: JSONObject
        @Environment(\.footprintScreenName) private var screenName

        func body(content: Content) -> some View {
            content.simultaneousGesture(TapGesture().onEnded { report() })
        }

        @MainActor
        private func report() {
            guard let capture = UIKitCapture.installed?.capture else { return }
            var chain = [ResponderDescription(name, role: .view, itemID: itemID, properties: properties)]
            if let screenName { chain.append(.controller(screenName)) }
            capture.controlActed(
                ElementDescription(chain: chain, kind: .button),
                action: ActionDescription(selector: "tap", senderType: "SwiftUI"))
        }
    }
#endif
