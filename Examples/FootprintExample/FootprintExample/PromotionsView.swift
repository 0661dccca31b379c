import Footprint
import SwiftUI

/// A SwiftUI page: a screen, tappable elements and an exposure list, through the same capture
/// core as the UIKit pages.
struct PromotionsView: View {
    private let promotions = (1...50).map { "promo-\($0)" }

    var body: some View {
        ScrollView {
            LazyVStack(spacing: 12) {
                ForEach(Array(promotions.enumerated()), id: \.element) { index, promotion in
                    row(promotion, index: index)
                }
            }
            .padding()
        }
        .modifier(ExposureIfAvailable())
        .footprintScreen("Promotions")
    }

    @ViewBuilder
    private func row(_ promotion: String, index: Int) -> some View {
        let card = Text(promotion)
            .frame(maxWidth: .infinity, minHeight: 80)
            .background(.quaternary, in: RoundedRectangle(cornerRadius: 12))
            .footprintTap("promotion", itemID: promotion)
        if #available(iOS 18.0, *) {
            card.footprintExposure(id: promotion, position: ListIndexPath(section: 0, row: index))
        } else {
            card
        }
    }
}

/// Watches exposure where SwiftUI reports scroll phases (iOS 18 and later).
private struct ExposureIfAvailable: ViewModifier {
    func body(content: Content) -> some View {
        if #available(iOS 18.0, *) {
            content.footprintExposureList("promotions")
        } else {
            content
        }
    }
}
