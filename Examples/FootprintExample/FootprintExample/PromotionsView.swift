import Footprint
import SwiftUI

/// A SwiftUI page: a screen, tappable elements and an exposure list, through the same capture
/// core as the UIKit pages. Exposure works from iOS 15; skips of flings are reported from iOS 18.
struct PromotionsView: View {
    private let promotions = (1...50).map { "promo-\($0)" }
    private let banners = (1...8).map { "banner-\($0)" }

    var body: some View {
        ScrollView {
            LazyVStack(spacing: 12) {
                carousel
                ForEach(Array(promotions.enumerated()), id: \.element) { index, promotion in
                    row(promotion, index: index)
                }
            }
            .padding()
        }
        .footprintExposureList("promotions")
        .footprintScreen("Promotions")
    }

    /// A horizontal list inside the vertical one: its banners are its own items.
    private var carousel: some View {
        ScrollView(.horizontal, showsIndicators: false) {
            LazyHStack(spacing: 12) {
                ForEach(Array(banners.enumerated()), id: \.element) { index, banner in
                    Text(banner)
                        .frame(width: 240, height: 120)
                        .background(.tint.opacity(0.2), in: RoundedRectangle(cornerRadius: 12))
                        .footprintExposure(id: banner, position: ListIndexPath(section: 0, row: index))
                }
            }
        }
        .footprintExposureList("banners", axis: .horizontal)
    }

    private func row(_ promotion: String, index: Int) -> some View {
        Text(promotion)
            .frame(maxWidth: .infinity, minHeight: 80)
            .background(.quaternary, in: RoundedRectangle(cornerRadius: 12))
            .footprintTap("promotion", itemID: promotion)
            .footprintExposure(id: promotion, position: ListIndexPath(section: 0, row: index))
    }
}
